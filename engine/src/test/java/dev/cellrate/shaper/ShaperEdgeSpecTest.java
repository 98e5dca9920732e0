package dev.cellrate.shaper;

import dev.cellrate.ShaperMode;
import dev.cellrate.TestFronts;
import dev.cellrate.KeyedShaper;
import dev.cellrate.Reservation;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import dev.cellrate.table.SlotTable;
import org.agrona.concurrent.NanoClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a shaper or reserving limiter answers at its edges: permits of one nanosecond, string keys that wait,
 * a wait beyond the long range, every reserve form, a pay-later start, a cancel decided once, and
 * {@code acquireWithin} on a scripted clock (the time to act reached exactly, an interrupt at it, a clock that
 * goes back after a refusal or an immediate grant).
 */
class ShaperEdgeSpecTest
{
    private static final long T_NS = 100;
    private static final Limit LIMIT = Limit.ofGcra(T_NS, 2 * T_NS);
    private static final Limit ONE_NS = Limit.ofGcra(1, 2);
    private static final NanoClock ZERO = () -> 0;
    private static final Duration HANG = Duration.ofSeconds(10);

    /** A clock that answers the given readings in turn (the last one for ever) and may interrupt its reader. */
    private static final class ScriptedClock implements NanoClock
    {
        private final long[] readings;
        private final int interruptAtRead;
        private int reads;

        ScriptedClock(final int interruptAtRead, final long... readings)
        {
            this.readings = readings;
            this.interruptAtRead = interruptAtRead;
        }

        public long nanoTime()
        {
            final int read = reads++;
            if (read == interruptAtRead)
            {
                Thread.currentThread().interrupt();
            }
            return readings[Math.min(read, readings.length - 1)];
        }
    }

    private static KeyedShaper keyed(final Limit limit)
    {
        return TestFronts.keyedShaper(limit, ShaperMode.delay(), new SlotTable(1, 16, 16, 1_000_000, 7, ZERO), ZERO);
    }

    @Test
    void permitsOfOneNanosecondAreReservedAndRefunded()
    {
        final Shaper shaper = new Shaper(ONE_NS, ShaperMode.delay());
        assertEquals(0, shaper.reserve(1, 100));
        assertEquals(1, shaper.reserve(1, 100));
        assertTrue(shaper.cancel(101, 1), "the latest one-ns slot is refunded");
        assertTrue(shaper.cancel(100, 1));
        assertEquals(100, shaper.tatNs());

        final KeyedShaper keyed = keyed(ONE_NS);
        final Reservation r = new Reservation();
        assertEquals(0, keyed.reserve(7L, 1, 100, r));
        assertEquals(1, r.incrementNs());
        assertEquals(0, keyed.reserve("seven", 2, 100, null), "keys are independent");
        assertEquals(1, keyed.reserve(7L, 1, 100, null));
        assertFalse(keyed.cancel(7L, r, 100), "a later reservation of the key is live");
    }

    @Test
    void aStringKeyWaitsForItsSlot()
    {
        final KeyedShaper shaper = keyed(LIMIT);
        final Reservation r = new Reservation();
        assertEquals(0, shaper.reserve("k", 1, 1_000, null));
        assertEquals(100, shaper.reserve("k", 1, 1_000, r));
        assertEquals(1_100, r.releaseNs());
        assertEquals(200, shaper.reserve("k", 1, 1_000, null));
        assertEquals(Result.encodeRetryAfter(100), shaper.reserve("k", 1, 1_000, null));
        assertEquals(0, shaper.reserve("other", 1, 1_000, null));
    }

    @Test
    void aWaitBeyondTheLongRangeIsNeverGranted()
    {
        final ReservingLimiter limiter = new ReservingLimiter(LIMIT, ZERO);
        assertEquals(0, limiter.reserve(3, 0));
        final Reservation r = new Reservation();
        // From Long.MIN_VALUE the wait for TAT 300 is 2^63 + 200 ns: no long holds it.
        assertEquals(Result.NEVER, limiter.reserve(1, Long.MIN_VALUE, r));
        assertFalse(r.admitted());
        assertEquals(300, limiter.tatNs(), "nothing charged");
    }

