package dev.cellrate.warmup;

import com.google.common.util.concurrent.GuavaPeer;
import com.google.common.util.concurrent.RateLimiter;
import dev.cellrate.Result;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The real Guava 33.3.1 {@code RateLimiter.create(r, warmup, unit)} (SmoothWarmingUp, cold factor 3, fake
 * stopwatch) against {@link WarmingUpRateLimiter}, decision for decision on millisecond-grid traces with idle
 * periods long enough to cool down, and costs up to 4.
 */
class WarmupDifferentialTest
{
    static final long[] RATES = {1, 2, 4, 5, 8, 10, 20, 25, 40, 50, 100, 125, 200, 250, 500, 1000};
    static final long[] WARMUPS_MS = {500, 1000, 2000, 3000, 7000};

    @Test
    void decidesAsGuavaSmoothWarmingUp()
    {
        long decisions = 0;
        long admitted = 0;
        long mismatchedTraces = 0;
        long unexplained = 0;
        String first = null;
        int seed = 0;
        for (final long rate : RATES)
        {
            for (final long warmupMs : WARMUPS_MS)
            {
                seed++;
                final SplittableRandom random = new SplittableRandom(seed);
                final long createdMs = random.nextLong(0, 5000);
                final GuavaPeer.FakeStopwatch stopwatch = new GuavaPeer.FakeStopwatch(createdMs * 1000);
                final RateLimiter guava = GuavaPeer.warmingUp(rate, warmupMs, TimeUnit.MILLISECONDS, 3.0, stopwatch);
                final WarmingUpRateLimiter ours = WarmingUpRateLimiter.guava(
                    rate, warmupMs, TimeUnit.MILLISECONDS, createdMs * 1_000_000, SystemNanoClock.INSTANCE);
                final long stableMs = Math.max(1, 1000 / rate);
                long nowMs = createdMs;
                for (int i = 0; i < 700; i++)
                {
                    final int kind = random.nextInt(100);
                    if (kind < 3)
                    {
                        nowMs += random.nextLong(warmupMs / 2, 2 * warmupMs + 1); // cool down
                    }
                    else if (kind < 15)
                    {
                        nowMs += 0;
                    }
                    else
                    {
                        nowMs += random.nextLong(0, 4 * stableMs + 1);
                    }
                    final int cost = random.nextInt(5) == 0 ? random.nextInt(1, 5) : 1;
                    stopwatch.setMicros(nowMs * 1000);
                    final long nowNs = nowMs * 1_000_000;
                    final long nextFreeBeforeNs = ours.nextFreeNs();
                    final boolean expected = guava.tryAcquire(cost);
                    final long code = ours.tryAcquire(cost, nowNs);
                    final boolean actual = Result.isAdmitted(code);
                    if (expected != actual)
                    {
                        mismatchedTraces++;
                        // Guava truncates each wait to whole microseconds: it can only run early, by a few us
                        final boolean explained = expected && code > 0 && code <= 4_000;
                        unexplained += explained ? 0 : 1;
                        if (null == first || !explained)
                        {
                            first = "rate=" + rate + " warmup=" + warmupMs + "ms i=" + i + " t=" + nowMs + "ms cost=" +
                                cost + " guava=" + expected + " cellrate=" + Result.name(code) + "(" + code +
                                ") nextFree-t=" + (nextFreeBeforeNs - nowNs) + "ns";
                        }
                        break; // the two states diverge from here
                    }
                    decisions++;
                    admitted += expected ? 1 : 0;
                }
            }
        }
        System.out.println("Guava SmoothWarmingUp: identical decisions=" + decisions + " admitted=" + admitted +
            " traces=" + seed + " tracesWithAMismatch=" + mismatchedTraces + " unexplained=" + unexplained +
            (null == first ? "" : " first: " + first));
        assertTrue(decisions >= 50_000, "decisions " + decisions);
        assertTrue(admitted > decisions / 5 && admitted < decisions * 4 / 5, "trace mix " + admitted);
        assertEquals(0, unexplained, "first unexplained mismatch: " + first);
    }

