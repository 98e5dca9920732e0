package dev.cellrate.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * A {@link RedisRateLimiter}'s way to Redis: the connection and its {@link Startup}, the {@link CircuitBreaker},
 * the timeout, the round-trip and reload counters, and the synchronous script calls (EVALSHA, then EVAL when Redis
 * answers NOSCRIPT, within one timeout). Each call's outcome is judged here for the breaker; what code a caller
 * gets from a reply is {@link Verdicts}'s part.
 * <p>
 * Concurrency: any thread; the connection is Lettuce's thread-safe shared connection; the counters are adders.
 */
final class RedisLink
{
    private static final long STARTUP_STEP_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(2);

    volatile StatefulRedisConnection<byte[], byte[]> connection;
    final RedisClient client;
    final RedisURI uri;
    volatile boolean closed;
    private volatile boolean ready;
    final MicrosLimit limit;
    final long timeoutNs;
    final ScriptArgs args;
    private final byte[] prefix;
    private final Startup startup;
    private final CircuitBreaker breaker;
    private final LongAdder roundTrips = new LongAdder();
    private final AtomicLong scriptReloads = new AtomicLong();

    RedisLink(final RedisRateLimiterBuilder b, final MicrosLimit limit)
    {
        this.connection = b.connection;
        this.client = b.client;
        this.uri = b.uri;
        this.limit = limit;
        this.timeoutNs = b.timeoutNs;
        this.args = new ScriptArgs(limit, b.extraTtlMs);
        this.prefix = b.prefix;
        this.breaker = new CircuitBreaker(b.breakerWindowCalls, b.breakerMinimumCalls, b.breakerFailureRatePercent,
            b.breakerOpenNs);
        this.startup = new Startup(this, Math.max(b.timeoutNs, STARTUP_STEP_TIMEOUT_NS));
    }

    /**
     * Start connecting and loading the script, and wait for it at most {@code waitNs}; never throws because
     * Redis is down (the fail policy answers until it is up).
     */
    void start(final long waitNs)
    {
        startup.attempt();
        if (waitNs > 0)
        {
            startup.await(waitNs);
        }
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

    boolean ready()
    {
        return ready;
    }

    byte[] warmUpKey()
    {
        return prefix;
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

    /**
     * One synchronous script call, EVALSHA then EVAL on NOSCRIPT, bounded by the timeout.
     *
     * @return the reply; when not {@link ScriptReply#decided()} its {@code cause} says why.
     */
    ScriptReply call(final byte[] redisKey, final long incrementUs, final long lease, final long nowUs)
    {
        return callSync(new ScriptReply(incrementUs), bySha -> args.one(bySha, redisKey, incrementUs, lease, nowUs));
    }

    /**
     * One synchronous batch call, EVALSHA then EVAL on NOSCRIPT, bounded by the timeout.
     */
    BatchReply callBatch(final byte[][] redisKeys, final long[] incrementsUs, final int count, final long nowUs)
    {
        return callSync(new BatchReply(count), bySha -> args.batch(bySha, redisKeys, incrementsUs, count, nowUs));
    }

    /** The script's arguments for EVALSHA ({@code bySha}) or for EVAL. */
    @FunctionalInterface
    private interface ArgsFor
    {
        CommandArgs<byte[], byte[]> args(boolean bySha);
    }

    /**
     * The synchronous call of either reply type: refused by the breaker, or EVALSHA, then EVAL on NOSCRIPT within
     * the time left, then judged.
     */
    private <R extends ScriptOutput<R>> R callSync(final R reply, final ArgsFor argsFor)
    {
        final long startNs = System.nanoTime();
        reply.cause = refusal();
        if (null != reply.cause)
        {
            return reply;
        }
        try
        {
            AsyncCommand<byte[], byte[], R> command = dispatch(reply, true, argsFor.args(true));
            boolean done = command.await(timeoutNs, TimeUnit.NANOSECONDS);
            if (done && reply.noScript())
            {
                scriptReloads.incrementAndGet();
                reply.reset();
                command = dispatch(reply, false, argsFor.args(false));
                done = await(command, startNs);
            }
            finish(command, done, reply);
        }
        catch (final RuntimeException ex)
        {
            failed(ex, reply);
        }
        settle(reply.cause);
        return reply;
    }

    private boolean await(final AsyncCommand<?, ?, ?> command, final long startNs)
    {
        final long leftNs = timeoutNs - (System.nanoTime() - startNs);
        return leftNs > 0 && command.await(leftNs, TimeUnit.NANOSECONDS);
    }

    private static void finish(final AsyncCommand<?, ?, ?> command, final boolean done, final ScriptOutput<?> reply)
    {
        if (!done)
        {
            command.cancel(false);
            reply.cause = FallbackCause.TIMEOUT;
        }
        else if (!reply.usable())
        {
            reply.cause = FallbackCause.ERROR;
        }
    }

    private static void failed(final RuntimeException ex, final ScriptOutput<?> reply)
    {
        if (ex instanceof io.lettuce.core.RedisCommandInterruptedException)
        {
            Thread.currentThread().interrupt();
        }
        reply.cause = FallbackCause.ERROR;
    }

    AsyncCommand<byte[], byte[], ScriptReply> dispatch(
        final ScriptReply reply, final boolean bySha, final byte[] redisKey, final long incrementUs,
        final long lease, final long nowUs)
    {
        return dispatch(reply, bySha, args.one(bySha, redisKey, incrementUs, lease, nowUs));
    }

    private <R extends ScriptOutput<R>> AsyncCommand<byte[], byte[], R> dispatch(
        final R reply, final boolean bySha, final CommandArgs<byte[], byte[]> commandArgs)
    {
        final AsyncCommand<byte[], byte[], R> command =
            new AsyncCommand<>(new Command<>(bySha ? CommandType.EVALSHA : CommandType.EVAL, reply, commandArgs));
        connection.dispatch(command);
        return command;
    }

    /** A coalesced decision's reply (or cause), judged for the breaker; a reply no caller can use is an error. */
    void judge(final ScriptReply reply)
    {
        if (null == reply.cause && !reply.usable())
        {
            reply.cause = FallbackCause.ERROR;
        }
        judge(reply.cause);
    }

    /** A finished call that stands for its decisions: counted as a round trip if Redis answered, and judged. */
    void settle(final FallbackCause cause)
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

    void countReload()
    {
        scriptReloads.incrementAndGet();
    }

    long roundTrips()
    {
        return roundTrips.sum();
    }

    long scriptReloads()
    {
        return scriptReloads.get();
    }

    long breakerOpenings()
    {
        return breaker.openings();
    }

    boolean breakerOpen()
    {
        return breaker.isOpen();
    }

    /** Stop the start-up retries; close the connection if it was opened here (a given one is the caller's). */
    void close()
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
