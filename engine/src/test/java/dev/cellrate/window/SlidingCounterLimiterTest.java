package dev.cellrate.window;

import dev.cellrate.testing.Differential;
import dev.cellrate.testing.Trace;
import dev.cellrate.layout.CellArray;
import dev.cellrate.Decision;
import dev.cellrate.Result;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

import static dev.cellrate.window.FixedWindowLimiterTest.assertMessage;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SlidingCounterLimiterTest
{
    static final long SECOND_NS = 1_000_000_000L;

    /**
     * The estimate in its textbook form, in BigInteger: counts per window in a map, the request evaluated in
     * the newest window charged so far if its own is older (at offset 0 there), admitted iff
     * {@code prev (W - e) + (curr + n) W <= L W}. The retry-after is found by binary search over later times
     * on the same predicate (the estimate never grows while nothing is admitted).
     */
    static final class Reference implements WindowDebitContractTest.Model
    {
        final long limit;
        final BigInteger w;
        final Map<BigInteger, Long> counts = new HashMap<>();
        BigInteger newest;

        Reference(final long limit, final long windowNs)
        {
            this.limit = limit;
            this.w = BigInteger.valueOf(windowNs);
        }

        /** Starts with {@code initialPermits < limit} left: {@code limit - k} counted in the creation window. */
        Reference(final long limit, final long windowNs, final long createdNs, final long initialPermits)
        {
            this(limit, windowNs);
            newest = FixedWindowLimiterTest.Reference.floorDiv(BigInteger.valueOf(createdNs), w);
            counts.put(newest, limit - initialPermits);
        }

        public long offer(final long permits, final long nowNs)
        {
            return decide(permits, nowNs, true);
        }

        public long peek(final long permits, final long nowNs)
        {
            return decide(permits, nowNs, false);
        }

        /** The window charged takes the cost, its count clamped at the limit. */
        public long debit(final long permits, final long nowNs)
        {
            if (permits < 1)
            {
                return Result.NEVER;
            }
            final BigInteger window = charged(BigInteger.valueOf(nowNs));
            counts.put(window, Math.min(limit, counts.getOrDefault(window, 0L) + Math.min(permits, limit)));
            newest = window;
            return peek(1, nowNs);
        }

        long decide(final long permits, final long nowNs, final boolean charge)
        {
            if (permits < 1 || permits > limit)
            {
                return Result.NEVER;
            }
            final BigInteger t = BigInteger.valueOf(nowNs);
            if (conforms(permits, t))
            {
                if (charge)
                {
                    final BigInteger window = charged(t);
                    counts.merge(window, permits, Long::sum);
                    newest = window;
                }
                return Result.ADMITTED;
            }
            BigInteger low = t;
            BigInteger high = charged(t).add(BigInteger.valueOf(3)).multiply(w);
            while (high.subtract(low).compareTo(BigInteger.ONE) > 0)
            {
                final BigInteger middle = low.add(high).shiftRight(1);
                if (conforms(permits, middle))
                {
                    high = middle;
                }
                else
                {
                    low = middle;
                }
            }
            if (high.compareTo(BigInteger.valueOf(Long.MAX_VALUE)) > 0)
            {
                return Result.NEVER;
            }
            return Trace.saturatedPositive(high.subtract(t));
        }

        BigInteger charged(final BigInteger t)
        {
            final BigInteger window = FixedWindowLimiterTest.Reference.floorDiv(t, w);
            return null != newest && newest.compareTo(window) > 0 ? newest : window;
        }

        boolean conforms(final long permits, final BigInteger t)
        {
            final BigInteger own = FixedWindowLimiterTest.Reference.floorDiv(t, w);
            final BigInteger window = charged(t);
            final BigInteger offset = window.equals(own) ? t.subtract(own.multiply(w)) : BigInteger.ZERO;
            final long prev = counts.getOrDefault(window.subtract(BigInteger.ONE), 0L);
            final long curr = counts.getOrDefault(window, 0L);
            final BigInteger estimate = BigInteger.valueOf(prev).multiply(w.subtract(offset))
                .add(BigInteger.valueOf(curr + permits).multiply(w));
            return estimate.compareTo(BigInteger.valueOf(limit).multiply(w)) <= 0;
        }
    }

    @Test
    void matchesReferenceOnSeededRandomTraces()
    {
        final long[][] configs = {{10, 1_000}, {1, 4}, {3, 1_009}, {100, 50_000}, {1000, 1L << 20}};
        final Differential differential = new Differential("SlidingCounterLimiter vs reference");
        for (int c = 0; c < configs.length; c++)
        {
            final long limit = configs[c][0];
            final long windowNs = configs[c][1];
            final SlidingCounterLimiter limiter = new SlidingCounterLimiter(limit, windowNs);
            final Reference reference = new Reference(limit, windowNs);
            final long[] times = Trace.poisson(11 + c, -3 * windowNs, Math.max(1, windowNs / limit / 2), 3)
                .times(6_000);
            final SplittableRandom random = new SplittableRandom(5 + c);
            for (final long t : times)
            {
                final long permits = random.nextInt(10) == 0 ? random.nextLong(limit + 2) : 1;
                final long expected = reference.offer(permits, t);
                final long actual = limiter.tryAcquire(permits, t);
                differential.check(expected, Result.isAdmitted(expected), actual,
                    () -> "L=" + limit + " W=" + windowNs + " t=" + t + " n=" + permits + " expected " + expected +
                        " actual " + actual);
            }
        }
        assertTrue(differential.decisions() >= 20_000, "decisions " + differential.decisions());
        differential.assertAgreed();
    }

    @Test
    void seedAdversarialTraceAdmitsNineteenInUnderOneSecond()
    {
        final SlidingCounterLimiter limiter = new SlidingCounterLimiter(10, SECOND_NS);
        final long[] admitted = new long[40];
        int n = 0;
        for (int i = 0; i < 10; i++)
        {
            if (Result.isAdmitted(limiter.tryAcquire(1, 1_999_000_000L)))
            {
                admitted[n++] = 1_999_000_000L;
            }
        }
        assertEquals(10, n);
        int burst = 0;
        for (int i = 0; i < 20; i++)
        {
            if (Result.isAdmitted(limiter.tryAcquire(1, 2_900_000_000L)))
            {
                admitted[n++] = 2_900_000_000L;
                burst++;
            }
        }
        assertEquals(9, burst);
        assertEquals(19, Trace.maxInAnyWindow(admitted, n, SECOND_NS));
        assertEquals(19, Trace.maxInAnyWindow(admitted, n, 901_000_001L)); // [1.999 s, 2.9 s]
    }

    @Test
    void oddTimesNeverThrowAndMatchTheReference()
    {
        final long[] oddTimes = {Long.MAX_VALUE, Long.MIN_VALUE, 0, -1, Long.MAX_VALUE - 1, Long.MIN_VALUE + 1,
            Long.MIN_VALUE, Long.MAX_VALUE};
        for (final long windowNs : new long[] {16, 1_000, SECOND_NS, Long.MAX_VALUE / 3})
        {
            final SlidingCounterLimiter limiter = new SlidingCounterLimiter(3, windowNs);
            final Reference reference = new Reference(3, windowNs);
            for (int round = 0; round < 4; round++)
            {
                for (final long t : oddTimes)
                {
                    assertEquals(reference.offer(1, t), limiter.tryAcquire(1, t), "t=" + t + " W=" + windowNs);
                }
            }
            assertEquals(Result.NEVER, limiter.tryAcquire(1, Long.MAX_VALUE));
        }
        final SlidingCounterLimiter fresh = new SlidingCounterLimiter(2, 16);
        assertEquals(Result.ADMITTED, fresh.tryAcquire(1, Long.MIN_VALUE));
        assertEquals(Result.ADMITTED, fresh.tryAcquire(1, Long.MIN_VALUE));
        assertEquals(16 + 8, fresh.tryAcquire(1, Long.MIN_VALUE));
    }

    @Test
    void backwardsTimeIsEvaluatedAtTheStartOfTheNewestWindow()
    {
        final SlidingCounterLimiter limiter = new SlidingCounterLimiter(4, 1_000);
        assertEquals(Result.ADMITTED, limiter.tryAcquire(3, 1_999));
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 2_500)); // 3 * 0.5 + 0 + 1 <= 4
        assertEquals(2_334 - 100, limiter.tryAcquire(1, 100));        // at 2.000: 3 + 1 + 1 > 4; 3 * 0.666 + 2 <= 4 at 2.334
        assertEquals(Result.NEVER, limiter.tryAcquire(5, 2_600));
    }

    @Test
    void decisionHolderIsFilled()
    {
        final SlidingCounterLimiter limiter = new SlidingCounterLimiter(10, 1_000);
        final Decision decision = new Decision();
        assertEquals(Result.ADMITTED, limiter.tryAcquire(10, 1_999, decision));
        assertEquals(0, decision.remaining());
        assertEquals(1 + 1_000, decision.resetAfterNs());
        assertEquals(Result.ADMITTED, limiter.tryAcquire(9, 2_900, decision));
        assertEquals(0, decision.remaining());
        assertEquals(1_100, decision.resetAfterNs());
        assertEquals(10, decision.limit());
        final long code = limiter.tryAcquire(1, 2_900, decision);
        assertTrue(code > 0);
        assertEquals(code, decision.retryAfterNs());
        assertEquals(Result.NEVER, limiter.tryAcquire(0, 2_900, decision));
        assertEquals(Long.MAX_VALUE, decision.retryAfterNs());
    }

    @Test
    void clockOverloadsUseTheClock()
    {
        final long[] now = {5_000};
        final SlidingCounterLimiter limiter =
            new SlidingCounterLimiter(2, 1_000, CellArray.allocate(2), 1, () -> now[0]);
        assertEquals(Result.ADMITTED, limiter.tryAcquire());
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1));
        assertEquals(1_500, limiter.tryAcquire());
        now[0] = 7_000;
        assertEquals(Result.ADMITTED, limiter.tryAcquire(2, new Decision()));
    }

    @Test
    void validationNamesFieldAndRange()
    {
        assertMessage("limit must be in [1, 1048575] but was 0", () -> new SlidingCounterLimiter(0, 1_000));
        assertMessage("limit must be in [1, 1048575] but was 1048576", () -> new SlidingCounterLimiter(1 << 20, 1L << 50));
        assertMessage("windowNs must be in [256, 922337203685477580] but was 255", () -> new SlidingCounterLimiter(10, 255));
        assertMessage("windowNs must be in [256, 922337203685477580] but was 922337203685477581",
            () -> new SlidingCounterLimiter(10, 922337203685477581L));
        assertMessage("cellIndex must be in [0, 0] but was -1",
            () -> new SlidingCounterLimiter(1, 100, CellArray.allocate(1), -1, SystemNanoClock.INSTANCE));
        assertThrows(IllegalArgumentException.class,
            () -> new SlidingCounterLimiter(1, 100, CellArray.allocate(1), 0, null));
    }
}
