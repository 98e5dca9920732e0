package dev.cellrate.stat;

import dev.cellrate.Limit;
import dev.cellrate.PayLaterRateLimiter;
import dev.cellrate.RateLimiter;
import dev.cellrate.Result;
import dev.cellrate.SingleThreadedRateLimiter;
import dev.cellrate.composite.CompositeRateLimiter;
import dev.cellrate.translate.Guava;
import dev.cellrate.warmup.WarmingUpRateLimiter;
import dev.cellrate.window.FixedWindowLimiter;
import dev.cellrate.window.SlidingCounterLimiter;
import dev.cellrate.window.SlidingLogLimiter;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Dry-run on every policing front: two instances see the same seeded trace, one enforced, one through
 * {@link LimiterStats#dryRun(long)}. The dry-run one never rejects, decides exactly as the enforced one
 * (a rejection charges nothing, so their states stay equal), and its would-reject count equals the enforced
 * rejections.
 */
final class DryRunEveryFrontTest
{
    interface Front
    {
        long decide(long permits, long nowNs);
    }

    static Front front(final String name)
    {
        final Limit limit = Limit.perSecond(10, 5);
        switch (name)
        {
            case "RateLimiter":
                final RateLimiter atomic = new RateLimiter(limit);
                return atomic::tryAcquire;
            case "SingleThreadedRateLimiter":
                final SingleThreadedRateLimiter single = new SingleThreadedRateLimiter(limit);
                return single::tryAcquire;
            case "PayLaterRateLimiter":
                final PayLaterRateLimiter payLater = Guava.create(10).newRateLimiter(0, SystemNanoClock.INSTANCE);
                return payLater::tryAcquire;
            case "WarmingUpRateLimiter":
                final WarmingUpRateLimiter warm = WarmingUpRateLimiter.guava(10, 1, TimeUnit.SECONDS, 0,
                    SystemNanoClock.INSTANCE);
                return warm::tryAcquire;
            case "CompositeRateLimiter":
                final CompositeRateLimiter composite = CompositeRateLimiter.of(limit, Limit.of(30, 1, TimeUnit.MINUTES, 30));
                return composite::tryAcquire;
            case "FixedWindowLimiter":
                final FixedWindowLimiter fixed = new FixedWindowLimiter(5, 500_000_000L);
                return fixed::tryAcquire;
            case "SlidingCounterLimiter":
                final SlidingCounterLimiter counter = new SlidingCounterLimiter(5, 500_000_000L);
                return counter::tryAcquire;
            case "SlidingLogLimiter":
                final SlidingLogLimiter log = new SlidingLogLimiter(5, 500_000_000L);
                return log::tryAcquire;
            default:
                throw new IllegalArgumentException(name);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = { "RateLimiter", "SingleThreadedRateLimiter", "PayLaterRateLimiter",
        "WarmingUpRateLimiter", "CompositeRateLimiter", "FixedWindowLimiter", "SlidingCounterLimiter",
        "SlidingLogLimiter" })
    void dryRunNeverRejectsAndCountsWhatEnforcingRejects(final String name)
    {
        final Front enforced = front(name);
        final Front dry = front(name);
        final LimiterStats stats = StatFile.inMemory().limiter(name, 1, 0);
        final SplittableRandom random = new SplittableRandom(name.hashCode());
        long rejections = 0;
        long nowNs = 1_000_000_000L;
        for (int i = 0; i < 20_000; i++)
        {
            nowNs += random.nextLong(0, 150_000_000L);
            final long permits = random.nextInt(40) == 0 ? 1 + random.nextInt(8) : 1;
            final long enforcedCode = enforced.decide(permits, nowNs);
            final long dryCode = stats.dryRun(dry.decide(permits, nowNs));
            assertTrue(DryRun.isAdmitted(dryCode), name + " dry-run rejected: " + dryCode);
            final boolean enforcedAdmitted = Result.isAdmitted(enforcedCode);
            assertEquals(enforcedAdmitted, Result.ADMITTED == dryCode, name + " diverged at " + i);
            rejections += enforcedAdmitted ? 0 : 1;
        }
        assertTrue(rejections > 100, name + " rejected only " + rejections);
        assertEquals(rejections, stats.outcome(StatKind.WOULD_REJECT), name);
        assertEquals(rejections, stats.outcome(StatKind.REJECTED) + stats.outcome(StatKind.NEVER_FIT) +
            stats.outcome(StatKind.OTHER_REJECTED), name);
    }
}
