package dev.cellrate.redis;

import static dev.cellrate.redis.Checks.requireRange;

import dev.cellrate.Limit;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.agrona.concurrent.NanoClock;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * Configures a {@link RedisRateLimiter}. Defaults: prefix {@code "cellrate:"}, timeout 50 ms, a circuit breaker
 * over the last 100 calls that opens for 1 s when at least 50 % of them failed and at least 20 were recorded,
 * a start-up wait of 1 s, one fallback log line per 10 s at most, 65,536 expected keys for the local fallback
 * table, an extra expiry of {@link #DEFAULT_EXTRA_TTL_MS}, the local fallback clock = the wall clock in ns since
 * the epoch. Every setter checks its range at once and names the field in its message.
 */
public final class RedisRateLimiterBuilder
{
    /**
     * Default extra expiry of a key beyond {@code TAT - now}, ms: a caller whose call reaches Redis up to this much
     * after it read its clock (a GC pause, a descheduled thread) still meets its key (see {@link #extraTtlMs}).
     */
    public static final long DEFAULT_EXTRA_TTL_MS = 1_000;

    /** Default of {@link #circuitBreaker}: outcomes kept. */
    public static final int DEFAULT_BREAKER_WINDOW_CALLS = 100;
    /** Default of {@link #circuitBreaker}: calls recorded before the breaker may open. */
    public static final int DEFAULT_BREAKER_MINIMUM_CALLS = 20;
    /** Default of {@link #circuitBreaker}: failure rate that opens it, %. */
    public static final int DEFAULT_BREAKER_FAILURE_RATE_PERCENT = 50;
    /** Largest window of {@link #circuitBreaker}. */
    public static final int MAX_BREAKER_WINDOW_CALLS = 10_000;

    final StatefulRedisConnection<byte[], byte[]> connection;
    final RedisClient client;
    final RedisURI uri;
    final Limit limit;
    final FailPolicy policy;
    byte[] prefix = "cellrate:".getBytes(StandardCharsets.UTF_8);
    String name = "cellrate";
    long timeoutNs = TimeUnit.MILLISECONDS.toNanos(50);
    int breakerWindowCalls = DEFAULT_BREAKER_WINDOW_CALLS;
    int breakerMinimumCalls = DEFAULT_BREAKER_MINIMUM_CALLS;
    int breakerFailureRatePercent = DEFAULT_BREAKER_FAILURE_RATE_PERCENT;
    long breakerOpenNs = TimeUnit.SECONDS.toNanos(1);
    long startupWaitNs = TimeUnit.SECONDS.toNanos(1);
    long logIntervalNs = TimeUnit.SECONDS.toNanos(10);
    int localKeys = 1 << 16;
    long localInitialPermits = Long.MAX_VALUE;
    long extraTtlMs = DEFAULT_EXTRA_TTL_MS;
    NanoClock localClock = () -> System.currentTimeMillis() * 1_000_000L;
    boolean coalesce = true;

    RedisRateLimiterBuilder(
        final StatefulRedisConnection<byte[], byte[]> connection, final RedisClient client, final RedisURI uri,
        final Limit limit, final FailPolicy policy)
    {
        if (null == connection && null == client)
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
        this.client = client;
        this.uri = uri;
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
     * @param name shown in the fallback log lines.
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
     * The circuit breaker: a count-based sliding window over the outcomes of the last {@code windowCalls} calls
     * that reached Redis. It opens when at least {@code minimumCalls} calls were recorded since it last closed and
     * at least {@code failureRatePercent} % of the window failed (timed out, or failed for a reason about the
     * server; an answer about one key is not a failure). Open, it answers by the fail policy without asking Redis
     * for {@code openNs}, then lets one call probe: its success closes it (and clears the window), its failure
     * opens it again.
     *
     * @param windowCalls        outcomes kept, in [1, {@value #MAX_BREAKER_WINDOW_CALLS}].
     * @param minimumCalls       calls recorded before it may open, in [1, windowCalls].
     * @param failureRatePercent failed share of the window that opens it, in [1, 100] %.
     * @param openNs             how long it stays open before one probe, in [1 ms, 1 h].
     * @return this.
     */
    public RedisRateLimiterBuilder circuitBreaker(
        final int windowCalls, final int minimumCalls, final int failureRatePercent, final long openNs)
    {
        final int window = (int)requireRange("circuitBreaker windowCalls", windowCalls, 1, MAX_BREAKER_WINDOW_CALLS);
        final int minimum = (int)requireRange("circuitBreaker minimumCalls", minimumCalls, 1, window);
        final int rate = (int)requireRange("circuitBreaker failureRatePercent", failureRatePercent, 1, 100);
        final long open = requireRange("circuitBreaker openNs", openNs, 1_000_000, TimeUnit.HOURS.toNanos(1));
        this.breakerWindowCalls = window;
        this.breakerMinimumCalls = minimum;
        this.breakerFailureRatePercent = rate;
        this.breakerOpenNs = open;
        return this;
    }

    /**
     * @param startupWaitNs the longest {@link #build()} waits for the connection and the script to be ready, in
     *                      [0, 60 s]. Past it {@link #build()} returns anyway: the limiter keeps connecting in the
     *                      background and the fail policy answers meanwhile ({@link FallbackCause#NOT_CONNECTED}).
     * @return this.
     */
    public RedisRateLimiterBuilder startupWaitNs(final long startupWaitNs)
    {
        this.startupWaitNs = requireRange("startupWaitNs", startupWaitNs, 0, TimeUnit.SECONDS.toNanos(60));
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
     * The permits a key's local cell starts with ({@link FailPolicy#LOCAL} only). By default a local cell starts
     * full, as any new key of a {@link dev.cellrate.KeyedRateLimiter}: a key that had just spent its burst in
     * Redis gets a second burst from its local cell when Redis fails. With 0 the local cell starts spent, as if
     * Redis had just admitted a full burst for the key, so the fallback adds nothing on top of what Redis
     * admitted before the fault; the price is that an idle key waits one emission interval for its first local
     * permit.
     *
     * @param permits permits a new local cell starts with, in [0, burst] of the limit.
     * @return this.
     */
    public RedisRateLimiterBuilder localInitialPermits(final long permits)
    {
        this.localInitialPermits = requireRange("localInitialPermits", permits, 0, limit.burst());
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
     * Whether the one-key decisions of concurrent callers (synchronous and asynchronous, on server or caller time)
     * are sent together (default true):
     * while up to two script calls are in flight, the decisions that arrive meanwhile gather and leave as one
     * script call of the batch form, each key decided in order on its own cell exactly as single calls one after
     * the other. A lone caller's decision leaves at once. Turn it off when the connection's server needs one key
     * per command (a Redis Cluster node: the keys of one call must share a slot) or to have one command per decision.
     *
     * @param coalesce true to send concurrent callers' decisions together.
     * @return this.
     */
    public RedisRateLimiterBuilder coalesceCalls(final boolean coalesce)
    {
        this.coalesce = coalesce;
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
     * Builds the limiter, starts connecting and loading its script, and waits at most {@link #startupWaitNs} for
     * that. Never throws because Redis is down: until Redis is reached the fail policy answers.
     *
     * @return the limiter.
     */
    public RedisRateLimiter build()
    {
        return new RedisRateLimiter(this).start(startupWaitNs);
    }
}
