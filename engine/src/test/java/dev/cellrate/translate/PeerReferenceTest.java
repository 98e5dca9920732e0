package dev.cellrate.translate;

import dev.cellrate.testing.Differential;
import dev.cellrate.testing.Trace;
import dev.cellrate.Limit;
import dev.cellrate.RateLimiter;
import dev.cellrate.Result;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * redis-cell, Envoy and x/time/rate translations against exact re-implementations of each peer's decision
 * (integer or rational arithmetic, no floating point), decision for decision on ns-resolution traces with
 * weighted costs, plus Envoy's own floating-point state to count where it departs from its exact semantics.
 */
class PeerReferenceTest
{
    interface Peer
    {
        boolean offer(long nowNs, long cost);
    }

    /** redis-cell v0.5 RateLimiter::rate_limit: compares the TAT after charging against now + DVT. */
    static final class RedisCellPeer implements Peer
    {
        final long emissionIntervalNs;
        final long dvtNs;
        boolean present;
        long tatNs;

        RedisCellPeer(final long maxBurst, final long count, final long periodSeconds)
        {
            emissionIntervalNs = periodSeconds * 1_000_000_000L / count;
            dvtNs = emissionIntervalNs * (maxBurst + 1);
        }

        public boolean offer(final long nowNs, final long quantity)
        {
            final long tat = present ? tatNs : nowNs;
            final long increment = emissionIntervalNs * quantity;
            final long newTat = nowNs > tat ? nowNs + increment : tat + increment;
            final long allowAt = newTat - dvtNs;
            if (nowNs - allowAt < 0)
            {
                return false;
            }
            present = true;
            tatNs = newTat;
            return true;
        }
    }

    /**
     * Envoy AtomicTokenBucketImpl in exact rationals: time is kept scaled by tokens_per_fill so that
     * {@code tokens = min(M, (now - time) * k / I)} is an integer fraction over I.
     */
    static final class EnvoyExactPeer implements Peer
    {
        final long maxTokens;
        final long tokensPerFill;
        final long fillIntervalNs;
        long timeScaled; // time * tokensPerFill

        EnvoyExactPeer(final long maxTokens, final long tokensPerFill, final long fillIntervalNs, final long startNs)
        {
            this.maxTokens = maxTokens;
            this.tokensPerFill = tokensPerFill;
            this.fillIntervalNs = fillIntervalNs;
            timeScaled = startNs * tokensPerFill - maxTokens * fillIntervalNs; // init_fill: full
        }

        public boolean offer(final long nowNs, final long tokens)
        {
            final long nowScaled = nowNs * tokensPerFill;
            final long totalOverI = Math.min(maxTokens * fillIntervalNs, nowScaled - timeScaled);
            if (totalOverI < tokens * fillIntervalNs)
            {
                return false;
            }
            timeScaled = nowScaled - (totalOverI - tokens * fillIntervalNs);
            return true;
        }
    }

    /** Envoy AtomicTokenBucketImpl as shipped: one floating-point time stamp in seconds. */
    static final class EnvoyDoublePeer implements Peer
    {
        final double maxTokens;
        final double fillRate;
        double timeInSeconds;

        EnvoyDoublePeer(final long maxTokens, final long tokensPerFill, final long fillIntervalNs, final long startNs)
        {
            this.maxTokens = maxTokens;
            this.fillRate = tokensPerFill / (fillIntervalNs / 1e9);
            timeInSeconds = startNs / 1e9 - this.maxTokens / fillRate;
        }

        public boolean offer(final long nowNs, final long tokens)
        {
            final double timeNow = nowNs / 1e9;
            final double total = Math.min(maxTokens, (timeNow - timeInSeconds) * fillRate);
            if (total < tokens)
            {
                return false;
            }
            timeInSeconds = timeNow - (total - tokens) / fillRate;
            return true;
        }
    }

    /** x/time/rate Limiter.AllowN, tokens kept exactly in units of 10^-9 token. */
    static final class XTimeRatePeer implements Peer
    {
        final long eventsPerSecond;
        final long burstScaled;
        boolean started;
        long lastNs;
        long tokensScaled;

        XTimeRatePeer(final long eventsPerSecond, final long burst)
        {
            this.eventsPerSecond = eventsPerSecond;
            this.burstScaled = burst * 1_000_000_000L;
        }

