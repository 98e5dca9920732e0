package dev.cellrate.reconfigure;

import com.google.common.util.concurrent.GuavaPeer;
import com.google.common.util.concurrent.RateLimiter;
import dev.cellrate.Result;
import dev.cellrate.translate.Guava;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The real Guava {@code RateLimiter.create(r)} with {@code setRate} calls mid-trace (raising, lowering, and
 * switching to {@code Double.POSITIVE_INFINITY} and back) against {@link ReconfigurablePayLaterRateLimiter},
 * decision for decision, on seeded millisecond-grid traces with pay-later costs up to 4. Exact everywhere
 * except after leaving the infinite rate while the debt from before it still runs (documented on
 * {@link ReconfigurablePayLaterRateLimiter#setRate}): from there on a trace is only checked to admit no more
 * than Guava in total.
 */
final class GuavaSetRateDifferentialTest
{
    static final long[] RATES = {1, 2, 4, 5, 8, 10, 16, 20, 25, 40, 50, 100, 125, 200, 250, 500, 1000};
    static final long BASE_NS = -7_000_000_000_000L;
    static final long SECOND_NS = 1_000_000_000L;

    @Test
    void decidesAsGuavaAcrossSetRate()
    {
        long decisions = 0;
        long admitted = 0;
        long changes = 0;
        long unlimitedSwitches = 0;
        String firstMismatch = null;
        long mismatches = 0;
        long cornerDecisions = 0;
        long cornerGuavaAdmitted = 0;
        long cornerOursAdmitted = 0;
        for (int seed = 1; seed <= 120; seed++)
        {
            final SplittableRandom random = new SplittableRandom(seed);
            long rate = RATES[random.nextInt(RATES.length)];
            final long createdMs = random.nextLong(0, 3000);
            final GuavaPeer.FakeStopwatch stopwatch = new GuavaPeer.FakeStopwatch(createdMs * 1000);
            final RateLimiter guava = GuavaPeer.bursty(rate, stopwatch);
            final ReconfigurablePayLaterRateLimiter ours =
                new ReconfigurablePayLaterRateLimiter(Guava.create(rate), BASE_NS + createdMs * 1_000_000);
            long nowMs = createdMs;
            boolean unlimited = false;
            int stricterFrom = Integer.MAX_VALUE;
            for (int i = 0; i < 1_000; i++)
            {
                final long meanGapMs = Math.max(1, 1000 / rate);
                nowMs += random.nextInt(8) == 0 ? 0 : random.nextLong(0, 2 * meanGapMs + 1);
                stopwatch.setMicros(nowMs * 1000);
                if (random.nextInt(60) == 0)
                {
                    changes++;
                    if (!unlimited && random.nextInt(5) == 0)
                    {
                        guava.setRate(Double.POSITIVE_INFINITY);
                        ours.setUnlimited();
                        unlimited = true;
                        unlimitedSwitches++;
                    }
                    else
                    {
                        rate = RATES[random.nextInt(RATES.length)];
                        final long nowNs = BASE_NS + nowMs * 1_000_000;
                        if (unlimited && ours.tatNs() - SECOND_NS > nowNs)
                        {
                            // Off unlimited while the old debt runs: the documented stricter corner.
                            stricterFrom = Math.min(stricterFrom, i);
                        }
                        guava.setRate(rate);
                        ours.setRate(Guava.create(rate), nowNs);
                        unlimited = false;
                    }
                }
                final int cost = random.nextInt(5) == 0 ? 1 + random.nextInt(4) : 1;
                final boolean expected = guava.tryAcquire(cost);
                final boolean actual = Result.isAdmitted(ours.tryAcquire(cost, BASE_NS + nowMs * 1_000_000));
                decisions++;
                admitted += expected ? 1 : 0;
                if (i >= stricterFrom)
                {
                    cornerDecisions++;
                    cornerGuavaAdmitted += expected ? 1 : 0;
                    cornerOursAdmitted += actual ? 1 : 0;
                }
                else if (expected != actual)
                {
                    mismatches++;
                    if (null == firstMismatch)
                    {
                        firstMismatch = "seed=" + seed + " i=" + i + " t=" + nowMs + "ms rate=" +
                            (unlimited ? "inf" : rate) + " cost=" + cost + " guava=" + expected + " cellrate=" + actual;
                    }
                }
            }
        }
        System.out.println("Guava setRate: decisions=" + decisions + " admitted=" + admitted + " changes=" + changes +
            " to-infinity=" + unlimitedSwitches + " mismatches=" + mismatches + "; after leaving infinity in debt: " +
            cornerDecisions + " decisions, Guava admitted " + cornerGuavaAdmitted + ", cellrate " + cornerOursAdmitted);
        assertTrue(cornerOursAdmitted <= cornerGuavaAdmitted, "the corner admitted more than Guava in total");
        assertTrue(changes > 1_000 && unlimitedSwitches > 100, changes + " changes, " + unlimitedSwitches);
        assertTrue(admitted > decisions / 5 && admitted < decisions * 4 / 5, "trace mix " + admitted);
        assertEquals(0, mismatches, "first mismatch: " + firstMismatch);
    }
}
