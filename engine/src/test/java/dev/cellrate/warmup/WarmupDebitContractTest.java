package dev.cellrate.warmup;

import com.google.common.util.concurrent.GuavaPeer;
import com.google.common.util.concurrent.RateLimiter;
import dev.cellrate.Result;
import dev.cellrate.ZeroAllocation;
import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * peek, debit and the initial fill of {@link WarmingUpRateLimiter}. A debit is Guava's {@code acquire(n)}
 * (a reservation charged whatever nextFree is, without the sleep), bounded at {@code now + W + S}: checked
 * against the real Guava jar on seeded traces mixing {@code tryAcquire(n)} and {@code acquire(n)}, with the
 * tolerance of {@link WarmupSetRateDifferentialTest} (Guava's microsecond truncation: a mismatch within 4 us of
 * the instant, either way, stops the trace; any other fails the test).
 */
final class WarmupDebitContractTest
{
    @Test
    void debitIsGuavasAcquireAndPeekIsTryAcquireWithoutTheCharge()
    {
        long decisions = 0;
        long debits = 0;
        long admitted = 0;
        long tracesWithAMismatch = 0;
        long guavaLateByAFewMicros = 0;
        long unexplained = 0;
        long boundHit = 0;
        String first = null;
        int seed = 0;
        for (final long rate : WarmupDifferentialTest.RATES)
        {
            for (final long warmupMs : WarmupDifferentialTest.WARMUPS_MS)
            {
                seed++;
                final SplittableRandom random = new SplittableRandom(100 + seed);
                final long createdMs = random.nextLong(0, 5000);
                final GuavaPeer.FakeStopwatch stopwatch = new GuavaPeer.FakeStopwatch(createdMs * 1000);
                final RateLimiter guava = GuavaPeer.warmingUp(rate, warmupMs, TimeUnit.MILLISECONDS, 3.0, stopwatch);
                final WarmingUpRateLimiter ours = WarmingUpRateLimiter.guava(
                    rate, warmupMs, TimeUnit.MILLISECONDS, createdMs * 1_000_000, SystemNanoClock.INSTANCE);
                final long boundNs = warmupMs * 1_000_000 + ours.stableIntervalNs();
                final long stableMs = Math.max(1, 1000 / rate);
                long nowMs = createdMs;
                for (int i = 0; i < 500; i++)
                {
                    final int kind = random.nextInt(100);
                    nowMs += kind < 3 ? random.nextLong(warmupMs / 2, 2 * warmupMs + 1) :
                        kind < 15 ? 0 : random.nextLong(0, 4 * stableMs + 1);
                    final int cost = random.nextInt(5) == 0 ? random.nextInt(1, 5) : 1;
                    stopwatch.setMicros(nowMs * 1000);
                    final long nowNs = nowMs * 1_000_000;
                    if (random.nextInt(6) == 0)
                    {
                        guava.acquire(cost);
                        final long code = ours.debit(cost, nowNs);
                        debits++;
                        assertEquals(Math.max(0, ours.nextFreeNs() - nowNs), code, "debit answers the wait to nextFree");
                        if (ours.nextFreeNs() - nowNs == boundNs)
                        {
                            boundHit++;
                            break; // the debt bound clamped the charge: Guava has no bound, the states part here
                        }
                        continue;
                    }
                    final long peeked = ours.peek(cost, nowNs);
                    final boolean expected = guava.tryAcquire(cost);
                    final long code = ours.tryAcquire(cost, nowNs);
                    assertEquals(peeked, code, "peek answered what tryAcquire then did");
                    if (expected != Result.isAdmitted(code))
                    {
                        tracesWithAMismatch++;
                        final boolean guavaEarly = expected && code > 0 && code <= 4_000;
                        final boolean guavaLate = !expected && Result.isAdmitted(code) &&
                            guava.tryAcquire(cost, 4, TimeUnit.MICROSECONDS);
                        final boolean explained = guavaEarly || guavaLate;
                        guavaLateByAFewMicros += guavaLate ? 1 : 0;
                        unexplained += explained ? 0 : 1;
                        if (null == first || !explained)
                        {
                            first = "rate=" + rate + " warmup=" + warmupMs + "ms i=" + i + " cost=" + cost +
                                " guava=" + expected + " cellrate=" + Result.name(code) + "(" + code + ")";
                        }
                        break;
                    }
                    decisions++;
                    admitted += expected ? 1 : 0;
                }
            }
        }
        System.out.println("Guava SmoothWarmingUp with acquire(n) as debit: identical decisions=" + decisions +
            " admitted=" + admitted + " debits=" + debits + " traces=" + seed + " tracesWithAMismatch=" +
            tracesWithAMismatch + " (of which cellrate admitted up to 4 us before Guava: " + guavaLateByAFewMicros +
            ") unexplained=" + unexplained + " boundHit=" + boundHit +
            (null == first ? "" : " first: " + first));
        assertTrue(decisions >= 20_000 && debits >= 4_000, decisions + " decisions, " + debits + " debits");
        assertTrue(admitted > decisions / 5 && admitted < decisions * 4 / 5, "trace mix " + admitted);
        assertEquals(0, unexplained, "first unexplained mismatch: " + first);
    }

