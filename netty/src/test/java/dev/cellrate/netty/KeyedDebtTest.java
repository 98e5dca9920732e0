package dev.cellrate.netty;

import dev.cellrate.Limit;
import dev.cellrate.Result;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** peek admits exactly where GCRA admits one permit; debit is bounded; odd inputs never throw. */
final class KeyedDebtTest
{
    private static final byte[] A = "client-a".getBytes(StandardCharsets.US_ASCII);
    private static final long S = 1_000_000_000L;

    @Test
    void peekAndDebitFollowGcraAndTheDebtIsBounded()
    {
        final KeyedDebt debt = new KeyedDebt(Limit.perSecond(1, 3), 1024, 10 * S, 1); // T = 1 s, tau = 2 s
        final long t0 = 5_000 * S;
        assertEquals(Result.ADMITTED, debt.peek(A, 0, A.length, t0));
        debit(debt, 3, t0);                                  // TAT = t0 + 3 s: lag 3 s > tau
        assertEquals(S, debt.peek(A, 0, A.length, t0));     // conforms again after 1 s
        assertEquals(Result.ADMITTED, debt.peek(A, 0, A.length, t0 + S));
        assertEquals(3 * S, debt.resetAfterNs(A, 0, A.length, t0));

        debit(debt, Long.MAX_VALUE, t0);                     // bounded at now + tau + T + maxDebt = +13 s
        assertEquals(13 * S, debt.resetAfterNs(A, 0, A.length, t0));
        assertEquals(11 * S, debt.peek(A, 0, A.length, t0));
        debit(debt, 5, t0);                                  // already at the bound: unchanged
        assertEquals(13 * S, debt.resetAfterNs(A, 0, A.length, t0));

        debit(debt, 0, t0);
        debit(debt, -5, t0);
        final KeyedDebt edge = new KeyedDebt(Limit.perSecond(1, 1), 1, 0, 0);
        debit(edge, Long.MAX_VALUE, Long.MAX_VALUE - 1);
        debit(edge, Long.MAX_VALUE, Long.MIN_VALUE);
        assertTrue(edge.peek(A, 0, A.length, Long.MIN_VALUE) > 0, "a TAT near the top is far in debt from the bottom");
    }

    @Test
    void badConfigurationNamesTheField()
    {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> new KeyedDebt(Limit.perSecond(1, 1), 3, 0, 0));
        assertTrue(e.getMessage().contains("buckets"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new KeyedDebt(Limit.perSecond(1, 1), 4, -1, 0));
    }

    private static void debit(final KeyedDebt debt, final long permits, final long nowNs)
    {
        assertEquals(Result.ADMITTED, debt.debit(A, 0, A.length, permits, nowNs));
    }
}
