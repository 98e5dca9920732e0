package dev.cellrate.redis;

import static dev.cellrate.Bounds.requireRange;

import dev.cellrate.Limit;
import io.lettuce.core.api.StatefulRedisConnection;
import org.agrona.concurrent.NanoClock;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * Configures a {@link RedisRateLimiter}. Defaults: prefix {@code "cellrate:"}, timeout 50 ms, circuit breaker
 * opening after 5 consecutive failures for 1 s, one fallback log line per 10 s at most, 65,536 expected keys for
 * the local fallback table, no extra expiry, the local fallback clock = the wall clock in ns since the epoch.
 */
public final class RedisRateLimiterBuilder
{
    /**
     * Default extra expiry of a key beyond {@code TAT - now}, ms: a caller whose call reaches Redis up to this much
     * after it read its clock (a GC pause, a descheduled thread) still meets its key (see {@link #extraTtlMs}).
     */
    public static final long DEFAULT_EXTRA_TTL_MS = 1_000;

    final StatefulRedisConnection<byte[], byte[]> connection;
    final Limit limit;
    final FailPolicy policy;
    byte[] prefix = "cellrate:".getBytes(StandardCharsets.UTF_8);
    String name = "cellrate";
    long timeoutNs = TimeUnit.MILLISECONDS.toNanos(50);
    int breakerFailures = 5;
    long breakerOpenNs = TimeUnit.SECONDS.toNanos(1);
    long logIntervalNs = TimeUnit.SECONDS.toNanos(10);
    int localKeys = 1 << 16;
    long extraTtlMs = DEFAULT_EXTRA_TTL_MS;
    NanoClock localClock = () -> System.currentTimeMillis() * 1_000_000L;

    RedisRateLimiterBuilder(
        final StatefulRedisConnection<byte[], byte[]> connection, final Limit limit, final FailPolicy policy)
    {
        if (null == connection)
        {
            throw new IllegalArgumentException("connection must not be null");
        }
        if (null == limit)
        {
            throw new IllegalArgumentException("limit must not be null");
        }
        if (null == policy)
        {
            throw new IllegalArgumentException("policy must not be null: choose OPEN, CLOSED or LOCAL");
        }
        this.connection = connection;
        this.limit = limit;
        this.policy = policy;
        MicrosLimit.of(limit); // fail now on a limit the script cannot hold
    }

    /**
     * @param prefix prepended to every key (UTF-8); may hold a hash tag such as {@code "rl:{tenant}:"}.
     * @return this.
     */
    public RedisRateLimiterBuilder prefix(final String prefix)
    {
        if (null == prefix)
        {
            throw new IllegalArgumentException("prefix must not be null");
        }
        this.prefix = prefix.getBytes(StandardCharsets.UTF_8);
        return this;
    }

    /**
     * @param name shown in log lines and thread names.
     * @return this.
     */
    public RedisRateLimiterBuilder name(final String name)
    {
        if (null == name)
        {
            throw new IllegalArgumentException("name must not be null");
        }
        this.name = name;
        return this;
    }

    /**
     * @param timeoutNs the longest a decision waits for Redis, in [1 us, 60 s].
     * @return this.
     */
    public RedisRateLimiterBuilder timeoutNs(final long timeoutNs)
    {
        this.timeoutNs = requireRange("timeoutNs", timeoutNs, 1_000, TimeUnit.SECONDS.toNanos(60));
        return this;
    }

    /**
     * @param failures      consecutive failures that open the breaker, in [1, 1000].
     * @param openNs        how long it stays open before one probe, in [1 ms, 1 h].
     * @return this.
     */
    public RedisRateLimiterBuilder circuitBreaker(final int failures, final long openNs)
    {
        this.breakerFailures = (int)requireRange("breaker failures", failures, 1, 1000);
        this.breakerOpenNs = requireRange("breaker openNs", openNs, 1_000_000, TimeUnit.HOURS.toNanos(1));
        return this;
    }

    /**
     * @param logIntervalNs the least time between two fallback log lines, in [0, 1 h].
     * @return this.
     */
    public RedisRateLimiterBuilder logIntervalNs(final long logIntervalNs)
    {
        this.logIntervalNs = requireRange("logIntervalNs", logIntervalNs, 0, TimeUnit.HOURS.toNanos(1));
        return this;
    }

    /**
     * @param keys keys the local fallback table holds ({@link FailPolicy#LOCAL} only), in [1, 2^26].
     * @return this.
     */
    public RedisRateLimiterBuilder localKeys(final int keys)
    {
        this.localKeys = (int)requireRange("localKeys", keys, 1, 1 << 26);
        return this;
    }

    /**
     * @param extraTtlMs expiry added to {@code TAT - now}, in [0, 1 day]; default {@link #DEFAULT_EXTRA_TTL_MS}.
     *                   It covers caller clocks that run slower than the server's, which includes a thread that
     *                   pauses (GC, descheduling) between reading its clock and its call reaching Redis: a call
     *                   that arrives after its key expired would find a fresh cell and a burst already spent at its
     *                   caller time. Keys of idle callers stay this much longer in Redis.
     * @return this.
     */
    public RedisRateLimiterBuilder extraTtlMs(final long extraTtlMs)
    {
        this.extraTtlMs = requireRange("extraTtlMs", extraTtlMs, 0, TimeUnit.DAYS.toMillis(1));
        return this;
    }

    /**
     * @param clock the clock of {@link FailPolicy#LOCAL} fallbacks for calls on server time.
     * @return this.
     */
    public RedisRateLimiterBuilder localClock(final NanoClock clock)
    {
        if (null == clock)
        {
            throw new IllegalArgumentException("clock must not be null");
        }
        this.localClock = clock;
        return this;
    }

    /**
     * @return the limiter.
     */
    public RedisRateLimiter build()
    {
        return new RedisRateLimiter(this);
    }
}
