package dev.cellrate.warmup;

import com.google.common.util.concurrent.GuavaPeer;
import com.google.common.util.concurrent.RateLimiter;
import dev.cellrate.Result;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The real Guava 33.3.1 {@code RateLimiter.create(r, warmup, unit)} with {@code setRate} calls mid-trace
 * (raising, lowering, to {@code Double.POSITIVE_INFINITY} and back) against
 * {@link WarmingUpRateLimiter#setRate(long, long)} / {@link WarmingUpRateLimiter#setUnlimited()}, decision for
 * decision on seeded millisecond-grid traces, costs up to 4, with cool-down idles.
 * <p>
 * Tolerance, the convention of {@link WarmupDifferentialTest} extended by its mirror image: Guava truncates each
 * wait to whole microseconds and carries floating-point error (here also through
 * {@code storedPermits * maxPermits / oldMaxPermits}), so it can admit a few microseconds before the exact
 * schedule; and an early admission leaves it those microseconds more of idle store, which above the threshold
 * makes a later permit a little <em>slower</em> (colder) than the exact schedule. cellrate follows the exact
 * schedule, waits rounded up to the ns. A mismatch is explained only if Guava admitted and cellrate answered a
 * retry-after of at most 4 us, or cellrate admitted and Guava admits the same cost within 4 us
 * ({@code tryAcquire(cost, 4, MICROSECONDS)}); the trace stops there (the states part). Any other mismatch fails
 * the test, and the cellrate-earlier kind is counted and bounded (at most 1 trace in 50).
 */
final class WarmupSetRateDifferentialTest
{
    @Test
    void decidesAsGuavaSmoothWarmingUpAcrossSetRate()
    {
        long decisions = 0;
        long admitted = 0;
        long changes = 0;
        long toInfinity = 0;
        long raises = 0;
        long lowers = 0;
        long tracesWithAMismatch = 0;
        long guavaLateByAFewMicros = 0;
        long unexplained = 0;
        String first = null;
        int traces = 0;
        final long[] rates = WarmupDifferentialTest.RATES;
        for (int seed = 1; seed <= 240; seed++)
        {
            traces++;
            final SplittableRandom random = new SplittableRandom(seed);
            long rate = rates[random.nextInt(rates.length)];
            final long warmupMs = WarmupDifferentialTest.WARMUPS_MS[random.nextInt(WarmupDifferentialTest.WARMUPS_MS.length)];
            final long createdMs = random.nextLong(0, 5000);
            final GuavaPeer.FakeStopwatch stopwatch = new GuavaPeer.FakeStopwatch(createdMs * 1000);
            final RateLimiter guava = GuavaPeer.warmingUp(rate, warmupMs, TimeUnit.MILLISECONDS, 3.0, stopwatch);
            final WarmingUpRateLimiter ours = WarmingUpRateLimiter.guava(
                rate, warmupMs, TimeUnit.MILLISECONDS, createdMs * 1_000_000, SystemNanoClock.INSTANCE);
            boolean unlimited = false;
            long nowMs = createdMs;
            for (int i = 0; i < 1_000; i++)
            {
                final long stableMs = unlimited ? 1 : Math.max(1, 1000 / rate);
                final int kind = random.nextInt(100);
                nowMs += kind < 2 ? random.nextLong(warmupMs / 2, 2 * warmupMs + 1) :
                    kind < 15 ? 0 : random.nextLong(0, 4 * stableMs + 1);
                stopwatch.setMicros(nowMs * 1000);
                final long nowNs = nowMs * 1_000_000;
                if (random.nextInt(40) == 0)
                {
                    changes++;
                    if (!unlimited && random.nextInt(5) == 0)
                    {
                        guava.setRate(Double.POSITIVE_INFINITY);
                        ours.setUnlimited();
                        unlimited = true;
                        toInfinity++;
                    }
                    else
                    {
                        final long next = rates[random.nextInt(rates.length)];
                        raises += next > rate ? 1 : 0;
                        lowers += next < rate ? 1 : 0;
                        rate = next;
                        guava.setRate(rate);
                        ours.setRate(rate, nowNs);
                        unlimited = false;
                    }
                }
                final int cost = random.nextInt(5) == 0 ? random.nextInt(1, 5) : 1;
                final boolean expected = guava.tryAcquire(cost);
                final long code = ours.tryAcquire(cost, nowNs);
                if (expected != Result.isAdmitted(code))
                {
                    tracesWithAMismatch++;
                    // Guava early (its truncation), or Guava late because an earlier truncation left it a few
                    // idle us more of store above the threshold (colder): both within 4 us of the instant
                    final boolean guavaEarly = expected && code > 0 && code <= 4_000;
                    final boolean guavaLate = !expected && Result.isAdmitted(code) &&
                        guava.tryAcquire(cost, 4, TimeUnit.MICROSECONDS);
                    final boolean explained = guavaEarly || guavaLate;
                    guavaLateByAFewMicros += guavaLate ? 1 : 0;
                    unexplained += explained ? 0 : 1;
                    if (null == first || !explained)
                    {
                        first = "seed=" + seed + " rate=" + (unlimited ? "inf" : rate) + " warmup=" + warmupMs +
                            "ms i=" + i + " cost=" + cost + " guava=" + expected + " cellrate=" + Result.name(code) +
                            "(" + code + ")";
                    }
                    break;
                }
                decisions++;
                admitted += expected ? 1 : 0;
            }
        }
        System.out.println("Guava SmoothWarmingUp setRate: identical decisions=" + decisions + " admitted=" + admitted +
            " changes=" + changes + " (raises " + raises + ", lowers " + lowers + ", to-infinity " + toInfinity +
            ") traces=" + traces + " tracesWithAMismatch=" + tracesWithAMismatch + " (of which cellrate admitted up to 4 us before Guava: " + guavaLateByAFewMicros +
            ") unexplained=" + unexplained +
            (null == first ? "" : " first: " + first));
        assertTrue(decisions >= 150_000, "decisions " + decisions);
        assertTrue(raises > 500 && lowers > 500 && toInfinity > 200, raises + " " + lowers + " " + toInfinity);
        assertTrue(admitted > decisions / 5 && admitted < decisions * 4 / 5, "trace mix " + admitted);
        assertEquals(0, unexplained, "first unexplained mismatch: " + first);
        assertTrue(guavaLateByAFewMicros * 50 <= traces, "cellrate earlier than Guava in " + guavaLateByAFewMicros);
    }

    @Test
    void theStoreIsKeptInTimeAcrossARateChange()
    {
        // 10/s, W = 1 s, cold: one admission leaves 900 ms stored and nextFree at 280 ms. At 5/s (S = 200 ms) the
        // same store (in time) charges the next permit S + 2x(2a - x)/W with a = 400, x = 200 ms: 200 + 240 ms.
        final GuavaPeer.FakeStopwatch stopwatch = new GuavaPeer.FakeStopwatch(0);
        final RateLimiter guava = GuavaPeer.warmingUp(10, 1, TimeUnit.SECONDS, 3.0, stopwatch);
        final WarmingUpRateLimiter ours = WarmingUpRateLimiter.guava(10, 1, TimeUnit.SECONDS, 0, SystemNanoClock.INSTANCE);
        assertTrue(guava.tryAcquire());
        assertEquals(Result.ADMITTED, ours.tryAcquire(1, 0));
        stopwatch.setMicros(280_000);
        guava.setRate(5);
        ours.setRate(5, 280_000_000L);
        assertEquals(900_000_000L, ours.storedNs());
        assertTrue(guava.tryAcquire());
        assertEquals(Result.ADMITTED, ours.tryAcquire(1, 280_000_000L));
        assertEquals(280_000_000L + 440_000_000L, ours.nextFreeNs());
        stopwatch.setMicros(719_999);
        assertFalse(guava.tryAcquire());
        assertEquals(1_000, ours.tryAcquire(1, 719_999_000L));
        stopwatch.setMicros(720_000);
        assertTrue(guava.tryAcquire());
        assertEquals(Result.ADMITTED, ours.tryAcquire(1, 720_000_000L));
    }

    @Test
    void unlimitedAdmitsOnceTheChargedWaitHasPassedAndLeavingItIsWarm()
    {
        final GuavaPeer.FakeStopwatch stopwatch = new GuavaPeer.FakeStopwatch(0);
        final RateLimiter guava = GuavaPeer.warmingUp(10, 1, TimeUnit.SECONDS, 3.0, stopwatch);
        final WarmingUpRateLimiter ours = WarmingUpRateLimiter.guava(10, 1, TimeUnit.SECONDS, 0, SystemNanoClock.INSTANCE);
        assertTrue(guava.tryAcquire(4));
        assertEquals(Result.ADMITTED, ours.tryAcquire(4, 0));
        final long nextFreeNs = ours.nextFreeNs();
        guava.setRate(Double.POSITIVE_INFINITY);
        ours.setUnlimited();
        assertTrue(ours.isUnlimited());
        stopwatch.setMicros(nextFreeNs / 1000 - 1);
        assertFalse(guava.tryAcquire(), "the wait charged before the switch still runs");
        assertEquals(1_000, ours.tryAcquire(1, nextFreeNs - 1_000));
        stopwatch.setMicros(nextFreeNs / 1000);
        for (int i = 0; i < 1_000; i++)
        {
            assertTrue(guava.tryAcquire(1_000));
            assertEquals(Result.ADMITTED, ours.tryAcquire(1_000, nextFreeNs));
        }
        assertEquals(nextFreeNs, ours.nextFreeNs(), "nothing charged while unlimited");
        stopwatch.setMicros(10_000_000);
        guava.setRate(10);
        ours.setRate(10, 10_000_000_000L);
        assertEquals(0, ours.storedNs(), "leaving infinity empties the store: warm, the stable interval at once");
        assertEquals(10_000_000_000L, ours.nextFreeNs());
        assertTrue(guava.tryAcquire());
        assertEquals(Result.ADMITTED, ours.tryAcquire(1, 10_000_000_000L));
        stopwatch.setMicros(10_099_999);
        assertFalse(guava.tryAcquire());
        assertEquals(1_000, ours.tryAcquire(1, 10_099_999_000L));
        stopwatch.setMicros(10_100_000);
        assertTrue(guava.tryAcquire());
        assertEquals(Result.ADMITTED, ours.tryAcquire(1, 10_100_000_000L));
    }

    @Test
    void guavaWithoutAWarmupPeriodStopsLimitingAfterItsFirstIdleButCellrateDoesNot()
    {
        // Guava with warmup 0: maxPermits = 0, so coolDownIntervalMicros = 0 / 0 = NaN; the first resync after an
        // idle makes storedPermits NaN and every later wait (long) NaN = 0: it never limits again (with or
        // without setRate). cellrate's W = 0 is the plain stable interval. The differential tests use W > 0.
        final GuavaPeer.FakeStopwatch stopwatch = new GuavaPeer.FakeStopwatch(0);
        final RateLimiter guava = GuavaPeer.warmingUp(10, 0, TimeUnit.SECONDS, 3.0, stopwatch);
        final WarmingUpRateLimiter ours = WarmingUpRateLimiter.guava(10, 0, TimeUnit.SECONDS, 0, SystemNanoClock.INSTANCE);
        assertTrue(guava.tryAcquire());
        assertEquals(Result.ADMITTED, ours.tryAcquire(1, 0));
        assertFalse(guava.tryAcquire(), "limits before any idle");
        assertEquals(100_000_000L, ours.tryAcquire(1, 0));
        stopwatch.setMicros(1_000_000);
        int guavaAdmitted = 0;
        int oursAdmitted = 0;
        for (int i = 0; i < 100; i++)
        {
            guavaAdmitted += guava.tryAcquire() ? 1 : 0;
            oursAdmitted += Result.isAdmitted(ours.tryAcquire(1, 1_000_000_000L)) ? 1 : 0;
        }
        assertEquals(100, guavaAdmitted, "Guava's NaN store admits everything");
        assertEquals(1, oursAdmitted);
    }

    @Test
    void setRateValidatesAndUnlimitedTakesAnyCost()
    {
        final WarmingUpRateLimiter limiter = WarmingUpRateLimiter.guava(10, 1, TimeUnit.SECONDS, 0, SystemNanoClock.INSTANCE);
        assertEquals("permitsPerSecond must be in [1, 1000000000] but was 0", org.junit.jupiter.api.Assertions
            .assertThrows(IllegalArgumentException.class, () -> limiter.setRate(0, 0)).getMessage());
        assertTrue(org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
            () -> limiter.setStableIntervalNs(0, 0)).getMessage().startsWith("stableIntervalNs must be in [1, "));
        assertEquals(100_000_000L, limiter.stableIntervalNs(), "unchanged by a refused change");
        limiter.setUnlimited();
        assertEquals(0, limiter.stableIntervalNs());
        assertEquals(Integer.MAX_VALUE, limiter.maxPermits());
        assertEquals(Result.ADMITTED, limiter.tryAcquire(Integer.MAX_VALUE, 0));
        assertEquals(Result.NEVER, limiter.tryAcquire(0, 0));
        assertEquals(Result.NEVER, limiter.tryAcquire(Integer.MAX_VALUE + 1L, 0));
        assertEquals(Result.ADMITTED, limiter.debit(Long.MAX_VALUE, 0), "unlimited: a debit charges nothing");
        limiter.setRate(3, 0);
        assertEquals(333_333_334L, limiter.stableIntervalNs());
        assertFalse(limiter.isUnlimited());
    }
}
