package dev.cellrate.gcra;

import dev.cellrate.Decision;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import dev.cellrate.testing.InterposingBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A decision whose CAS loses to another thread decides again on the winner's TAT: it is admitted behind
 * the winner if there is room, and rejected (writing nothing) if the winner took the last room. Driven
 * deterministically: the test buffer performs the other thread's write just before the first CAS.
 */
class CellRetrySpecTest
{
    private static final long T_NS = 100;
    private static final Limit LIMIT = Limit.ofGcra(T_NS, 2 * T_NS); // burst 3
    private static final CellStep<Decision> FILL = (d, code, tatNs, nowNs) -> d.set(code, tatNs, nowNs, LIMIT);

    private static InterposingBuffer cellAt(final long tatNs)
    {
        final InterposingBuffer buffer = new InterposingBuffer(64);
        buffer.putLongRelease(8, tatNs);
        return buffer;
    }

    @Test
    void aLoserIsAdmittedBehindTheWinnerWhenThereIsRoom()
    {
        final InterposingBuffer buffer = cellAt(0);
        buffer.beforeNextCas(() -> buffer.putLongRelease(8, 1_100));
        assertEquals(Result.ADMITTED, AtomicGcra.acquire(buffer, 8, T_NS, LIMIT.ceilingNs(), 1_000));
        assertEquals(2, buffer.casCount(), "one lost CAS, one retry");
        assertEquals(1_200, buffer.getLongVolatile(8), "charged on top of the winner");
    }

    @Test
    void aLoserIsRejectedWhenTheWinnerTookTheLastRoom()
    {
        final InterposingBuffer buffer = cellAt(1_100);
        buffer.beforeNextCas(() -> buffer.putLongRelease(8, 1_300));
        assertEquals(100, AtomicGcra.acquire(buffer, 8, T_NS, LIMIT.ceilingNs(), 1_000), "retry after 100 ns");
        assertEquals(1, buffer.casCount());
        assertEquals(1_300, buffer.getLongVolatile(8), "a rejection writes nothing");
    }

    @Test
    void aLoserWithADecisionSeesTheStateItWasDecidedOn()
    {
        final InterposingBuffer buffer = cellAt(0);
        buffer.beforeNextCas(() -> buffer.putLongRelease(8, 1_100));
        final Decision decision = new Decision();
        assertEquals(Result.ADMITTED, AtomicGcra.acquire(buffer, 8, T_NS, LIMIT.ceilingNs(), 1_000, decision, FILL));
        assertEquals(2, buffer.casCount());
        assertEquals(1, decision.remaining(), "two of three used: the winner's and ours");

        final InterposingBuffer full = cellAt(1_100);
        full.beforeNextCas(() -> full.putLongRelease(8, 1_300));
        assertEquals(100, AtomicGcra.acquire(full, 8, T_NS, LIMIT.ceilingNs(), 1_000, decision, FILL));
        assertEquals(0, decision.remaining());
        assertEquals(1_300, full.getLongVolatile(8));
    }

    @Test
    void aLoserWhoseRetryWouldOverflowIsNever()
    {
        final InterposingBuffer buffer = cellAt(0);
        buffer.beforeNextCas(() -> buffer.putLongRelease(8, Long.MAX_VALUE - 10));
        final long nowNs = Long.MAX_VALUE - 150;
        assertEquals(Result.NEVER, AtomicGcra.acquire(buffer, 8, T_NS, LIMIT.ceilingNs(), nowNs));
        final Decision decision = new Decision();
        buffer.putLongRelease(8, 0);
        buffer.beforeNextCas(() -> buffer.putLongRelease(8, Long.MAX_VALUE - 10));
        assertEquals(Result.NEVER, AtomicGcra.acquire(buffer, 8, T_NS, LIMIT.ceilingNs(), nowNs, decision, FILL));
        assertEquals(Long.MAX_VALUE - 10, buffer.getLongVolatile(8));
        assertTrue(decision.toString().length() > 0);
    }

    @Test
    void aDebitThatLosesTheRaceIsChargedOnTopOfTheWinner()
    {
        final long ceilingNs = LIMIT.ceilingNs();
        final long debtCeilingNs = Gcra.debtCeilingNs(ceilingNs);
        assertEquals(600, debtCeilingNs, "debt bounded at twice tau + T");
        final InterposingBuffer buffer = cellAt(1_000);
        buffer.beforeNextCas(() -> buffer.putLongRelease(8, 1_300)); // another caller took the whole burst
        final long code = AtomicGcra.debit(buffer, 8, 2 * T_NS, ceilingNs, debtCeilingNs, T_NS, 1_000);
        assertEquals(2, buffer.casCount());
        assertEquals(1_500, buffer.getLongVolatile(8), "both charges kept: the winner's and the debit");
        assertEquals(300, code, "a one-permit request conforms again once the lag is back to tau");
        assertEquals(Result.NEVER, AtomicGcra.debit(buffer, 8, 0, ceilingNs, debtCeilingNs, T_NS, 1_000));
    }

    @Test
    void aDebitNeverPassesItsCeilingAndNeverLowersTheTat()
    {
        final InterposingBuffer buffer = cellAt(1_000);
        final long ceilingNs = LIMIT.ceilingNs();
        AtomicGcra.debit(buffer, 8, 10_000, ceilingNs, 600, T_NS, 1_000);
        assertEquals(1_600, buffer.getLongVolatile(8), "capped at now + debt ceiling");
        buffer.putLongRelease(8, 5_000);
        AtomicGcra.debit(buffer, 8, T_NS, ceilingNs, 600, T_NS, 1_000);
        assertEquals(5_000, buffer.getLongVolatile(8), "a TAT already past the cap stays where it is");
    }

    @Test
    void peekAnswersWithoutCharging()
    {
        final InterposingBuffer buffer = cellAt(1_100);
        assertEquals(Result.ADMITTED, AtomicGcra.peek(buffer, 8, T_NS, LIMIT.ceilingNs(), 1_000));
        assertEquals(100, AtomicGcra.peek(buffer, 8, 3 * T_NS, LIMIT.ceilingNs(), 1_000));
        assertEquals(Result.NEVER, AtomicGcra.peek(buffer, 8, 0, LIMIT.ceilingNs(), 1_000));
        assertEquals(0, buffer.casCount());
        assertEquals(1_100, buffer.getLongVolatile(8));
    }
}
