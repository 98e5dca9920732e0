package dev.cellrate.redis;

import dev.cellrate.Decision;
import dev.cellrate.KeyedLimiter;
import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import org.agrona.concurrent.NanoClock;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

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
    /** The script's time argument when each key comes with its own time. */
    private static final long PER_KEY_TIME = -2;
    private static final long NS_PER_US = 1000;
    private static final long STARTUP_STEP_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(2);

    /** The most keys one batch call decides (one round trip). */
    public static final int MAX_BATCH = 1024;

    volatile StatefulRedisConnection<byte[], byte[]> connection;
    final RedisClient client;
    final RedisURI uri;
    volatile boolean closed;
    private volatile boolean ready;
    private final Startup startup;
    final MicrosLimit limit;
    private final Limit effective;
    private final byte[] prefix;
    private final FailPolicy policy;
    private final KeyedRateLimiter local;
    private final NanoClock localClock;
    final long timeoutNs;
    private final long extraTtlMs;
    private final CircuitBreaker breaker;
    private final FallbackLog log;
    private final LongAdder roundTrips = new LongAdder();
    private final LongAdder keyErrors = new LongAdder();
    private final AtomicLong scriptReloads = new AtomicLong();
    private final Coalescer coalescer;

    RedisRateLimiter(final RedisRateLimiterBuilder b)
    {
        this.connection = b.connection;
        this.client = b.client;
        this.uri = b.uri;
        this.limit = MicrosLimit.of(b.limit);
        this.effective = limit.effective();
        this.prefix = b.prefix;
        this.policy = b.policy;
        this.local = FailPolicy.LOCAL == b.policy ? KeyedRateLimiter.builder(b.limit).expectedKeys(b.localKeys)
            .initialPermits(Math.min(b.localInitialPermits, b.limit.burst())).build() : null;
        this.localClock = b.localClock;
        this.timeoutNs = b.timeoutNs;
        this.extraTtlMs = b.extraTtlMs;
        this.breaker = new CircuitBreaker(b.breakerWindowCalls, b.breakerMinimumCalls, b.breakerFailureRatePercent,
            b.breakerOpenNs);
        this.log = new FallbackLog(b.name, b.policy, b.logIntervalNs);
        this.startup = new Startup(this, Math.max(b.timeoutNs, STARTUP_STEP_TIMEOUT_NS));
        this.coalescer = b.coalesce ? new Coalescer(this) : null;
    }

    /**
     * Start connecting and loading the script, and wait for it at most {@code waitNs}; never throws because
     * Redis is down (the fail policy answers until it is up).
     */
    RedisRateLimiter start(final long waitNs)
    {
        startup.attempt();
        if (waitNs > 0)
        {
            startup.await(waitNs);
        }
        return this;
    }

    /** The start-up's connection, unless the limiter was closed meanwhile (then it is closed too). */
    boolean adopt(final StatefulRedisConnection<byte[], byte[]> opened)
    {
        connection = opened;
        if (closed)
        {
            opened.closeAsync();
            return false;
        }
        return true;
    }

    void started()
    {
        ready = true;
    }

    byte[] warmUpKey()
    {
        return prefix;
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
        return decide(RedisKeys.encode(prefix, key), permits, callerTime(nowNs), null);
    }

    public long tryAcquire(final long key, final long permits, final long nowNs, final Decision decision)
    {
        return decide(RedisKeys.encode(prefix, key), permits, callerTime(nowNs), decision);
    }

    /**
     * @param key     the key.
     * @param permits the cost.
     * @return as {@link #tryAcquire(CharSequence, long)}, on the server's clock.
     */
    public long tryAcquire(final long key, final long permits)
    {
        return decide(RedisKeys.encode(prefix, key), permits, SERVER_TIME, null);
    }

    /**
     * @param key      the key.
     * @param permits  the cost.
     * @param decision a caller-owned holder.
     * @return as {@link #tryAcquire(CharSequence, long)}, on the server's clock.
     */
    public long tryAcquire(final long key, final long permits, final Decision decision)
    {
        return decide(RedisKeys.encode(prefix, key), permits, SERVER_TIME, decision);
    }

    /**
     * @return the clock of {@link FailPolicy#LOCAL} fallbacks on server-time calls (not of the clock forms,
     * which Redis times).
     */
    public NanoClock clock()
    {
        return localClock;
    }

    /**
     * @param key     the key (UTF-8 after the prefix).
     * @param permits the cost; outside [1, burst] it is {@link Result#NEVER} with no round trip.
     * @return {@link Result#ADMITTED}, a positive retry-after in ns, {@link Result#NEVER}, or a fallback code.
     */
    public long tryAcquire(final CharSequence key, final long permits)
    {
        return decide(RedisKeys.encode(prefix, key), permits, SERVER_TIME, null);
    }

    /**
     * @param key      the key.
     * @param permits  the cost.
     * @param decision a caller-owned holder, filled in place (its times on the server's clock, ns since the epoch).
     * @return as {@link #tryAcquire(CharSequence, long)}.
     */
    public long tryAcquire(final CharSequence key, final long permits, final Decision decision)
    {
        return decide(RedisKeys.encode(prefix, key), permits, SERVER_TIME, decision);
    }

    /**
     * @param key     the key.
     * @param permits the cost.
     * @param nowNs   the caller's time, ns since the Unix epoch (floored to &micro;s).
     * @return as {@link #tryAcquire(CharSequence, long)}.
     */
    public long tryAcquire(final CharSequence key, final long permits, final long nowNs)
    {
        return decide(RedisKeys.encode(prefix, key), permits, callerTime(nowNs), null);
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
        return decide(RedisKeys.encode(prefix, key), permits, callerTime(nowNs), decision);
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
        return decide(RedisKeys.encode(prefix, key, offset, length), permits, SERVER_TIME, null);
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
        return decide(RedisKeys.encode(prefix, key, offset, length), permits, callerTime(nowNs), decision);
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
        decideAsync(RedisKeys.encode(prefix, key), permits, SERVER_TIME, decision, listener);
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
        decideAsync(RedisKeys.encode(prefix, key), permits, callerTime(nowNs), decision, listener);
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
        decideAsync(RedisKeys.encode(prefix, key), permits, SERVER_TIME, decision, code -> future.complete(decision));
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
        return decideBatch(keys, permits, count, SERVER_TIME, codes);
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
        return decideBatch(keys, permits, count, callerTime(nowNs), codes);
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
        decideBatchAsync(keys, permits, count, SERVER_TIME, codes, listener);
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
        decideBatchAsync(keys, permits, count, callerTime(nowNs), codes, listener);
    }

    private void decideBatchAsync(
        final CharSequence[] keys, final long[] permits, final int count, final long nowUs, final long[] codes,
        final BatchListener listener)
    {
        checkBatch(keys, permits, count, codes);
        final byte[][] redisKeys = new byte[count][];
        final long[] incrementsUs = new long[count];
        if (0 == prepareBatch(keys, permits, count, nowUs, codes, redisKeys, incrementsUs))
        {
            listener.onBatch(0);
            return;
        }
        BatchCall.start(this, redisKeys, incrementsUs, java.util.Arrays.copyOf(permits, count), count, nowUs, codes, listener);
    }

    private static void checkBatch(final CharSequence[] keys, final long[] permits, final int count, final long[] codes)
    {
        if (count < 0 || count > MAX_BATCH || count > keys.length || count > permits.length || count > codes.length)
        {
            throw new IllegalArgumentException("count must be in [0, " + Math.min(MAX_BATCH,
                Math.min(keys.length, Math.min(permits.length, codes.length))) + "] but was " + count);
        }
    }

    /**
     * Encode the keys and their increments; a key that can never conform gets {@link Result#NEVER} now and
     * increment 0 (the script skips it).
     *
     * @return keys to send.
     */
    private int prepareBatch(
        final CharSequence[] keys, final long[] permits, final int count, final long nowUs, final long[] codes,
        final byte[][] redisKeys, final long[] incrementsUs)
    {
        int toSend = 0;
        for (int i = 0; i < count; i++)
        {
            redisKeys[i] = RedisKeys.encode(prefix, keys[i]);
            final long incrementUs = limit.incrementUs(permits[i]);
            if (incrementUs < 1 || Long.MIN_VALUE == nowUs)
            {
                codes[i] = Result.NEVER;
            }
            else
            {
                incrementsUs[i] = incrementUs;
                toSend++;
            }
        }
        return toSend;
    }

    private int decideBatch(
        final CharSequence[] keys, final long[] permits, final int count, final long nowUs, final long[] codes)
    {
        checkBatch(keys, permits, count, codes);
        final byte[][] redisKeys = new byte[count][];
        final long[] incrementsUs = new long[count];
        if (0 == prepareBatch(keys, permits, count, nowUs, codes, redisKeys, incrementsUs))
        {
            return 0;
        }
        return answerBatch(callBatch(redisKeys, incrementsUs, count, nowUs), redisKeys, incrementsUs, permits, count,
            nowUs, codes);
    }

    /**
     * Fill the codes of a finished batch call: Redis's decisions, the keys' errors, or the fail policy's answers.
     *
     * @return keys admitted.
     */
    int answerBatch(
        final BatchReply reply, final byte[][] redisKeys, final long[] incrementsUs, final long[] permits,
        final int count, final long nowUs, final long[] codes)
    {
        int admitted = 0;
        for (int i = 0; i < count; i++)
        {
            if (0 == incrementsUs[i])
            {
                continue;
            }
            final long code;
            if (null != reply.cause)
            {
                code = fallback(reply.cause, redisKeys[i], permits[i], nowUs, null);
            }
            else
            {
                final long retryAfterUs = reply.retryAfterUs[i];
                if (retryAfterUs >= 0)
                {
                    code = 0 == retryAfterUs ? Result.ADMITTED : retryAfterUs * NS_PER_US;
                }
                else
                {
                    keyErrors.increment();
                    code = REJECTED_KEY_ERROR;
                }
            }
            codes[i] = code;
            admitted += Result.isAdmitted(code) ? 1 : 0;
        }
        return admitted;
    }

    /**
     * One synchronous batch call, EVALSHA then EVAL on NOSCRIPT, bounded by the timeout.
     */
    BatchReply callBatch(final byte[][] redisKeys, final long[] incrementsUs, final int count, final long nowUs)
    {
        final BatchReply reply = new BatchReply(count);
        if (!ready)
        {
            reply.cause = FallbackCause.NOT_CONNECTED;
            return reply;
        }
        final long startNs = System.nanoTime();
        if (!breaker.allow(startNs))
        {
            reply.cause = FallbackCause.BREAKER_OPEN;
            return reply;
        }
        try
        {
            AsyncCommand<byte[], byte[], BatchReply> command = dispatchBatch(reply, true, redisKeys, incrementsUs, count, nowUs);
            boolean done = command.await(timeoutNs, TimeUnit.NANOSECONDS);
            if (done && reply.noScript())
            {
                scriptReloads.incrementAndGet();
                reply.reset();
                command = dispatchBatch(reply, false, redisKeys, incrementsUs, count, nowUs);
                final long leftNs = timeoutNs - (System.nanoTime() - startNs);
                done = leftNs > 0 && command.await(leftNs, TimeUnit.NANOSECONDS);
            }
            if (!done)
            {
                command.cancel(false);
                reply.cause = FallbackCause.TIMEOUT;
            }
            else if (!reply.complete())
            {
                reply.cause = FallbackCause.ERROR;
            }
        }
        catch (final RuntimeException ex)
        {
            if (ex instanceof io.lettuce.core.RedisCommandInterruptedException)
            {
                Thread.currentThread().interrupt();
            }
            reply.cause = FallbackCause.ERROR;
        }
        settle(reply.cause);
        return reply;
    }

    CommandArgs<byte[], byte[]> batchArgs(
        final boolean bySha, final byte[][] redisKeys, final long[] incrementsUs, final int count, final long nowUs)
    {
        final CommandArgs<byte[], byte[]> args = new CommandArgs<>(ByteArrayCodec.INSTANCE)
            .add(bySha ? GcraScript.SHA1_HEX : GcraScript.SOURCE)
            .add(count);
        for (int i = 0; i < count; i++)
        {
            args.addKey(redisKeys[i]);
        }
        for (int i = 0; i < count; i++)
        {
            args.add(incrementsUs[i]);
        }
        return args.add(limit.ceilingUs()).add(limit.emissionIntervalUs()).add(0).add(nowUs).add(extraTtlMs);
    }

    /**
     * The arguments of a combined call: the batch form, at one time when every decision has the same one (the
     * server's or a caller's), else each key at its own ({@code -2}, then one time per key).
     */
    CommandArgs<byte[], byte[]> coalescedArgs(
        final boolean bySha, final PendingDecision[] decisions, final byte[][] redisKeys, final long[] incrementsUs)
    {
        final int count = decisions.length;
        final long firstUs = decisions[0].nowUs;
        boolean oneTime = true;
        for (int i = 1; i < count && oneTime; i++)
        {
            oneTime = decisions[i].nowUs == firstUs;
        }
        final CommandArgs<byte[], byte[]> args =
            batchArgs(bySha, redisKeys, incrementsUs, count, oneTime ? firstUs : PER_KEY_TIME);
        if (!oneTime)
        {
            for (int i = 0; i < count; i++)
            {
                args.add(decisions[i].nowUs);
            }
        }
        return args;
    }

    void settleBatch(final FallbackCause cause)
    {
        settle(cause);
    }

    private AsyncCommand<byte[], byte[], BatchReply> dispatchBatch(
        final BatchReply reply, final boolean bySha, final byte[][] redisKeys, final long[] incrementsUs,
        final int count, final long nowUs)
    {
        final AsyncCommand<byte[], byte[], BatchReply> command = new AsyncCommand<>(new Command<>(
            bySha ? CommandType.EVALSHA : CommandType.EVAL, reply, batchArgs(bySha, redisKeys, incrementsUs, count, nowUs)));
        connection.dispatch(command);
        return command;
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

    private long decide(final byte[] redisKey, final long permits, final long nowUs, final Decision decision)
    {
        final long incrementUs = limit.incrementUs(permits);
        if (incrementUs < 1 || Long.MIN_VALUE == nowUs)
        {
            return never(nowUs, decision);
        }
        final ScriptReply reply = null != coalescer ?
            callCoalesced(redisKey, incrementUs, nowUs) : call(redisKey, incrementUs, 0, nowUs);
        return answer(reply, redisKey, permits, nowUs, decision);
    }

    /**
     * One synchronous decision sent with those of concurrent callers ({@link Coalescer}), bounded by the timeout.
     *
     * @return the reply; when not {@link ScriptReply#complete4()} its {@code cause} says why.
     */
    private ScriptReply callCoalesced(final byte[] redisKey, final long incrementUs, final long nowUs)
    {
        final long startNs = System.nanoTime();
        final FallbackCause refusal = refusal();
        if (null != refusal)
        {
            final ScriptReply reply = new ScriptReply();
            reply.cause = refusal;
            return reply;
        }
        final BlockingDecision pending = new BlockingDecision(redisKey, incrementUs, nowUs, Thread.currentThread());
        coalescer.submit(pending);
        pending.await(startNs + timeoutNs);
        judge(pending.reply);
        return pending.reply;
    }

    /** The code of a coalesced decision whose reply (or cause) is in: judged for the breaker, then answered. */
    long finish(
        final ScriptReply reply, final byte[] redisKey, final long permits, final long nowUs, final Decision decision)
    {
        judge(reply);
        return answer(reply, redisKey, permits, nowUs, decision);
    }

    private void judge(final ScriptReply reply)
    {
        if (null == reply.cause && !reply.complete4() && !reply.keyError())
        {
            reply.cause = FallbackCause.ERROR;
        }
        judge(reply.cause);
    }

    /**
     * The code of a finished script call: Redis's decision, the key's error, or the fail policy's answer.
     */
    long answer(
        final ScriptReply reply, final byte[] redisKey, final long permits, final long nowUs, final Decision decision)
    {
        if (reply.complete4())
        {
            return fromReply(reply, decision);
        }
        if (null == reply.cause && reply.keyError())
        {
            keyErrors.increment();
            if (null != decision)
            {
                decision.setOutcome(REJECTED_KEY_ERROR, 0, 0, effective.burst());
            }
            return REJECTED_KEY_ERROR;
        }
        return fallback(reply.cause, redisKey, permits, nowUs, decision);
    }

    /**
     * One synchronous script call, EVALSHA then EVAL on NOSCRIPT, bounded by the timeout.
     *
     * @return the reply; when not {@link ScriptReply#complete4()} its {@code cause} says why.
     */
    ScriptReply call(final byte[] redisKey, final long incrementUs, final long lease, final long nowUs)
    {
        final ScriptReply reply = new ScriptReply();
        if (!ready)
        {
            reply.cause = FallbackCause.NOT_CONNECTED;
            return reply;
        }
        final long startNs = System.nanoTime();
        if (!breaker.allow(startNs))
        {
            reply.cause = FallbackCause.BREAKER_OPEN;
            return reply;
        }
        try
        {
            AsyncCommand<byte[], byte[], ScriptReply> command =
                dispatch(reply, true, redisKey, incrementUs, lease, nowUs);
            boolean done = command.await(timeoutNs, TimeUnit.NANOSECONDS);
            if (done && reply.noScript())
            {
                scriptReloads.incrementAndGet();
                reply.reset();
                command = dispatch(reply, false, redisKey, incrementUs, lease, nowUs);
                final long leftNs = timeoutNs - (System.nanoTime() - startNs);
                done = leftNs > 0 && command.await(leftNs, TimeUnit.NANOSECONDS);
            }
            if (!done)
            {
                command.cancel(false);
                reply.cause = FallbackCause.TIMEOUT;
            }
            else if (!reply.complete4() && !reply.keyError())
            {
                reply.cause = FallbackCause.ERROR;
            }
        }
        catch (final RuntimeException ex)
        {
            if (ex instanceof io.lettuce.core.RedisCommandInterruptedException)
            {
                Thread.currentThread().interrupt();
            }
            reply.cause = FallbackCause.ERROR;
        }
        settle(reply);
        return reply;
    }

    void settle(final ScriptReply reply)
    {
        settle(reply.cause);
    }

    private void settle(final FallbackCause cause)
    {
        if (null == cause)
        {
            roundTrips.increment(); // a decision or an answer about one key: Redis is up
        }
        judge(cause);
    }

    /** One decision's outcome for the circuit breaker. */
    private void judge(final FallbackCause cause)
    {
        if (null == cause)
        {
            breaker.success();
        }
        else if (FallbackCause.TIMEOUT == cause || FallbackCause.ERROR == cause)
        {
            breaker.failure(System.nanoTime());
        }
    }

    /** A combined call answered by Redis: one round trip for all its decisions. */
    void countRoundTrip()
    {
        roundTrips.increment();
    }

    AsyncCommand<byte[], byte[], ScriptReply> dispatch(
        final ScriptReply reply, final boolean bySha, final byte[] redisKey, final long incrementUs,
        final long lease, final long nowUs)
    {
        final AsyncCommand<byte[], byte[], ScriptReply> command =
            new AsyncCommand<>(new Command<>(bySha ? CommandType.EVALSHA : CommandType.EVAL, reply,
                args(bySha, redisKey, incrementUs, lease, nowUs)));
        connection.dispatch(command);
        return command;
    }

    CommandArgs<byte[], byte[]> args(
        final boolean bySha, final byte[] redisKey, final long incrementUs, final long lease, final long nowUs)
    {
        return new CommandArgs<>(ByteArrayCodec.INSTANCE)
            .add(bySha ? GcraScript.SHA1_HEX : GcraScript.SOURCE)
            .add(1)
            .addKey(redisKey)
            .add(incrementUs)
            .add(limit.ceilingUs())
            .add(limit.emissionIntervalUs())
            .add(lease)
            .add(nowUs)
            .add(extraTtlMs);
    }

    long fromReply(final ScriptReply reply, final Decision decision)
    {
        final long code = 0 == reply.retryAfterUs ? Result.ADMITTED : reply.retryAfterUs * NS_PER_US;
        if (null != decision)
        {
            decision.set(code, reply.tatAfterUs * NS_PER_US, reply.nowUs * NS_PER_US, effective);
        }
        return code;
    }

    long never(final long nowUs, final Decision decision)
    {
        if (null != decision)
        {
            decision.set(Result.NEVER, Long.MIN_VALUE, nowUs > 0 ? nowUs * NS_PER_US : 0, effective);
        }
        return Result.NEVER;
    }

    /**
     * Answer by the fail policy, counted and logged at a bounded rate.
     */
    long fallback(
        final FallbackCause cause, final byte[] redisKey, final long permits, final long nowUs,
        final Decision decision)
    {
        log.record(cause, System.nanoTime());
        final long nowNs = SERVER_TIME == nowUs ? localClock.nanoTime() : nowUs * NS_PER_US;
        switch (policy)
        {
            case OPEN:
                if (null != decision)
                {
                    decision.set(Result.ADMITTED, Long.MIN_VALUE, nowNs, effective);
                }
                return ADMITTED_FAIL_OPEN;
            case CLOSED:
                if (null != decision)
                {
                    decision.setOutcome(REJECTED_FAIL_CLOSED, 0, 0, effective.burst());
                }
                return REJECTED_FAIL_CLOSED;
            default:
                return null == decision ?
                    local.tryAcquire(redisKey, 0, redisKey.length, permits, nowNs) :
                    local.tryAcquire(redisKey, 0, redisKey.length, permits, nowNs, decision);
        }
    }

    private void decideAsync(
        final byte[] redisKey, final long permits, final long nowUs, final Decision decision,
        final DecisionListener listener)
    {
        final long incrementUs = limit.incrementUs(permits);
        if (incrementUs < 1 || Long.MIN_VALUE == nowUs)
        {
            listener.onDecision(never(nowUs, decision));
            return;
        }
        if (null != coalescer)
        {
            final FallbackCause refusal = refusal();
            if (null != refusal)
            {
                final ScriptReply reply = new ScriptReply();
                reply.cause = refusal;
                listener.onDecision(answer(reply, redisKey, permits, nowUs, decision));
                return;
            }
            new ListenedDecision(this, redisKey, permits, incrementUs, nowUs, decision, listener).start(coalescer);
            return;
        }
        AsyncCall.start(this, redisKey, permits, incrementUs, 0, nowUs, decision, listener, null);
    }

    /**
     * @return null if the caller may ask Redis, else why not.
     */
    FallbackCause refusal()
    {
        if (!ready)
        {
            return FallbackCause.NOT_CONNECTED;
        }
        return breaker.allow(System.nanoTime()) ? null : FallbackCause.BREAKER_OPEN;
    }

    void countReload()
    {
        scriptReloads.incrementAndGet();
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
        return policy;
    }

    /**
     * @return script calls that Redis answered (each one round trip; a NOSCRIPT reload counts once more in
     * {@link #scriptReloads()}).
     */
    public long roundTrips()
    {
        return roundTrips.sum();
    }

    /**
     * @return NOSCRIPT replies answered by re-sending the script with EVAL.
     */
    public long scriptReloads()
    {
        return scriptReloads.get();
    }

    /**
     * @param cause a cause.
     * @return decisions answered by the fail policy for that cause.
     */
    public long fallbacks(final FallbackCause cause)
    {
        return log.count(cause);
    }

    /**
     * @return decisions answered by the fail policy, all causes.
     */
    public long fallbacks()
    {
        return log.total();
    }

    /**
     * @return decisions answered {@link #REJECTED_KEY_ERROR}: Redis answered about one key's data.
     */
    public long keyErrors()
    {
        return keyErrors.sum();
    }

    /**
     * @return true once the limiter has connected and loaded its script; until then the fail policy answers
     * ({@link FallbackCause#NOT_CONNECTED}).
     */
    public boolean connected()
    {
        return ready;
    }

    /**
     * @return warning lines logged about fallbacks (at most one per log interval).
     */
    public long fallbackLogLines()
    {
        return log.lines();
    }

    /**
     * @return times the circuit breaker opened.
     */
    public long breakerOpenings()
    {
        return breaker.openings();
    }

    /**
     * @return true while the circuit breaker keeps calls away from Redis.
     */
    public boolean breakerOpen()
    {
        return breaker.isOpen();
    }

    /**
     * Stops the start-up retries, and closes the connection if the limiter opened it (one given to the builder
     * stays open: it is the caller's). Decisions after close answer by the fail policy. The shared timer thread
     * stays (a daemon, one per JVM).
     */
    public void close()
    {
        closed = true;
        ready = false;
        final StatefulRedisConnection<byte[], byte[]> opened = connection;
        if (null != client && null != opened)
        {
            opened.closeAsync();
        }
    }
}