    @Test
    void debitIsBoundedAndNeverLowersNextFree()
    {
        // 10/s (S = 100 ms), W = 1 s, warm (no store): the bound is now + W + S = now + 1.1 s
        final WarmingUpRateLimiter limiter = new WarmingUpRateLimiter(100_000_000L, 1_000_000_000L, 0,
            SystemNanoClock.INSTANCE, 0);
        assertEquals(300_000_000L, limiter.debit(3, 0), "three stable intervals, warm");
        assertEquals(300_000_000L, limiter.peek(1, 0));
        assertEquals(1_100_000_000L, limiter.debit(Long.MAX_VALUE, 0), "clamped at W + S");
        assertEquals(1_100_000_000L, limiter.nextFreeNs());
        assertEquals(1_100_000_000L + 5_000_000_000L, limiter.debit(1, -5_000_000_000L),
            "a clock far behind: never lowered");
        assertEquals(1_100_000_000L, limiter.nextFreeNs());
        assertEquals(Result.NEVER, limiter.debit(0, 0));
        assertEquals(Result.NEVER, limiter.debit(-1, 0));
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 1_100_000_000L));
        assertEquals(Long.MAX_VALUE, limiter.debit(1, Long.MIN_VALUE), "saturated retry-after, no throw");
        assertTrue(limiter.debit(1, Long.MAX_VALUE) >= 0);
        assertEquals(Long.MAX_VALUE, limiter.nextFreeNs(), "saturated at the end of time, never wrapped");
        assertEquals(Result.NEVER, limiter.tryAcquire(1, Long.MAX_VALUE), "no wait fits after the end of time");
        assertEquals(Result.NEVER, limiter.peek(1, Long.MAX_VALUE));
    }

    @Test
    void oddTimesNeverThrowAndNeverAdmitBeforeNextFree()
    {
        final long[] odd = {Long.MIN_VALUE, Long.MIN_VALUE + 1, -1, 0, 1, Long.MAX_VALUE - 1, Long.MAX_VALUE};
        final SplittableRandom random = new SplittableRandom(5);
        for (int trace = 0; trace < 200; trace++)
        {
            final long stableNs = random.nextBoolean() ? random.nextLong(1, 1_000) : 1L << random.nextInt(63);
            final long warmupNs = random.nextBoolean() ? 0 : random.nextLong(0, WarmingUpRateLimiter.MAX_WARMUP_NS + 1);
            final WarmingUpRateLimiter limiter = new WarmingUpRateLimiter(Math.min(stableNs, 1L << 62), warmupNs,
                odd[random.nextInt(odd.length)], SystemNanoClock.INSTANCE, random.nextLong(0, 5));
            for (int step = 0; step < 100; step++)
            {
                final long nowNs = random.nextInt(3) == 0 ? odd[random.nextInt(odd.length)] : random.nextLong();
                final long permits = random.nextInt(4) == 0 ? random.nextLong() : random.nextLong(1, 5);
                final long nextFreeBefore = limiter.nextFreeNs();
                final int op = random.nextInt(4);
                final long code = 0 == op ? limiter.debit(permits, nowNs) : 1 == op ? limiter.peek(permits, nowNs) :
                    limiter.tryAcquire(permits, nowNs);
                assertTrue(code >= Result.NEVER, "code " + code);
                if (0 != op && Result.isAdmitted(code))
                {
                    assertTrue(nextFreeBefore <= nowNs, "admitted before nextFree");
                }
                if (0 == op)
                {
                    assertTrue(limiter.nextFreeNs() >= nextFreeBefore, "a debit never lowers nextFree");
                }
                final long storedNs = limiter.storedNs();
                assertTrue(storedNs >= 0 && storedNs <= warmupNs, "store in [0, W]: " + storedNs);
            }
        }
    }

    @Test
    void initialFillIsTheStoreGuavaStartsWith()
    {
        // 10/s, W = 1 s: cold (default, Guava's start) spaces the first permits 280, 240, ... ms; warm (0 stored)
        // spaces them S = 100 ms; k stored permits: the store is k S (here 7 x 100 ms: 200 ms above the threshold)
        final CachedNanoClock clock = new CachedNanoClock();
        final WarmingUpRateLimiter cold = new WarmingUpRateLimiter(100_000_000L, 1_000_000_000L, 0, clock);
        final WarmingUpRateLimiter warm = new WarmingUpRateLimiter(100_000_000L, 1_000_000_000L, 0, clock, 0);
        final WarmingUpRateLimiter seven = new WarmingUpRateLimiter(100_000_000L, 1_000_000_000L, 0, clock, 7);
        final WarmingUpRateLimiter many = new WarmingUpRateLimiter(100_000_000L, 1_000_000_000L, 0, clock, 1_000);
        assertEquals(1_000_000_000L, cold.storedNs());
        assertEquals(0, warm.storedNs());
        assertEquals(700_000_000L, seven.storedNs());
        assertEquals(1_000_000_000L, many.storedNs(), "at most W");
        assertEquals(Result.ADMITTED, cold.tryAcquire(1, 0));
        assertEquals(Result.ADMITTED, warm.tryAcquire(1, 0));
        assertEquals(Result.ADMITTED, seven.tryAcquire(1, 0));
        assertEquals(280_000_000L, cold.nextFreeNs());
        assertEquals(100_000_000L, warm.nextFreeNs());
        // a = 200 ms above W/2, x = 100 ms taken: extra = 2 x (2a - x) / W = 2 * 100 * 300 / 1000 = 60 ms
        assertEquals(160_000_000L, seven.nextFreeNs());
        final GuavaPeer.FakeStopwatch stopwatch = new GuavaPeer.FakeStopwatch(0);
        final RateLimiter guava = GuavaPeer.warmingUp(10, 1, TimeUnit.SECONDS, 3.0, stopwatch);
        assertTrue(guava.tryAcquire());
        stopwatch.setMicros(279_999);
        assertTrue(!guava.tryAcquire(), "the default is Guava's cold start");
        final WarmingUpRateLimiter noWarmup = new WarmingUpRateLimiter(100, 0, 0, clock, 0);
        assertEquals(0, noWarmup.storedNs());
        assertEquals(Result.ADMITTED, noWarmup.tryAcquire(1, 0));
        assertEquals(100, noWarmup.tryAcquire(1, 0));
    }

    @Test
    void peekDebitAndSetRateAllocateNothing()
    {
        final CachedNanoClock clock = new CachedNanoClock();
        final WarmingUpRateLimiter limiter = new WarmingUpRateLimiter(1_000, 1_000_000, 0, clock);
        ZeroAllocation.assertAllocatesNothing("warm-up peek/debit/setRate", () ->
        {
            long sink = 0;
            long nowNs = 0;
            for (int i = 0; i < 300_000; i++)
            {
                nowNs += 500 * (i & 7);
                clock.update(nowNs);
                final long permits = 1 + (i & 3);
                switch (i & 7)
                {
                    case 0:
                        sink += limiter.debit(permits, nowNs);
                        break;
                    case 1:
                        sink += limiter.peek(permits);
                        break;
                    case 2:
                        limiter.setRate(1_000_000 + (i & 1) * 1_000_000, nowNs);
                        break;
                    case 3:
                        if ((i & 8) == 0)
                        {
                            limiter.setUnlimited();
                        }
                        else
                        {
                            limiter.setStableIntervalNs(1_000, nowNs);
                        }
                        break;
                    default:
                        sink += limiter.tryAcquire(permits, nowNs);
                }
            }
            return sink;
        });
    }
}
