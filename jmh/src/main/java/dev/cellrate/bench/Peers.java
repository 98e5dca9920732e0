package dev.cellrate.bench;

import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.local.SynchronizationStrategy;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.github.resilience4j.ratelimiter.internal.AtomicRateLimiter;

import java.time.Duration;

/**
 * The peer limiters, configured the way their users configure them, in two shapes: <em>admitting</em> (a rate
 * so high that every call in a benchmark is admitted and so writes the state) and <em>rejecting</em> (one
 * permit per hour, already taken, so every call is rejected). {@code PeersTest} checks both shapes.
 * <p>
 * Each peer reads its own clock, as it does in production: Guava and Resilience4j {@link System#nanoTime()},
 * Bucket4j its default millisecond clock ({@link System#currentTimeMillis()}).
 */
public final class Peers
{
    /** Admitting capacity for Bucket4j: never exhausted within a benchmark. */
    static final long BUCKET4J_ADMIT_TOKENS = 1_000_000_000_000L;

    /** Admitting refill per second for Bucket4j: its highest supported rate, one token per ns. */
    static final long BUCKET4J_ADMIT_REFILL_PER_SECOND = 1_000_000_000L;

    /** Admitting rate for Guava (permits per second): its pre-paid wait rounds to 0 us. */
    static final double GUAVA_ADMIT_PERMITS_PER_SECOND = 1e12;

    /** Rejecting rate for Guava: one permit per 10,000 s. */
    static final double GUAVA_REJECT_PERMITS_PER_SECOND = 1e-4;

    private Peers()
    {
    }

    /**
     * @param admitting true for the admitting shape, false for the rejecting one (first permit taken).
     * @return a Guava {@code SmoothBursty} limiter.
     */
    public static com.google.common.util.concurrent.RateLimiter guava(final boolean admitting)
    {
        final com.google.common.util.concurrent.RateLimiter limiter = com.google.common.util.concurrent.RateLimiter
            .create(admitting ? GUAVA_ADMIT_PERMITS_PER_SECOND : GUAVA_REJECT_PERMITS_PER_SECOND);
        if (!admitting)
        {
            limiter.tryAcquire();
        }
        return limiter;
    }

    /**
     * @param admitting true for the admitting shape, false for the rejecting one (its one token taken).
     * @param strategy  Bucket4j's {@link SynchronizationStrategy#LOCK_FREE} (its default) or
     *                  {@link SynchronizationStrategy#SYNCHRONIZED}.
     * @return a local Bucket4j bucket.
     */
    public static Bucket bucket4j(final boolean admitting, final SynchronizationStrategy strategy)
    {
        final Bucket bucket = Bucket.builder()
            .addLimit(bucket4jBandwidth(admitting))
            .withSynchronizationStrategy(strategy)
            .build();
        if (!admitting)
        {
            bucket.tryConsume(1);
        }
        return bucket;
    }

    /**
     * @param admitting true for the admitting shape, false for the rejecting one.
     * @return the bandwidth of one Bucket4j bucket (shared by the keyed peers).
     */
    public static Bandwidth bucket4jBandwidth(final boolean admitting)
    {
        return admitting ?
            Bandwidth.builder()
                .capacity(BUCKET4J_ADMIT_TOKENS)
                .refillGreedy(BUCKET4J_ADMIT_REFILL_PER_SECOND, Duration.ofSeconds(1))
                .build() :
            Bandwidth.builder()
                .capacity(1)
                .refillGreedy(1, Duration.ofHours(1))
                .build();
    }

    /**
     * @param admitting true for the admitting shape, false for the rejecting one (its one permit taken).
     * @return a Resilience4j {@link AtomicRateLimiter} with a zero timeout (try, never wait).
     */
    public static AtomicRateLimiter resilience4j(final boolean admitting)
    {
        final RateLimiterConfig config = RateLimiterConfig.custom()
            .limitForPeriod(admitting ? Integer.MAX_VALUE : 1)
            .limitRefreshPeriod(admitting ? Duration.ofSeconds(1) : Duration.ofHours(1))
            .timeoutDuration(Duration.ZERO)
            .build();
        final AtomicRateLimiter limiter = new AtomicRateLimiter(admitting ? "admit" : "reject", config);
        if (!admitting)
        {
            limiter.acquirePermission();
        }
        return limiter;
    }
}