    @Test
    void coldStartSpacesTheFirstPermitsUpToThreeIntervals()
    {
        // 10/s, warm-up 1 s: S = 100 ms, store W = 1 s, threshold 500 ms. From cold, the first permit waits
        // S + 2x(2a - x)/W = 100 + 2*100*900/1000 = 280 ms, then 240, 200, 160, 120 as the store drains to
        // the threshold, then the stable 100 ms.
        final WarmingUpRateLimiter ours = WarmingUpRateLimiter.guava(10, 1, TimeUnit.SECONDS, 0, SystemNanoClock.INSTANCE);
        final GuavaPeer.FakeStopwatch stopwatch = new GuavaPeer.FakeStopwatch(0);
        final RateLimiter guava = GuavaPeer.warmingUp(10, 1, TimeUnit.SECONDS, 3.0, stopwatch);
        assertEquals(Result.ADMITTED, ours.tryAcquire(1, 0));
        assertTrue(guava.tryAcquire());
        assertEquals(280_000_000L, ours.nextFreeNs());
        assertEquals(900_000_000L, ours.storedNs());
        stopwatch.setMicros(279_999);
        assertTrue(!guava.tryAcquire());
        assertEquals(1_000, ours.tryAcquire(1, 279_999_000));
        long expectedNextNs = 280_000_000L;
        final long[] intervalsMs = {240, 200, 160, 120, 100, 100};
        for (final long intervalMs : intervalsMs)
        {
            stopwatch.setMicros(expectedNextNs / 1000);
            assertTrue(guava.tryAcquire());
            assertEquals(Result.ADMITTED, ours.tryAcquire(1, expectedNextNs));
            expectedNextNs += intervalMs * 1_000_000;
            assertEquals(expectedNextNs, ours.nextFreeNs());
        }
    }

    @Test
    void extraIsTheExactTrapezoidRoundedUp()
    {
        final long warmupNs = 1_000_000_007L;
        final SplittableRandom random = new SplittableRandom(3);
        for (int i = 0; i < 20_000; i++)
        {
            final long w = random.nextInt(3) == 0 ? warmupNs : random.nextLong(1, 1L << 61);
            final long stored = random.nextLong(0, w + 1);
            final long charge = random.nextLong(0, Math.min(1L << 62, 2 * w + 2));
            final java.math.BigInteger a2 = java.math.BigInteger.valueOf(2 * stored - w).max(java.math.BigInteger.ZERO);
            final java.math.BigInteger x2 = a2.min(java.math.BigInteger.valueOf(charge).shiftLeft(1));
            final java.math.BigInteger[] qr = x2.multiply(a2.shiftLeft(1).subtract(x2))
                .divideAndRemainder(java.math.BigInteger.valueOf(w).shiftLeft(1));
            final long expected = qr[0].longValueExact() + (qr[1].signum() != 0 ? 1 : 0);
            assertEquals(expected, WarmupMath.extraNs(stored, charge, w), "w=" + w + " stored=" + stored + " charge=" + charge);
        }
    }

    @Test
    void validation()
    {
        assertEquals("permitsPerSecond must be in [1, 1000000000] but was 0", org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class, () -> WarmingUpRateLimiter.guava(0, 1, TimeUnit.SECONDS)).getMessage());
        assertEquals("warmupPeriod must be in [0, 9223372036854775807] but was -1", org.junit.jupiter.api.Assertions
            .assertThrows(IllegalArgumentException.class, () -> WarmingUpRateLimiter.guava(1, -1, TimeUnit.SECONDS))
            .getMessage());
        assertTrue(org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
            () -> WarmingUpRateLimiter.guava(1, 1L << 40, TimeUnit.SECONDS)).getMessage()
            .startsWith("warmupPeriod (in ns) must be in [0, 2305843009213693952]"));
        assertTrue(org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
            () -> new WarmingUpRateLimiter(0, 1, 0, SystemNanoClock.INSTANCE)).getMessage()
            .startsWith("stableIntervalNs must be in [1, "));
        final WarmingUpRateLimiter limiter = new WarmingUpRateLimiter(1L << 40, 1L << 61, 0, SystemNanoClock.INSTANCE);
        assertEquals(Result.NEVER, limiter.tryAcquire(0, 0));
        assertEquals(Result.NEVER, limiter.tryAcquire(limiter.maxPermits() + 1, 0));
        assertEquals(Result.ADMITTED, limiter.tryAcquire(limiter.maxPermits(), 0));
        assertTrue(limiter.tryAcquire(1, Long.MIN_VALUE) == Long.MAX_VALUE);
        final WarmingUpRateLimiter edge = new WarmingUpRateLimiter(1000, 0, Long.MIN_VALUE, SystemNanoClock.INSTANCE);
        assertEquals(Result.NEVER, edge.tryAcquire(1, Long.MAX_VALUE - 10));
    }
}
