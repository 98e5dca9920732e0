package dev.cellrate.translate;

import dev.cellrate.TestFronts;
import dev.cellrate.testing.Differential;
import dev.cellrate.testing.Trace;
import com.google.common.util.concurrent.GuavaPeer;
import com.google.common.util.concurrent.RateLimiter;
import dev.cellrate.PayLaterRateLimiter;
import dev.cellrate.Result;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The real Guava 33.3.1 {@code RateLimiter.create(r)} (driven by a fake stopwatch) against the translated
 * {@link GuavaBursty} limiter, decision for decision on millisecond-grid traces, single permits and
 * pay-later costs up to 4, created at a random instant (so both start empty).
 */
class GuavaDifferentialTest
{
    /** Rates whose interval is a whole number of microseconds and ns (r divides 10^6). */
    static final long[] RATES = {1, 2, 4, 5, 8, 10, 16, 20, 25, 40, 50, 100, 125, 200, 250, 500, 1000};
    static final long BASE_NS = -7_000_000_000_000L;

    @Test
    void decidesAsGuavaOnMillisecondTraces()
    {
        final Differential differential = new Differential("Guava SmoothBursty");
        int seed = 0;
        for (final long rate : RATES)
        {
            for (final int maxCost : new int[] {1, 4})
            {
                for (final long gapFactorPercent : new long[] {50, 100, 200})
                {
                    seed++;
                    final long meanGapMs = Math.max(1, 1000 * gapFactorPercent / 100 / rate);
                    final Trace trace = Trace.millisecondGrid(seed, meanGapMs, maxCost);
                    final long createdMs = (seed * 7919L) % 3000;
                    final GuavaPeer.FakeStopwatch stopwatch = new GuavaPeer.FakeStopwatch(createdMs * 1000);
                    final RateLimiter guava = GuavaPeer.bursty(rate, stopwatch);
                    final PayLaterRateLimiter ours =
                        Guava.create(rate).newRateLimiter(BASE_NS + createdMs * 1_000_000, SystemNanoClock.INSTANCE);
                    for (int i = 0; i < 1100; i++)
                    {
                        final long nowMs = createdMs + trace.nextTimeNs() / Trace.MILLISECOND_NS;
                        final int cost = (int)trace.nextPermits();
                        stopwatch.setMicros(nowMs * 1000);
                        final boolean expected = guava.tryAcquire(cost);
                        final boolean actual = Result.isAdmitted(ours.tryAcquire(cost, BASE_NS + nowMs * 1_000_000));
                        final int traceSeed = seed;
                        final int index = i;
                        differential.check(expected, actual, () -> "rate=" + rate + " seed=" + traceSeed + " i=" +
                            index + " t=" + nowMs + "ms cost=" + cost + " guava=" + expected + " cellrate=" + actual);
                    }
                }
            }
        }
        differential.print("").assertMix(50_000).assertAgreed();
    }

    @Test
    void createTenLetsElevenThroughAfterOneIdleSecond()
    {
        final GuavaPeer.FakeStopwatch stopwatch = new GuavaPeer.FakeStopwatch(0);
        final RateLimiter guava = GuavaPeer.bursty(10, stopwatch);
        final PayLaterRateLimiter ours = Guava.create(10).newRateLimiter(0, SystemNanoClock.INSTANCE);
        // empty at creation: one permit at t=0 (stored 0, nextFree = now), then nothing until 100 ms
        assertTrue(guava.tryAcquire());
        assertEquals(Result.ADMITTED, ours.tryAcquire(1, 0));
        assertTrue(!guava.tryAcquire());
        assertEquals(100_000_000L, ours.tryAcquire(1, 0));
        stopwatch.setMicros(2_000_000);
        int guavaCount = 0;
        int ourCount = 0;
        for (int i = 0; i < 30; i++)
        {
            guavaCount += guava.tryAcquire() ? 1 : 0;
            ourCount += Result.isAdmitted(ours.tryAcquire(1, 2_000_000_000L)) ? 1 : 0;
        }
        assertEquals(11, guavaCount);
        assertEquals(11, ourCount);
    }

