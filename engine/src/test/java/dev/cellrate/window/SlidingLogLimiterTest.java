package dev.cellrate.window;

import dev.cellrate.testing.Differential;
import dev.cellrate.testing.Trace;
import dev.cellrate.Decision;
import dev.cellrate.Result;
import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static dev.cellrate.window.FixedWindowLimiterTest.assertMessage;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SlidingLogLimiterTest
{
    static final long SECOND_NS = 1_000_000_000L;

    /**
     * The textbook log: an ArrayDeque of admitted times (BigInteger); entries {@code <= t - W} do not count,
     * and are dropped when the request is admitted, on the monotonised time {@code max(t, newest admitted)} (admissions, not every
     * time seen: a rejection writes nothing, so the limiter cannot remember the times of rejected requests).
     */
    static final class Reference implements WindowDebitContractTest.Model
    {
        final long limit;
        final BigInteger w;
        final ArrayDeque<BigInteger> log = new ArrayDeque<>();
        BigInteger newest;

        Reference(final long limit, final long windowNs)
        {
            this.limit = limit;
            this.w = BigInteger.valueOf(windowNs);
        }

        /** Starts with {@code initialPermits < limit} available: {@code limit - k} admissions at creation. */
        Reference(final long limit, final long windowNs, final long createdNs, final long initialPermits)
        {
            this(limit, windowNs);
            newest = BigInteger.valueOf(createdNs);
            for (long i = 0; i < limit - initialPermits; i++)
            {
                log.addLast(newest);
            }
        }

        public long offer(final long permits, final long nowNs)
        {
            return decide(permits, nowNs, true);
        }

        public long peek(final long permits, final long nowNs)
        {
            return decide(permits, nowNs, false);
        }

        /** {@code min(n, limit)} copies of the monotonised time join the log; the oldest beyond the limit go. */
        public long debit(final long permits, final long nowNs)
        {
            if (permits < 1)
            {
                return Result.NEVER;
            }
            final BigInteger t = BigInteger.valueOf(nowNs);
            final BigInteger decision = null == newest || newest.compareTo(t) < 0 ? t : newest;
            for (long i = 0; i < Math.min(permits, limit); i++)
            {
                log.addLast(decision);
            }
            while (log.size() > limit)
            {
                log.pollFirst();
            }
            newest = decision;
            return peek(1, nowNs);
        }

        long decide(final long permits, final long nowNs, final boolean charge)
        {
            if (permits < 1 || permits > limit)
            {
                return Result.NEVER;
            }
            final BigInteger t = BigInteger.valueOf(nowNs);
            final BigInteger decision = null == newest || newest.compareTo(t) < 0 ? t : newest;
            final List<BigInteger> entries = new ArrayList<>(log);
            int expired = 0;
            while (expired < entries.size() && entries.get(expired).compareTo(decision.subtract(w)) <= 0)
            {
                expired++;
            }
            final int live = entries.size() - expired;
            if (live + permits <= limit)
            {
                if (!charge)
                {
                    return Result.ADMITTED;
                }
                for (int i = 0; i < expired; i++)
                {
                    log.pollFirst(); // expired for good: every later decision is at or after this one
                }
                for (long i = 0; i < permits; i++)
                {
                    log.addLast(decision);
                }
                newest = decision;
                return Result.ADMITTED;
            }
            final BigInteger retryAt = entries.get((int)(expired + live + permits - limit - 1)).add(w);
            if (retryAt.compareTo(BigInteger.valueOf(Long.MAX_VALUE)) > 0)
            {
                return Result.NEVER;
            }
            return Trace.saturatedPositive(retryAt.subtract(t));
        }
    }

    @Test
    void matchesReferenceOnSeededRandomTraces()
    {
        final long[][] configs = {{10, 1_000}, {1, 1}, {3, 777}, {64, 50_000}, {5, Long.MAX_VALUE}};
        final Differential differential = new Differential("SlidingLogLimiter vs reference");
        for (int c = 0; c < configs.length; c++)
        {
            final long limit = configs[c][0];
            final long windowNs = configs[c][1];
            final SlidingLogLimiter limiter = new SlidingLogLimiter(limit, windowNs);
            final Reference reference = new Reference(limit, windowNs);
            final long meanGapNs = Math.max(1, Math.min(windowNs / limit / 2, 1L << 50));
            final long[] times =
                Trace.poisson(21 + c, -3 * Math.min(windowNs, 1L << 55), meanGapNs, 3).times(6_000);
            final SplittableRandom random = new SplittableRandom(3 + c);
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
    void neverMoreThanLimitInAnySlidingWindowOnRandomTraces()
    {
        final long limit = 10;
        for (int seed = 0; seed < 4; seed++)
        {
            final SlidingLogLimiter limiter = new SlidingLogLimiter(limit, SECOND_NS);
            final long[] times = Trace.poisson(seed, 0, SECOND_NS / 25, 0).times(20_000);
            final long[] admitted = new long[times.length];
            int n = 0;
            for (final long t : times)
            {
                if (Result.isAdmitted(limiter.tryAcquire(1, t)))
                {
                    admitted[n++] = t;
                }
            }
            assertTrue(n > 1_000);
            assertEquals(limit, Trace.maxInAnyWindow(admitted, n, SECOND_NS), "seed " + seed);
        }
    }

    @Test
    void seedTracesAreRefusedWhereTheWindowsAdmitTwice()
    {
        final SlidingLogLimiter boundary = new SlidingLogLimiter(10, SECOND_NS);
        int admitted = 0;
        for (int i = 0; i < 20; i++)
        {
            admitted += Result.isAdmitted(
                boundary.tryAcquire(1, (i < 10 ? 900_000_000L : 950_000_000L) + i * 5_000_000L)) ? 1 : 0;
        }
        assertEquals(10, admitted, "fixed window admits 20 here");
        final SlidingLogLimiter adversary = new SlidingLogLimiter(10, SECOND_NS);
        admitted = 0;
        for (int i = 0; i < 10; i++)
        {
            admitted += Result.isAdmitted(adversary.tryAcquire(1, 1_999_000_000L)) ? 1 : 0;
        }
        for (int i = 0; i < 20; i++)
        {
            admitted += Result.isAdmitted(adversary.tryAcquire(1, 2_900_000_000L)) ? 1 : 0;
        }
        assertEquals(10, admitted, "sliding counter admits 19 here");
        assertEquals(99_000_000L, adversary.tryAcquire(1, 2_900_000_000L));
        assertEquals(Result.ADMITTED, adversary.tryAcquire(1, 2_999_000_000L));
    }

    @Test
    void oddTimesNeverThrowAndMatchTheReference()
    {
        final long[] oddTimes = {Long.MAX_VALUE, Long.MIN_VALUE, 0, -1, Long.MAX_VALUE - 1, Long.MIN_VALUE + 1,
            Long.MIN_VALUE, Long.MAX_VALUE};
        for (final long windowNs : new long[] {1, 1_000, Long.MAX_VALUE})
        {
            final SlidingLogLimiter limiter = new SlidingLogLimiter(3, windowNs);
            final Reference reference = new Reference(3, windowNs);
            for (int round = 0; round < 4; round++)
            {
                for (final long t : oddTimes)
                {
                    assertEquals(reference.offer(1, t), limiter.tryAcquire(1, t), "t=" + t + " W=" + windowNs);
                }
            }
        }
        final SlidingLogLimiter fresh = new SlidingLogLimiter(2, 10);
        assertEquals(Result.ADMITTED, fresh.tryAcquire(1, Long.MIN_VALUE));
        assertEquals(Result.ADMITTED, fresh.tryAcquire(1, Long.MIN_VALUE + 5));
        assertEquals(10, fresh.tryAcquire(1, Long.MIN_VALUE));
        assertEquals(Result.ADMITTED, fresh.tryAcquire(1, Long.MIN_VALUE + 10));
    }

    @Test
    void decisionHolderIsFilled()
    {
        final SlidingLogLimiter limiter = new SlidingLogLimiter(4, 1_000);
        final Decision decision = new Decision();
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 100, decision));
        assertEquals(3, decision.remaining());
        assertEquals(1_000, decision.resetAfterNs());
        assertEquals(Result.ADMITTED, limiter.tryAcquire(3, 600, decision));
        assertEquals(0, decision.remaining());
        assertEquals(1_000, decision.resetAfterNs());
        assertEquals(500, limiter.tryAcquire(1, 600, decision));
        assertEquals(500, decision.retryAfterNs());
        limiter.tryAcquire(2, 1_100, decision);
        assertEquals(600 + 1_000 - 1_100, limiter.tryAcquire(2, 1_100));
        assertEquals(Result.NEVER, limiter.tryAcquire(5, 1_100, decision));
        assertEquals(Long.MAX_VALUE, decision.retryAfterNs());
        assertEquals(4, decision.limit());
    }

    @Test
    void clockOverloadsUseTheClock()
    {
        final long[] now = {5_000};
        final SlidingLogLimiter limiter = new SlidingLogLimiter(2, 1_000, () -> now[0]);
        assertEquals(Result.ADMITTED, limiter.tryAcquire());
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1));
        assertEquals(1_000, limiter.tryAcquire());
        now[0] = 6_000;
        assertEquals(Result.ADMITTED, limiter.tryAcquire(2, new Decision()));
    }

    @Test
    void validationNamesFieldAndRange()
    {
        assertMessage("limit must be in [1, 1048576] but was 0", () -> new SlidingLogLimiter(0, 1_000));
        assertMessage("limit must be in [1, 1048576] but was 1048577", () -> new SlidingLogLimiter((1 << 20) + 1, 1));
        assertMessage("windowNs must be in [1, 9223372036854775807] but was 0", () -> new SlidingLogLimiter(1, 0));
        assertThrows(IllegalArgumentException.class, () -> new SlidingLogLimiter(1, 1, null));
    }
}