        public boolean offer(final long nowNs, final long n)
        {
            long tokens = burstScaled;
            if (started)
            {
                final long elapsedNs = Math.max(0, nowNs - lastNs);
                tokens = elapsedNs >= burstScaled ? burstScaled :
                    Math.min(burstScaled, tokensScaled + elapsedNs * eventsPerSecond);
            }
            if (n * 1_000_000_000L > burstScaled || tokens < n * 1_000_000_000L)
            {
                return false;
            }
            started = true;
            lastNs = nowNs;
            tokensScaled = tokens - n * 1_000_000_000L;
            return true;
        }
    }

    static void run(final Peer peer, final RateLimiter ours, final long seed, final int length,
        final long emissionIntervalNs, final long maxCost, final long startNs, final Differential differential)
    {
        final Trace trace =
            Trace.steps(seed, startNs, 2 * emissionIntervalNs, 8 * maxCost * emissionIntervalNs, maxCost);
        for (int i = 0; i < length; i++)
        {
            final long nowNs = trace.nextTimeNs();
            final long cost = trace.nextPermits();
            final int index = i;
            differential.check(peer.offer(nowNs, cost), Result.isAdmitted(ours.tryAcquire(cost, nowNs)),
                () -> "seed=" + seed + " i=" + index + " t=" + nowNs + " cost=" + cost);
        }
    }

    @Test
    void redisCellThrottleDecidesAsRedisCell()
    {
        final long[][] configs = {{0, 1, 1}, {9, 10, 1}, {4, 30, 60}, {99, 100, 1}, {2, 3, 1}, {15, 1000, 1}};
        final Differential differential = new Differential("redis-cell");
        int seed = 2000;
        for (final long[] config : configs)
        {
            for (int round = 0; round < 2; round++)
            {
                final Limit limit = RedisCell.throttle(config[0], config[1], config[2]);
                assertEquals(config[0] + 1, limit.burst());
                run(new RedisCellPeer(config[0], config[1], config[2]), new RateLimiter(limit),
                    ++seed, 2000, limit.emissionIntervalNs(), config[0] + 2, 1_700_000_000_000_000_000L, differential);
            }
        }
        differential.print("").assertMix(20_000).assertAgreed();
    }

    @Test
    void envoyTokenBucketDecidesAsEnvoysExactSemantics()
    {
        final long[][] configs = {{10, 10, 1_000_000_000}, {1, 1, 50_000_000}, {5, 2, 100_000_000},
            {100, 25, 1_000_000_000}, {3, 1, 60_000_000_000L}, {50, 1000, 1_000_000_000}};
        final Differential differential = new Differential("Envoy (exact)");
        long doubleMismatchedTraces = 0;
        int seed = 3000;
        for (final long[] config : configs)
        {
            for (int round = 0; round < 2; round++)
            {
                final Limit limit = Envoy.tokenBucket(config[0], config[1], config[2], TimeUnit.NANOSECONDS);
                assertEquals(config[0], limit.burst());
                final long startNs = 1_000_000_000_000L;
                run(new EnvoyExactPeer(config[0], config[1], config[2], startNs),
                    new RateLimiter(limit), ++seed, 2000, limit.emissionIntervalNs(), config[0], startNs, differential);
                final Differential asShipped = new Differential("Envoy (double)");
                run(new EnvoyDoublePeer(config[0], config[1], config[2], startNs),
                    new RateLimiter(limit), seed, 2000, limit.emissionIntervalNs(), config[0], startNs, asShipped);
                doubleMismatchedTraces += asShipped.mismatches() > 0 ? 1 : 0;
            }
        }
        differential.print("; traces where Envoy's floating-point state departs: " + doubleMismatchedTraces + "/12")
            .assertMix(20_000).assertAgreed();
    }

    @Test
    void xTimeRateAllowNDecidesAsGo()
    {
        final long[][] configs = {{1, 1}, {10, 3}, {100, 10}, {1000, 50}, {250_000, 7}, {8, 1}};
        final Differential differential = new Differential("x/time/rate");
        int seed = 4000;
        for (final long[] config : configs)
        {
            for (int round = 0; round < 2; round++)
            {
                final Limit limit = XTimeRate.newLimiter(config[0], config[1]);
                assertEquals(config[1], limit.burst());
                run(new XTimeRatePeer(config[0], config[1]), new RateLimiter(limit),
                    ++seed, 2000, limit.emissionIntervalNs(), config[1] + 1, -3_000_000_000_000L, differential);
            }
        }
        differential.print("").assertMix(20_000).assertAgreed();
    }
}