    @Test
    void payLaterAdmitsALargeCostOnceThenMakesTheNextCallerWait()
    {
        final GuavaPeer.FakeStopwatch stopwatch = new GuavaPeer.FakeStopwatch(5_000_000);
        final RateLimiter guava = GuavaPeer.bursty(10, stopwatch);
        final PayLaterRateLimiter ours = Guava.create(10).newRateLimiter(5_000_000_000L, SystemNanoClock.INSTANCE);
        stopwatch.setMicros(9_000_000);
        assertTrue(guava.tryAcquire(100));
        assertEquals(Result.ADMITTED, ours.tryAcquire(100, 9_000_000_000L));
        stopwatch.setMicros(17_999_000);
        assertTrue(!guava.tryAcquire());
        assertTrue(ours.tryAcquire(1, 17_999_000_000L) > 0);
        stopwatch.setMicros(18_000_000);
        assertTrue(guava.tryAcquire());
        assertEquals(Result.ADMITTED, ours.tryAcquire(1, 18_000_000_000L));
    }

    /**
     * Off the millisecond grid (arrivals at random microseconds) Guava's {@code (long)(fresh * interval)}
     * truncates a fractional stored permit's wait to whole microseconds, so its schedule runs up to 1 us early
     * per such admission. The lost microseconds are carried into its stored permits, so the drift accumulates
     * until the store is full again. Every first divergence of a trace must be of that class: Guava admits,
     * and cellrate's exact schedule says "retry in at most 1 us per admission since the cell was last full".
     */
    @Test
    void offTheMillisecondGridEveryDifferenceIsGuavasTruncation()
    {
        long decisions = 0;
        long tracesWithDifference = 0;
        long unexplained = 0;
        long largestDriftNs = 0;
        String first = null;
        for (int seed = 1; seed <= 60; seed++)
        {
            final long rate = RATES[seed % RATES.length];
            final java.util.SplittableRandom random = new java.util.SplittableRandom(seed * 31L);
            final long stableUs = 1_000_000 / rate;
            final GuavaPeer.FakeStopwatch stopwatch = new GuavaPeer.FakeStopwatch(0);
            final RateLimiter guava = GuavaPeer.bursty(rate, stopwatch);
            final PayLaterRateLimiter ours = Guava.create(rate).newRateLimiter(0, SystemNanoClock.INSTANCE);
            long nowUs = 0;
            long admissionsSinceFull = 0;
            for (int i = 0; i < 1000; i++)
            {
                nowUs += random.nextInt(10) == 0 ? 0 : random.nextLong(0, 2 * stableUs + 1);
                final int cost = random.nextInt(4) == 0 ? random.nextInt(1, 4) : 1;
                stopwatch.setMicros(nowUs);
                if (TestFronts.tatNs(ours) <= nowUs * 1000)
                {
                    admissionsSinceFull = 0;
                }
                final boolean expected = guava.tryAcquire(cost);
                final long code = ours.tryAcquire(cost, nowUs * 1000);
                admissionsSinceFull += Result.isAdmitted(code) ? 1 : 0;
                if (expected != Result.isAdmitted(code))
                {
                    tracesWithDifference++;
                    final boolean explained = expected && code > 0 && code <= 1000 * (admissionsSinceFull + 1);
                    largestDriftNs = Math.max(largestDriftNs, code);
                    unexplained += explained ? 0 : 1;
                    if (null == first || !explained)
                    {
                        first = (explained ? "" : "UNEXPLAINED ") + "rate=" + rate + " seed=" + seed + " i=" + i + " t=" + nowUs + "us cost=" + cost +
                            " guava=" + expected + " cellrate=" + Result.name(code) + "(" + code + " ns) admissionsSinceFull=" +
                            admissionsSinceFull;
                    }
                    break;
                }
                decisions++;
            }
        }
        System.out.println("Guava SmoothBursty off the ms grid: identical decisions before divergence=" + decisions +
            " tracesWithDifference=" + tracesWithDifference + "/60 unexplained=" + unexplained +
            " largestDriftAtDivergence=" + largestDriftNs + "ns" +
            (null == first ? "" : " first: " + first));
        assertEquals(0, unexplained, first);
    }
}
