package dev.cellrate;

import dev.cellrate.KeyedShaper;
import dev.cellrate.Limit;
import dev.cellrate.Reservation;
import dev.cellrate.Result;
import dev.cellrate.ShaperMode;
import dev.cellrate.TestFronts;
import dev.cellrate.layout.CellArray;
import dev.cellrate.table.SlotTable;
import java.time.Duration;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Validation, code encoding and odd times: the shaper never throws on the hot path, never wraps, and a
 * rejection can never be read as "go now".
 */
class ShaperEdgeTest
{
    private static final long T_NS = 1_000;
    private static final Limit LIMIT = Limit.ofGcra(T_NS, 3 * T_NS);

    @Test
    void badConfigurationNamesTheField()
    {
        final IllegalArgumentException ex =
            assertThrows(IllegalArgumentException.class, () -> ShaperMode.delay(-1));
        assertTrue(ex.getMessage().startsWith("immediateExcess must be in [0, "), ex.getMessage());
        final CellArray cells = CellArray.allocate(2);
        final IllegalArgumentException index = assertThrows(IllegalArgumentException.class,
            () -> new Shaper(LIMIT, ShaperMode.delay(), cells, 2, SystemNanoClock.INSTANCE));
        assertEquals("cellIndex must be in [0, 1] but was 2", index.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new Shaper(null, ShaperMode.delay()));
        assertThrows(IllegalArgumentException.class, () -> new Shaper(LIMIT, null));
    }

    @Test
    void modesMapToImmediateNs()
    {
        assertEquals(0, ShaperMode.delay().immediateNs(T_NS));
        assertEquals(ShaperMode.delay(), ShaperMode.delay(0));
        assertEquals(7 * T_NS, ShaperMode.delay(7).immediateNs(T_NS));
        assertEquals(Long.MAX_VALUE, ShaperMode.nodelay().immediateNs(1));
        assertEquals(Long.MAX_VALUE, ShaperMode.delay(Long.MAX_VALUE / 2).immediateNs(3));
        assertEquals("delay=7", ShaperMode.delay(7).toString());
    }

    @Test
    void codesAreUnambiguous()
    {
        assertTrue(Result.isReserved(0));
        assertFalse(Result.isEncodedRetryAfter(0));
        assertEquals(Result.ENCODED_RETRY_AFTER_BASE - 1, Result.encodeRetryAfter(1));
        assertEquals(1, Result.decodeRetryAfterNs(Result.ENCODED_RETRY_AFTER_BASE - 1));
        assertEquals(Long.MIN_VALUE, Result.encodeRetryAfter(Long.MAX_VALUE));
        assertEquals(Result.MAX_ENCODED_RETRY_AFTER_NS, Result.decodeRetryAfterNs(Long.MIN_VALUE));
        for (long code = Result.ENCODED_RETRY_AFTER_BASE; code < 0; code++)
        {
            assertFalse(Result.isReserved(code));
            assertFalse(Result.isEncodedRetryAfter(code), "reserved or Result codes carry no retry-after");
            assertEquals(0, Result.decodeRetryAfterNs(code));
        }
        assertEquals("ADMITTED", Result.name(0));
        assertEquals("ENCODED_RETRY_AFTER", Result.name(Result.ENCODED_RETRY_AFTER_BASE - 1));
        assertEquals("QUEUE_FULL", Result.name(Result.QUEUE_FULL));
    }

    @Test
    void impossibleCostsAreNever()
    {
        final Shaper shaper = new Shaper(LIMIT, ShaperMode.delay());
        final Reservation r = new Reservation();
        assertEquals(Result.NEVER, shaper.reserve(0, 0));
        assertEquals(Result.NEVER, shaper.reserve(-1, 0));
        assertEquals(Result.NEVER, shaper.reserve(5, 0, r));
        assertEquals(Result.NEVER, shaper.reserve(Long.MIN_VALUE, 0));
        assertFalse(r.admitted());
        assertEquals(CellArray.FRESH_TAT_NS, shaper.tatNs());
        assertEquals(0, shaper.reserve(4, 0));
    }

    @Test
    void timesAtTheEdgesOfTheLongRangeSaturate()
    {
        final Shaper shaper = new Shaper(LIMIT, ShaperMode.delay());
        assertEquals(Result.NEVER, shaper.reserve(1, Long.MAX_VALUE), "TAT would not fit");
        assertEquals(0, shaper.reserve(1, Long.MAX_VALUE - T_NS));
        assertEquals(Long.MAX_VALUE, shaper.tatNs());
        assertEquals(Result.NEVER, shaper.reserve(1, Long.MAX_VALUE - T_NS));
        final long code = shaper.reserve(1, Long.MIN_VALUE);
        assertTrue(Result.isEncodedRetryAfter(code), "clock centuries backwards is a rejection");
        assertEquals(Result.MAX_ENCODED_RETRY_AFTER_NS, Result.decodeRetryAfterNs(code),
            "true retry-after is about 2^64 ns: saturated by Gcra, clamped by the encoding, never wrapped");
        assertEquals(Long.MAX_VALUE / 2 - 3 * T_NS + 1, Result.decodeRetryAfterNs(shaper.reserve(1, Long.MAX_VALUE / 2)),
            "exact where representable");
        final Shaper tight = new Shaper(Limit.ofGcra(1, 0), ShaperMode.delay());
        assertEquals(0, tight.reserve(1, Long.MAX_VALUE - 1));
        assertEquals(Result.MAX_ENCODED_RETRY_AFTER_NS, Result.decodeRetryAfterNs(tight.reserve(1, Long.MIN_VALUE)),
            "retry-after beyond the encodable range is clamped, still a rejection");

        final Shaper fromMin = new Shaper(LIMIT, ShaperMode.delay());
        assertEquals(0, fromMin.reserve(1, Long.MIN_VALUE));
        assertEquals(T_NS, fromMin.reserve(1, Long.MIN_VALUE));
        assertEquals(0, fromMin.reserve(1, Long.MAX_VALUE - T_NS));
    }

    @Test
    void clockGoingBackwardsOnlyDelaysMore()
    {
        final Shaper shaper = new Shaper(LIMIT, ShaperMode.delay());
        assertEquals(0, shaper.reserve(1, 10_000));
        assertEquals(T_NS + 500, shaper.reserve(1, 9_500));
        assertEquals(3 * T_NS, shaper.reserve(1, 9_000));
        assertTrue(Result.isEncodedRetryAfter(shaper.reserve(1, 8_999)));
    }

    @Test
    void clockOverloadsReadTheClock()
    {
        final long[] nowNs = {5_000};
        final Shaper shaper = new Shaper(LIMIT, ShaperMode.delay(), CellArray.allocate(1), 0, () -> nowNs[0]);
        assertEquals(0, shaper.reserve());
        assertEquals(T_NS, shaper.reserve(2));
        nowNs[0] += 10 * T_NS;
        assertEquals(0, shaper.reserve());
    }

    /**
     * What a shaper or reserving limiter answers at its edges: permits of one nanosecond, string keys that wait,
     * a wait beyond the long range, every reserve form, a pay-later start, a cancel decided once, and
     * {@code acquireWithin} on a scripted clock (the time to act reached exactly, an interrupt at it, a clock that
     * goes back after a refusal or an immediate grant).
     */
    @Nested
    final class Specification
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
            final ReservingLimiter limiter = ReservingLimiter.payLaterAtTat(LIMIT, 10, 1_500, ZERO);
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
}
