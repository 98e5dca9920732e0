package dev.cellrate;

import dev.cellrate.ShaperMode;
import dev.cellrate.KeyedShaper;
import dev.cellrate.Reservation;
import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.Reserver;
import dev.cellrate.Result;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A {@link Reservation} records the front (and, on a keyed front, the key) that made it: a cancel on another
 * front is refused with an {@link IllegalArgumentException} that says so, one for another key returns false, and
 * neither changes a cell; the owner's cancel still refunds. See also {@code ReconfigurableShaperTest}.
 */
final class ReservationOwnerTest
{
    private static final Limit LIMIT = Limit.perSecond(10, 5);

    @Test
    void aShapersReservationIsRefusedByAnotherShaper()
    {
        final Shaper x = new Shaper(LIMIT, ShaperMode.delay());
        final Shaper y = new Shaper(LIMIT, ShaperMode.delay());
        final Reservation reservation = new Reservation();
        assertTrue(Result.isReserved(x.reserve(3, 1_000, reservation)));
        assertTrue(Result.isReserved(y.reserve(3, 1_000)));
        final long xTat = x.tatNs();
        final long yTat = y.tatNs();
        final String message = assertThrows(IllegalArgumentException.class, () -> y.cancel(reservation)).getMessage();
        assertTrue(message.contains("another"), message);
        assertEquals(yTat, y.tatNs(), "the foreign cancel refunded nothing");
        assertEquals(xTat, x.tatNs());
        assertTrue(x.cancel(reservation), "the owner still refunds");
    }

    @Test
    void aReservingLimitersReservationIsRefusedByAnotherOne()
    {
        final ReservingLimiter x = new ReservingLimiter(LIMIT);
        final ReservingLimiter y = new ReservingLimiter(LIMIT);
        final Reservation reservation = new Reservation();
        assertTrue(Result.isReserved(x.reserve(3, 1_000, Long.MAX_VALUE, reservation)));
        assertTrue(Result.isReserved(y.reserve(3, 1_000, Long.MAX_VALUE)));
        final long yTat = y.tatNs();
        assertThrows(IllegalArgumentException.class, () -> y.cancel(reservation, 1_000));
        assertEquals(yTat, y.tatNs());
        assertTrue(x.cancel(reservation, 1_000));
    }

    @Test
    void aKeyedReservationIsRefusedByAnotherShaperAndForAnotherKey()
    {
        final KeyedShaper x = KeyedRateLimiter.builder(LIMIT).slotCount(64).seed(1).buildShaper(ShaperMode.delay());
        final KeyedShaper y = KeyedRateLimiter.builder(LIMIT).slotCount(64).seed(1).buildShaper(ShaperMode.delay());
        final Reservation reservation = new Reservation();
        assertTrue(Result.isReserved(x.reserve(1, 3, 1_000, reservation)));
        assertTrue(Result.isReserved(x.reserve(2, 3, 1_000)));
        assertTrue(Result.isReserved(y.reserve(1, 3, 1_000)));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> y.cancel(1, reservation, 1_000))
            .getMessage().contains("another"));
        assertFalse(x.cancel(2, reservation, 1_000), "another key of the same shaper: refused, nothing refunded");
        assertFalse(x.cancel("1", reservation, 1_000), "the string \"1\" is another key than the long 1");
        assertTrue(x.cancel(1, reservation, 1_000), "the owner, with the key, still refunds");
        assertFalse(x.cancel(1, reservation, 1_000), "once");
    }
}