    @Test
    void everyReserveFormAnswersTheWaitAndTheLimiterDescribesItself()
    {
        final ReservingLimiter limiter = new ReservingLimiter(LIMIT, ZERO);
        assertSame(ZERO, limiter.clock());
        assertSame(LIMIT, limiter.limit());
        assertFalse(limiter.isPayLater());
        assertEquals(3, limiter.maxPermits());
        assertEquals(0, limiter.reserve(3, 1_000));
        assertEquals(100, limiter.reserve(1, 1_000), "the debt beyond the burst waits");
        assertEquals(Result.encodeRetryAfter(150), limiter.reserve(1, 1_000, 50), "a wait of 200 does not fit 50");
        assertEquals(200, limiter.reserve(1, 1_000, 200));
        assertEquals(Result.NEVER, limiter.reserve(1, 1_000, -1), "a negative maximum wait");
        assertEquals(Result.NEVER, limiter.reserve(4, 1_000), "more than the burst");
    }

    @Test
    void payLaterStartsFromItsInitialTat()
    {
        final ReservingLimiter limiter = ReservingLimiter.payLater(LIMIT, 10, 1_500, ZERO);
        assertTrue(limiter.isPayLater());
        assertEquals(10, limiter.maxPermits());
        assertEquals(1_500, limiter.tatNs());
        assertEquals(300, limiter.reserve(5, 1_000), "waits for its first permit only: 1500 - 200 - 1000");
        assertEquals(2_000, limiter.tatNs());
    }

    @Test
    void theFirstCancelOfAReservationDecides()
    {
        final ReservingLimiter limiter = new ReservingLimiter(LIMIT, ZERO);
        final Reservation r = new Reservation();
        assertEquals(0, limiter.reserve(3, 1_000, r));
        assertFalse(limiter.cancel(r, 1_001), "its time to act has passed");
        assertFalse(limiter.cancel(r, 1_000), "a later cancel changes nothing");
        assertEquals(1_300, limiter.tatNs());

        final Reservation s = new Reservation();
        assertEquals(0, limiter.reserve(1, 2_000, s));
        assertTrue(limiter.cancel(s, 2_000));
        final Reservation t = new Reservation();
        assertEquals(0, limiter.reserve(1, 2_000, t), "the same slot again");
        assertFalse(limiter.cancel(s, 2_000), "the refunded holder does not refund the later one");
        assertEquals(2_100, limiter.tatNs());
    }

    @Test
    void acquireWithinReturnsWhenTheClockReachesTheTimeToActExactly()
    {
        final ReservingLimiter limiter = new ReservingLimiter(LIMIT, new ScriptedClock(-1, 1_000, 1_100));
        assertEquals(0, limiter.reserve(3, 1_000));
        assertEquals(100, assertTimeoutPreemptively(HANG, () -> limiter.acquireWithin(1, 1_000)));
        assertEquals(1_400, limiter.tatNs());
    }

    @Test
    void anInterruptAtTheTimeToActStillRefundsAndOneNanosecondLaterDoesNot()
    {
        // Readings: the reservation (1000), the first wait (1000, and the interrupt), the check after it.
        final ReservingLimiter atIt = new ReservingLimiter(LIMIT, new ScriptedClock(1, 1_000, 1_000, 1_100));
        assertEquals(0, atIt.reserve(3, 1_000));
        assertThrows(InterruptedException.class, () -> atIt.acquireWithin(1, 1_000));
        assertEquals(1_300, atIt.tatNs(), "refunded: the time to act (1100) had not passed");

        final ReservingLimiter after = new ReservingLimiter(LIMIT, new ScriptedClock(1, 1_000, 1_000, 1_101));
        assertEquals(0, after.reserve(3, 1_000));
        assertThrows(InterruptedException.class, () -> after.acquireWithin(1, 1_000));
        assertEquals(1_400, after.tatNs(), "kept: the permits count as used from 1100 on");
        assertFalse(Thread.interrupted());
    }

    @Test
    void aRefusalOrAGrantWithoutWaitReturnsAtOnceEvenIfTheClockThenGoesBack()
    {
        final long nowNs = 1_000_000_000L;
        final ReservingLimiter refused = new ReservingLimiter(LIMIT, new ScriptedClock(-1, nowNs, 0));
        assertEquals(0, refused.reserve(3, nowNs));
        assertEquals(Result.encodeRetryAfter(100), assertTimeoutPreemptively(HANG, () -> refused.acquireWithin(1, 0)));
        assertEquals(nowNs + 300, refused.tatNs());

        final ReservingLimiter granted = new ReservingLimiter(LIMIT, new ScriptedClock(-1, nowNs, 0));
        assertEquals(0, assertTimeoutPreemptively(HANG, () -> granted.acquireWithin(1, 0)));
        assertEquals(nowNs + 100, granted.tatNs());
    }
}
