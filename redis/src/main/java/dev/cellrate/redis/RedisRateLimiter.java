package dev.cellrate.redis;

import dev.cellrate.Decision;
import dev.cellrate.KeyedLimiter;
import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import dev.cellrate.Result;
import io.lettuce.core.api.StatefulRedisConnection;
import org.agrona.concurrent.NanoClock;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A GCRA limiter per key whose cells live in Redis, so a fleet of processes shares one limit per key; the
 * same codes and {@link Decision} fields as {@link KeyedRateLimiter}, synchronous and asynchronous.
 * <p>
 * Algorithm: the engine's GCRA ({@link dev.cellrate.gcra.Gcra}) in a Lua script run atomically by Redis,
 * one round trip per decision: {@code EVALSHA}, and {@code EVAL} (which also reloads the cache) when Redis
 * answers {@code NOSCRIPT} after a restart, failover or {@code SCRIPT FLUSH}. One Redis key per cell,
 * {@code prefix + key}, holding the TAT in integer &micro;s, expiring {@code TAT - now} after the decision so
 * idle keys vanish by themselves. Users may group keys into one slot with hash tags in the prefix or key.
 * <p>
 * Time: the calls without {@code nowNs} use the server's {@code TIME} inside the script (one clock for the
 * fleet). The calls with {@code nowNs} use the caller's time, which must then be ns since the Unix epoch from a
 * trusted clock if the same keys are also decided on server time; a time outside
 * [0, {@link MicrosLimit#MAX_NOW_US} &micro;s] answers {@link Result#NEVER}.
 * <p>
 * Rounding: the limit is rounded by {@link MicrosLimit} so Redis never admits more than the engine with the
 * same {@link Limit}; a caller time is floored to whole &micro;s.
 * <p>
 * Failure: a {@link FailPolicy} chosen at build time answers when Redis does not within the timeout, fails,
 * the {@link CircuitBreaker} is open after too many recent failures, or the limiter has not yet connected and
 * loaded its script (Redis down at start-up: {@link FallbackCause#NOT_CONNECTED}; it keeps connecting in the
 * background); each fallback is counted by cause and logged at a bounded rate. A synchronous call never blocks
 * longer than the timeout (plus scheduling). An error about one key's data ({@code WRONGTYPE}, a value that is not
 * a TAT) is not a failure: that key answers {@link #REJECTED_KEY_ERROR} and every other key is decided as usual.
 * <p>
 * Batches: {@link #tryAcquireBatch(CharSequence[], long[], int, long[])} decides up to {@value #MAX_BATCH} keys
 * in one round trip, each as a single call would.
 * <p>
 * Codes: {@link Result#ADMITTED}, a positive retry-after in ns (whole &micro;s), {@link Result#NEVER},
 * {@link #REJECTED_KEY_ERROR}, {@link #ADMITTED_FAIL_OPEN} and {@link #REJECTED_FAIL_CLOSED}; under {@link FailPolicy#LOCAL} a fallback
 * answers the local cell's own codes. Read every code with {@link Result#isAdmitted(long)}.
 * <p>
 * Contract: a {@link KeyedLimiter}, except that a decision on Redis allocates what Lettuce needs for one
 * command (the key bytes, the arguments, the command and its output; nothing else; a coalesced decision its key
 * bytes, one small holder and its share of the combined command), and that its clock forms
 * {@code (key, permits)} use the server's clock, not {@link #clock()} (which times {@link FailPolicy#LOCAL}
 * fallbacks). A {@code long} key {@code k} is the Redis key {@code prefix + Long.toString(k)}: the same cell as
 * the character key {@code "k"}.
 * <p>
 * Concurrency: any thread may call any method; the connection is Lettuce's thread-safe shared connection, which
 * pipelines the commands of concurrent callers. The one-key decisions of concurrent callers are coalesced
 * ({@link Coalescer}): while up to two script calls are in flight, those that arrive gather and leave as one script
 * call that decides each key in order on its own cell ({@link RedisRateLimiterBuilder#coalesceCalls(boolean)}
 * turns it off). No call takes a lock or blocks anyone but its own caller, and the timeouts of asynchronous calls
 * run on one daemon thread shared by every limiter ({@link SharedTimer}).
 */
public final class RedisRateLimiter implements KeyedLimiter, AutoCloseable
{
    /**
     * Redis could not decide and the policy is {@link FailPolicy#OPEN}: admitted without a limit
     * ({@link Result#ADMITTED_FAIL_OPEN}, an admission for {@link Result#isAdmitted(long)}).
     */
    public static final long ADMITTED_FAIL_OPEN = Result.ADMITTED_FAIL_OPEN;

    /** Redis could not decide and the policy is {@link FailPolicy#CLOSED}: rejected ({@link Result#REJECTED_FAIL_CLOSED}). */
    public static final long REJECTED_FAIL_CLOSED = Result.REJECTED_FAIL_CLOSED;

    /**
     * Redis answered, but about this key alone: the key holds another type ({@code WRONGTYPE}) or a value that is
     * not a TAT (not a decimal integer below 2^53 &micro;s). A rejection with no retry-after (it lasts until
     * someone repairs or deletes the key), in the engine's distributed range; counted by {@link #keyErrors()},
     * never a fallback, never a failure for the circuit breaker: every other key is still decided by Redis.
     */
    public static final long REJECTED_KEY_ERROR = Result.REJECTED_KEY_ERROR;

    static final long SERVER_TIME = -1;

    /** The most keys one batch call decides (one round trip). */
    public static final int MAX_BATCH = 1024;

    final RedisLink link;
    final Verdicts verdicts;
    final MicrosLimit limit;
    private final byte[] prefix;
    private final Batches batches;
    private final KeyDecisions decisions;

    RedisRateLimiter(final RedisRateLimiterBuilder b)
    {
        this.limit = MicrosLimit.of(b.limit);
        this.prefix = b.prefix;
        this.link = new RedisLink(b, limit);
        this.verdicts = new Verdicts(b, limit);
        this.batches = new Batches(this, prefix, limit);
        this.decisions = new KeyDecisions(this, b.coalesce ? new Coalescer(this) : null);
    }

    /**
     * Start connecting and loading the script, and wait for it at most {@code waitNs}; never throws because
     * Redis is down (the fail policy answers until it is up).
     */
    RedisRateLimiter start(final long waitNs)
    {
        link.start(waitNs);
        return this;
    }

    /**
     * @param connection a shared connection with the byte-array codec (thread-safe; not closed by the limiter).
     * @param limit      the limit every key gets.
     * @param policy     what to answer when Redis cannot.
     * @return a builder with the defaults documented on {@link RedisRateLimiterBuilder}.
     */
    public static RedisRateLimiterBuilder builder(
        final StatefulRedisConnection<byte[], byte[]> connection, final Limit limit, final FailPolicy policy)
    {
        return new RedisRateLimiterBuilder(connection, null, null, limit, policy);
    }

    /**
     * A limiter that opens its own connection from {@code client} to {@code uri} and closes it in
     * {@link #close()}. Redis may be down when it is built: the connection is retried in the background, and the
     * fail policy answers meanwhile ({@link FallbackCause#NOT_CONNECTED}).
     *
     * @param client the client (its resources and options; not shut down by the limiter).
     * @param uri    where Redis is.
     * @param limit  the limit every key gets.
     * @param policy what to answer when Redis cannot.
     * @return a builder with the defaults documented on {@link RedisRateLimiterBuilder}.
     */
    public static RedisRateLimiterBuilder builder(
        final RedisClient client, final RedisURI uri, final Limit limit, final FailPolicy policy)
    {
        if (null == client)
        {
            throw new IllegalArgumentException("client must not be null");
        }
        if (null == uri)
        {
            throw new IllegalArgumentException("uri must not be null");
        }
        return new RedisRateLimiterBuilder(null, client, uri, limit, policy);
    }

    public long tryAcquire(final long key, final long permits, final long nowNs)
    {
        return decisions.decide(RedisKeys.encode(prefix, key), permits, callerTime(nowNs), null);
    }

    public long tryAcquire(final long key, final long permits, final long nowNs, final Decision decision)
    {
        return decisions.decide(RedisKeys.encode(prefix, key), permits, callerTime(nowNs), decision);
    }

    /**
     * @param key     the key.
     * @param permits the cost.
     * @return as {@link #tryAcquire(CharSequence, long)}, on the server's clock.
     */
    public long tryAcquire(final long key, final long permits)
    {
        return decisions.decide(RedisKeys.encode(prefix, key), permits, SERVER_TIME, null);
    }

    /**
     * @param key      the key.
     * @param permits  the cost.
     * @param decision a caller-owned holder.
     * @return as {@link #tryAcquire(CharSequence, long)}, on the server's clock.
     */
    public long tryAcquire(final long key, final long permits, final Decision decision)
    {
        return decisions.decide(RedisKeys.encode(prefix, key), permits, SERVER_TIME, decision);
    }

    /**
     * @return the clock of {@link FailPolicy#LOCAL} fallbacks on server-time calls (not of the clock forms,
     * which Redis times).
     */
    public NanoClock clock()
    {
        return verdicts.localClock();
    }

    /**
     * @param key     the key (UTF-8 after the prefix).
     * @param permits the cost; outside [1, burst] it is {@link Result#NEVER} with no round trip.
     * @return {@link Result#ADMITTED}, a positive retry-after in ns, {@link Result#NEVER}, or a fallback code.
     */
    public long tryAcquire(final CharSequence key, final long permits)
    {
        return decisions.decide(RedisKeys.encode(prefix, key), permits, SERVER_TIME, null);
    }

    /**
     * @param key      the key.
     * @param permits  the cost.
     * @param decision a caller-owned holder, filled in place (its times on the server's clock, ns since the epoch).
     * @return as {@link #tryAcquire(CharSequence, long)}.
     */
    public long tryAcquire(final CharSequence key, final long permits, final Decision decision)
    {
        return decisions.decide(RedisKeys.encode(prefix, key), permits, SERVER_TIME, decision);
    }

    /**
     * @param key     the key.
     * @param permits the cost.
     * @param nowNs   the caller's time, ns since the Unix epoch (floored to &micro;s).
     * @return as {@link #tryAcquire(CharSequence, long)}.
     */
    public long tryAcquire(final CharSequence key, final long permits, final long nowNs)
    {
        return decisions.decide(RedisKeys.encode(prefix, key), permits, callerTime(nowNs), null);
    }

    /**
     * @param key      the key.
     * @param permits  the cost.
     * @param nowNs    the caller's time, ns since the Unix epoch (floored to &micro;s).
     * @param decision a caller-owned holder, filled in place.
     * @return as {@link #tryAcquire(CharSequence, long)}.
     */
    public long tryAcquire(final CharSequence key, final long permits, final long nowNs, final Decision decision)
    {
        return decisions.decide(RedisKeys.encode(prefix, key), permits, callerTime(nowNs), decision);
    }

    /**
     * @param key     array holding the key bytes.
     * @param offset  first byte.
     * @param length  byte count.
     * @param permits the cost.
     * @return as {@link #tryAcquire(CharSequence, long)}.
     */
    public long tryAcquire(final byte[] key, final int offset, final int length, final long permits)
    {
        return decisions.decide(RedisKeys.encode(prefix, key, offset, length), permits, SERVER_TIME, null);
    }

    /**
     * @param key      array holding the key bytes.
     * @param offset   first byte.
     * @param length   byte count.
     * @param permits  the cost.
     * @param nowNs    the caller's time, ns since the Unix epoch.
     * @param decision a caller-owned holder or null.
     * @return as {@link #tryAcquire(CharSequence, long)}.
     */
    public long tryAcquire(
        final byte[] key, final int offset, final int length, final long permits, final long nowNs,
        final Decision decision)
    {
        return decisions.decide(RedisKeys.encode(prefix, key, offset, length), permits, callerTime(nowNs), decision);
    }

    /**
     * Decide on the server's time without blocking; the listener gets the code exactly once.
     *
     * @param key      the key.
     * @param permits  the cost.
     * @param decision a caller-owned holder filled before the listener runs, or null.
     * @param listener receives the code on an I/O thread.
     */
    public void tryAcquireAsync(
        final CharSequence key, final long permits, final Decision decision, final DecisionListener listener)
    {
        decisions.decideAsync(RedisKeys.encode(prefix, key), permits, SERVER_TIME, decision, listener);
    }

    /**
     * Decide on the caller's time without blocking; the listener gets the code exactly once.
     *
     * @param key      the key.
     * @param permits  the cost.
     * @param nowNs    the caller's time, ns since the Unix epoch.
     * @param decision a caller-owned holder filled before the listener runs, or null.
     * @param listener receives the code on an I/O thread.
     */
    public void tryAcquireAsync(
        final CharSequence key, final long permits, final long nowNs, final Decision decision,
        final DecisionListener listener)
    {
        decisions.decideAsync(RedisKeys.encode(prefix, key), permits, callerTime(nowNs), decision, listener);
    }

    /**
     * Decide on the server's time; a convenience that allocates a future and a {@link Decision}.
     *
     * @param key     the key.
     * @param permits the cost.
     * @return a stage completed with the filled decision (never exceptionally: failures are the fail policy's).
     */
    public CompletionStage<Decision> tryAcquireAsync(final CharSequence key, final long permits)
    {
        final Decision decision = new Decision();
        final CompletableFuture<Decision> future = new CompletableFuture<>();
        decisions.decideAsync(RedisKeys.encode(prefix, key), permits, SERVER_TIME, decision, code -> future.complete(decision));
        return future;
    }

    /**
     * Decide {@code count} keys in one round trip, on the server's clock: one script call that decides each key in
     * order on its own cell, exactly as {@link #tryAcquire(CharSequence, long)} would one after the other (a
     * key that appears twice is charged twice). Not all-or-nothing: each key gets its own code. In Redis Cluster
     * the keys of one batch must hash to one slot (a hash tag in the prefix or the keys).
     * <p>
     * Allocation: what Lettuce needs for one command of {@code count} keys (their bytes and arguments) and one
     * {@code long[count]} for the reply; nothing per call beyond that. When Redis cannot answer within the
     * timeout, each key is answered by the fail policy (each counted as a fallback).
     *
     * @param keys    the keys, {@code keys[0..count)}.
     * @param permits their costs; a cost outside [1, burst] answers {@link Result#NEVER} for that key.
     * @param count   keys to decide, in [0, {@value #MAX_BATCH}] and at most each array's length.
     * @param codes   filled with each key's code, as {@link #tryAcquire(CharSequence, long)} answers it.
     * @return the number of keys admitted.
     */
    public int tryAcquireBatch(final CharSequence[] keys, final long[] permits, final int count, final long[] codes)
    {
        return batches.decide(keys, permits, count, SERVER_TIME, codes);
    }

    /**
     * As {@link #tryAcquireBatch(CharSequence[], long[], int, long[])}, on the caller's time.
     *
     * @param keys    the keys, {@code keys[0..count)}.
     * @param permits their costs.
     * @param count   keys to decide, in [0, {@value #MAX_BATCH}] and at most each array's length.
     * @param nowNs   the caller's time, ns since the Unix epoch (floored to &micro;s).
     * @param codes   filled with each key's code.
     * @return the number of keys admitted.
     */
    public int tryAcquireBatch(
        final CharSequence[] keys, final long[] permits, final int count, final long nowNs, final long[] codes)
    {
        return batches.decide(keys, permits, count, callerTime(nowNs), codes);
    }

    /**
     * Decide {@code count} keys in one round trip without blocking, on the server's clock; as
     * {@link #tryAcquireBatch(CharSequence[], long[], int, long[])}, for an event loop that must not wait. The
     * listener runs exactly once, after {@code codes[0..count)} is filled: on a Lettuce I/O thread, on the shared
     * timer's thread (timeout), or at once on the caller's thread (nothing to send, breaker open, not connected).
     * Leave {@code codes} alone until it runs; {@code keys} and {@code permits} may be reused as soon as this
     * method returns.
     *
     * @param keys     the keys, {@code keys[0..count)}.
     * @param permits  their costs.
     * @param count    keys to decide, in [0, {@value #MAX_BATCH}] and at most each array's length.
     * @param codes    filled with each key's code before the listener runs.
     * @param listener receives the number of keys admitted.
     */
    public void tryAcquireBatchAsync(
        final CharSequence[] keys, final long[] permits, final int count, final long[] codes, final BatchListener listener)
    {
        batches.decideAsync(keys, permits, count, SERVER_TIME, codes, listener);
    }

    /**
     * As {@link #tryAcquireBatchAsync(CharSequence[], long[], int, long[], BatchListener)}, on the caller's time.
     *
     * @param keys     the keys, {@code keys[0..count)}.
     * @param permits  their costs.
     * @param count    keys to decide, in [0, {@value #MAX_BATCH}] and at most each array's length.
     * @param nowNs    the caller's time, ns since the Unix epoch (floored to &micro;s).
     * @param codes    filled with each key's code before the listener runs.
     * @param listener receives the number of keys admitted.
     */
    public void tryAcquireBatchAsync(
        final CharSequence[] keys, final long[] permits, final int count, final long nowNs, final long[] codes,
        final BatchListener listener)
    {
        batches.decideAsync(keys, permits, count, callerTime(nowNs), codes, listener);
    }

    byte[] redisKey(final CharSequence key)
    {
        return RedisKeys.encode(prefix, key);
    }

    private static long callerTime(final long nowNs)
    {
        final long nowUs = MicrosLimit.toMicros(nowNs);
        return nowUs < 0 ? Long.MIN_VALUE : nowUs;
    }

    /**
     * @return the limit as rounded for Redis.
     */
    public MicrosLimit limit()
    {
        return limit;
    }

    /**
     * @return the fail policy.
     */
    public FailPolicy policy()
    {
        return verdicts.policy();
    }

    /**
     * @return script calls that Redis answered (each one round trip; a NOSCRIPT reload counts once more in
     * {@link #scriptReloads()}).
     */
    public long roundTrips()
    {
        return link.roundTrips();
    }

    /**
     * @return NOSCRIPT replies answered by re-sending the script with EVAL.
     */
    public long scriptReloads()
    {
        return link.scriptReloads();
    }

    /**
     * @param cause a cause.
     * @return decisions answered by the fail policy for that cause.
     */
    public long fallbacks(final FallbackCause cause)
    {
        return verdicts.log().count(cause);
    }

    /**
     * @return decisions answered by the fail policy, all causes.
     */
    public long fallbacks()
    {
        return verdicts.log().total();
    }

    /**
     * @return decisions answered {@link #REJECTED_KEY_ERROR}: Redis answered about one key's data.
     */
    public long keyErrors()
    {
        return verdicts.keyErrors();
    }

    /**
     * @return true once the limiter has connected and loaded its script; until then the fail policy answers
     * ({@link FallbackCause#NOT_CONNECTED}).
     */
    public boolean connected()
    {
        return link.ready();
    }

    /**
     * @return warning lines logged about fallbacks (at most one per log interval).
     */
    public long fallbackLogLines()
    {
        return verdicts.log().lines();
    }

    /**
     * @return times the circuit breaker opened.
     */
    public long breakerOpenings()
    {
        return link.breakerOpenings();
    }

    /**
     * @return true while the circuit breaker keeps calls away from Redis.
     */
    public boolean breakerOpen()
    {
        return link.breakerOpen();
    }

    /**
     * Stops the start-up retries, and closes the connection if the limiter opened it (one given to the builder
     * stays open: it is the caller's). Decisions after close answer by the fail policy. The shared timer thread
     * stays (a daemon, one per JVM).
     */
    public void close()
    {
        link.close();
    }
}
