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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FixedWindowLimiterTest
{
    static final long SECOND_NS = 1_000_000_000L;

    /**
     * The simplest exact fixed window: a map from window index to count, on the monotonised window
     * {@code max(newest window seen, window of t)} (a request in a newer window is always admitted, so the
     * newest window seen is the newest window charged).
     */
    static final class Reference implements WindowDebitContractTest.Model
    {
        final long limit;
        final long windowNs;
        final Map<BigInteger, Long> counts = new HashMap<>();
        BigInteger newest;

        Reference(final long limit, final long windowNs)
        {
            this.limit = limit;
            this.windowNs = windowNs;
        }

        /** Starts with {@code initialPermits < limit} left in the window of {@code createdNs}. */
        Reference(final long limit, final long windowNs, final long createdNs, final long initialPermits)
        {
            this(limit, windowNs);
            newest = floorDiv(BigInteger.valueOf(createdNs), BigInteger.valueOf(windowNs));
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

        /** The window charged ({@code max(newest, own)}) takes the cost, its count clamped at the limit. */
        public long debit(final long permits, final long nowNs)
        {
            if (permits < 1)
            {
                return Result.NEVER;
            }
            BigInteger window = floorDiv(BigInteger.valueOf(nowNs), BigInteger.valueOf(windowNs));
            if (null != newest && newest.compareTo(window) > 0)
            {
                window = newest;
            }
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
            final BigInteger w = BigInteger.valueOf(windowNs);
            final BigInteger t = BigInteger.valueOf(nowNs);
            BigInteger window = floorDiv(t, w);
            if (null != newest && newest.compareTo(window) > 0)
            {
                window = newest;
            }
            final long count = counts.getOrDefault(window, 0L);
            if (count + permits <= limit)
            {
                if (charge)
                {
                    counts.put(window, count + permits);
                    newest = window;
                }
                return Result.ADMITTED;
            }
            final BigInteger nextStart = window.add(BigInteger.ONE).multiply(w);
            if (nextStart.compareTo(BigInteger.valueOf(Long.MAX_VALUE)) > 0)
            {
                return Result.NEVER;
            }
            return Trace.saturatedPositive(nextStart.subtract(t));
        }

        static BigInteger floorDiv(final BigInteger a, final BigInteger b)
        {
            final BigInteger[] qr = a.divideAndRemainder(b);
            return qr[1].signum() < 0 ? qr[0].subtract(BigInteger.ONE) : qr[0];
        }
    }

    @Test
    void matchesReferenceOnSeededRandomTraces()
    {
        final long[][] configs = {{10, 1_000}, {1, 16}, {3, 777}, {100, 50_000}, {7, 1L << 40}};
        final Differential differential = new Differential("FixedWindowLimiter vs reference");
        for (int c = 0; c < configs.length; c++)
        {
            final long limit = configs[c][0];
            final long windowNs = configs[c][1];
            final FixedWindowLimiter limiter = new FixedWindowLimiter(limit, windowNs);
            final Reference reference = new Reference(limit, windowNs);
            final long[] times = Trace.poisson(42 + c, -5 * windowNs, Math.max(1, windowNs / limit / 2), 3)
                .times(6_000);
            final SplittableRandom random = new SplittableRandom(7 + c);
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
    void seedBoundaryDoublingAdmitsTwoLimitsInLessThanOneWindow()
    {
        final FixedWindowLimiter limiter = new FixedWindowLimiter(10, SECOND_NS);
        final long[] admitted = new long[40];
        int n = 0;
        for (int i = 0; i < 20; i++)
        {
            final long t = (i < 10 ? 900_000_000L : 950_000_000L) + i * 5_000_000L; // [0.90, 0.95) and [1.00, 1.05) s
            if (Result.isAdmitted(limiter.tryAcquire(1, t)))
            {
                admitted[n++] = t;
            }
        }
        assertEquals(20, n);
        assertTrue(admitted[n - 1] - admitted[0] < SECOND_NS / 5);
        assertEquals(20, Trace.maxInAnyWindow(admitted, n, SECOND_NS));
    }

    @Test
    void neverMoreThanLimitPerWindowOnTheMonotonisedClock()
    {
        final long limit = 5;
        final long windowNs = 1_000;
        final FixedWindowLimiter limiter = new FixedWindowLimiter(limit, windowNs);
        final long[] times = Trace.poisson(99, 0, 50, 10).times(30_000);
        final Map<Long, Long> perWindow = new HashMap<>();
        long newest = Long.MIN_VALUE;
        for (final long t : times)
        {
            if (Result.isAdmitted(limiter.tryAcquire(1, t)))
            {
                newest = Math.max(newest, Math.floorDiv(t, windowNs));
                perWindow.merge(newest, 1L, Long::sum);
            }
        }
        for (final long count : perWindow.values())
        {
            assertTrue(count <= limit);
        }
    }

    @Test
    void oddTimesNeverThrowAndNeverOverAdmit()
    {
        final long[] oddTimes = {Long.MAX_VALUE, Long.MIN_VALUE, 0, -1, Long.MAX_VALUE - 1, Long.MIN_VALUE + 1,
            Long.MAX_VALUE, Long.MIN_VALUE};
        for (final long windowNs : new long[] {16, 1_000, SECOND_NS, Long.MAX_VALUE})
        {
            final FixedWindowLimiter limiter = new FixedWindowLimiter(3, windowNs);
            final Reference reference = new Reference(3, windowNs);
            int admittedAtMax = 0;
            for (int round = 0; round < 4; round++)
            {
                for (final long t : oddTimes)
                {
                    final long code = limiter.tryAcquire(1, t);
                    assertEquals(reference.offer(1, t), code, "t=" + t + " W=" + windowNs);
                    assertTrue(code >= Result.NEVER);
                }
            }
            for (int i = 0; i < 10; i++)
            {
                admittedAtMax += Result.isAdmitted(limiter.tryAcquire(1, Long.MAX_VALUE)) ? 1 : 0;
            }
            assertEquals(0, admittedAtMax, "the last window is full and never rolls");
            assertEquals(Result.NEVER, limiter.tryAcquire(1, Long.MAX_VALUE));
        }
    }

    @Test
    void backwardsInTimeIsChargedToTheNewestWindow()
    {
        final FixedWindowLimiter limiter = new FixedWindowLimiter(2, 1_000);
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 5_500));
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 1_000));
        assertEquals(6_000 - 10, limiter.tryAcquire(1, 10));
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 6_000));
    }

    @Test
    void costsOutsideOneToLimitAreNever()
    {
        final FixedWindowLimiter limiter = new FixedWindowLimiter(4, 1_000);
        assertEquals(Result.NEVER, limiter.tryAcquire(0, 10));
        assertEquals(Result.NEVER, limiter.tryAcquire(-3, 10));
        assertEquals(Result.NEVER, limiter.tryAcquire(5, 10));
        assertEquals(Result.ADMITTED, limiter.tryAcquire(4, 10));
        assertEquals(990, limiter.tryAcquire(1, 10));
    }

    @Test
    void decisionHolderIsFilled()
    {
        final FixedWindowLimiter limiter = new FixedWindowLimiter(3, 1_000);
        final Decision decision = new Decision();
        assertEquals(Result.ADMITTED, limiter.tryAcquire(2, 1_100, decision));
        assertEquals(1, decision.remaining());
        assertEquals(900, decision.resetAfterNs());
        assertEquals(3, decision.limit());
        assertEquals(0, decision.retryAfterNs());
        assertEquals(900, limiter.tryAcquire(2, 1_100, decision));
        assertEquals(900, decision.retryAfterNs());
        assertEquals(1, decision.remaining());
        assertEquals(Result.NEVER, limiter.tryAcquire(4, 1_100, decision));
        assertEquals(Long.MAX_VALUE, decision.retryAfterNs());
        limiter.tryAcquire(1, 2_000, decision);
        assertEquals(2, decision.remaining());
    }

    @Test
    void clockOverloadsUseTheClock()
    {
        final long[] now = {5_000};
        final FixedWindowLimiter limiter = new FixedWindowLimiter(2, 1_000, CellArray.allocate(2), 1, () -> now[0]);
        assertEquals(Result.ADMITTED, limiter.tryAcquire());
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1));
        assertEquals(1_000, limiter.tryAcquire());
        now[0] = 6_000;
        assertEquals(Result.ADMITTED, limiter.tryAcquire(2, new Decision()));
    }

    @Test
    void validationNamesFieldAndRange()
    {
        assertMessage("limit must be in [1, 1099511627775] but was 0", () -> new FixedWindowLimiter(0, 1_000));
        assertMessage("limit must be in [1, 1099511627775] but was 1099511627776",
            () -> new FixedWindowLimiter(1L << 40, Long.MAX_VALUE));
        assertMessage("windowNs must be in [16, 9223372036854775807] but was 15", () -> new FixedWindowLimiter(10, 15));
        assertMessage("windowNs must be in [2, 9223372036854775807] but was 0", () -> new FixedWindowLimiter(1, 0));
        assertMessage("cellIndex must be in [0, 0] but was 1",
            () -> new FixedWindowLimiter(1, 100, CellArray.allocate(1), 1, SystemNanoClock.INSTANCE));
        assertThrows(IllegalArgumentException.class,
            () -> new FixedWindowLimiter(1, 100, null, 0, SystemNanoClock.INSTANCE));
    }

    static void assertMessage(final String expected, final Runnable construction)
    {
        assertEquals(expected, assertThrows(IllegalArgumentException.class, construction::run).getMessage());
    }
}
