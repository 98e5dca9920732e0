package dev.cellrate.stat;

import dev.cellrate.observe.ObservedLimiter;
import dev.cellrate.Limit;
import dev.cellrate.Limiter;
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
 * Dry-run on every policing front: two instances see the same seeded trace, one enforced, one wrapped in
 * {@link ObservedLimiter#dryRun}. The dry-run one never rejects, decides exactly as the enforced one
 * (a rejection charges nothing, so their states stay equal), and its would-reject count equals the enforced
 * rejections.
 */
final class DryRunEveryFrontTest
{
    static Limiter front(final String name)
    {
        final Limit limit = Limit.perSecond(10, 5);
        switch (name)
        {
            case "RateLimiter":
                return new RateLimiter(limit);
            case "SingleThreadedRateLimiter":
                return new SingleThreadedRateLimiter(limit);
            case "PayLaterRateLimiter":
                return Guava.create(10).newRateLimiter(0, SystemNanoClock.INSTANCE);
            case "WarmingUpRateLimiter":
                return WarmingUpRateLimiter.guava(10, 1, TimeUnit.SECONDS, 0, SystemNanoClock.INSTANCE);
            case "CompositeRateLimiter":
                return CompositeRateLimiter.of(limit, Limit.of(30, 1, TimeUnit.MINUTES, 30));
            case "FixedWindowLimiter":
                return new FixedWindowLimiter(5, 500_000_000L);
            case "SlidingCounterLimiter":
                return new SlidingCounterLimiter(5, 500_000_000L);
            case "SlidingLogLimiter":
                return new SlidingLogLimiter(5, 500_000_000L);
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
        final Limiter enforced = front(name);
        final LimiterStats stats = StatFile.inMemory().limiter(name, 1, 0);
        final Limiter dry = ObservedLimiter.dryRun(front(name), stats);
        final SplittableRandom random = new SplittableRandom(name.hashCode());
        long rejections = 0;
        long nowNs = 1_000_000_000L;
        for (int i = 0; i < 20_000; i++)
        {
            nowNs += random.nextLong(0, 150_000_000L);
            final long permits = random.nextInt(40) == 0 ? 1 + random.nextInt(8) : 1;
            final long enforcedCode = enforced.tryAcquire(permits, nowNs);
            final long dryCode = dry.tryAcquire(permits, nowNs);
            assertTrue(Result.isAdmitted(dryCode), name + " dry-run rejected: " + dryCode);
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
