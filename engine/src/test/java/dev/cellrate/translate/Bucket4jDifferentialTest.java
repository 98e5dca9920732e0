package dev.cellrate.translate;

import dev.cellrate.testing.Differential;
import dev.cellrate.testing.Trace;
import dev.cellrate.Limit;
import dev.cellrate.RateLimiter;
import dev.cellrate.Result;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.TimeMeter;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The real Bucket4j 8.14 local bucket ({@code capacity(b).refillGreedy(tokens, period)}, custom time meter)
 * against {@link Bucket4j#greedy}, decision for decision, on nanosecond-resolution random traces (Bucket4j's
 * greedy refill is exact integer arithmetic, so no grid is needed) with costs up to b + 1.
 */
class Bucket4jDifferentialTest
{
    static final class FakeMeter implements TimeMeter
    {
        long nowNs;

        @Override
        public long currentTimeNanos()
        {
            return nowNs;
        }

        @Override
        public boolean isWallClockBased()
        {
            return false;
        }
    }

    @Test
    void decidesAsBucket4j()
    {
        final long[][] configs = {
            // capacity, refill tokens, refill period ns
            {1, 1, 1_000_000},
            {10, 10, 1_000_000_000},
            {5, 1, 200_000_000},
            {100, 50, 1_000_000_000},
            {7, 3, 999_999},
            {20, 4, 60_000_000_000L},
            {3, 1000, 1_000_000_000},
            {1000, 1000, 1_000_000},
        };
        final Differential differential = new Differential("Bucket4j greedy");
        int seed = 100;
        for (final long[] config : configs)
        {
            final long capacity = config[0];
            final long tokens = config[1];
            final long periodNs = config[2];
            final long emissionIntervalNs = periodNs / tokens;
            for (int round = 0; round < 2; round++)
            {
                seed++;
                final Trace trace = Trace.stepsFromRandomStart(seed, 1L << 40, 2 * emissionIntervalNs,
                    capacity * emissionIntervalNs * 2, capacity + 1);
                final FakeMeter meter = new FakeMeter();
                meter.nowNs = trace.nowNs();
                final Bucket bucket = Bucket.builder()
                    .addLimit(limit -> limit.capacity(capacity).refillGreedy(tokens, Duration.ofNanos(periodNs)))
                    .withCustomTimePrecision(meter)
                    .build();
                final Limit limit = Bucket4j.greedy(capacity, tokens, periodNs, TimeUnit.NANOSECONDS);
                final RateLimiter ours = new RateLimiter(limit);
                final long offsetNs = Long.MIN_VALUE / 2;
                for (int i = 0; i < 3200; i++)
                {
                    meter.nowNs = trace.nextTimeNs();
                    final long cost = trace.nextPermits();
                    final boolean expected = bucket.tryConsume(cost);
                    final boolean actual = Result.isAdmitted(ours.tryAcquire(cost, offsetNs + meter.nowNs));
                    final int index = i;
                    final long nowNs = meter.nowNs;
                    differential.check(expected, actual, () -> "config=" + capacity + "/" + tokens + "/" + periodNs +
                        " i=" + index + " t=" + nowNs + " cost=" + cost + " bucket4j=" + expected + " cellrate=" + actual);
                }
            }
        }
        differential.print("").assertMix(50_000).assertAgreed();
    }
}
