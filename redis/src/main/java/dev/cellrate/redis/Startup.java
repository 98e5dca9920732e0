package dev.cellrate.redis;

import io.lettuce.core.ConnectionFuture;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.protocol.AsyncCommand;
import io.netty.util.Timeout;
import io.netty.util.TimerTask;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A limiter's start-up, before its first decision reaches Redis: connect (when the limiter was given a client
 * rather than a connection), {@code SCRIPT LOAD} the decision, then one warm-up call of it that writes nothing
 * (a cost above the ceiling, which the script rejects without a {@code SET}). Until the warm-up call is answered
 * the limiter answers by its fail policy with {@link FallbackCause#NOT_CONNECTED}, without asking Redis and
 * without moving the circuit breaker. A failed or timed-out step is retried from the start after 50 ms, doubling
 * up to 1 s, on the {@link SharedTimer}, until it succeeds or the limiter is closed.
 * <p>
 * Concurrency: one step is in flight at a time (each step starts the next from its completion), so the retry
 * count needs no synchronisation; {@link #done} completes once.
 */
final class Startup implements TimerTask
{
    private static final long FIRST_RETRY_NS = TimeUnit.MILLISECONDS.toNanos(50);
    private static final long MAX_RETRY_NS = TimeUnit.SECONDS.toNanos(1);

    final CompletableFuture<Void> done = new CompletableFuture<>();
    private final RedisLink limiter;
    private final long stepTimeoutNs;
    private int failures;

    Startup(final RedisLink limiter, final long stepTimeoutNs)
    {
        this.limiter = limiter;
        this.stepTimeoutNs = stepTimeoutNs;
    }

    /** A retry, on the timer thread. */
    public void run(final Timeout timeout)
    {
        attempt();
    }

    void attempt()
    {
        if (limiter.closed)
        {
            return;
        }
        final StatefulRedisConnection<byte[], byte[]> connection = limiter.connection;
        if (null != connection)
        {
            load(connection);
            return;
        }
        final ConnectionFuture<StatefulRedisConnection<byte[], byte[]>> connecting;
        try
        {
            connecting = limiter.client.connectAsync(ByteArrayCodec.INSTANCE, limiter.uri);
        }
        catch (final RuntimeException ex)
        {
            retry();
            return;
        }
        connecting.whenComplete((opened, ex) ->
        {
            if (null != ex)
            {
                retry();
            }
            else if (limiter.adopt(opened))
            {
                load(opened);
            }
        });
    }

    private void load(final StatefulRedisConnection<byte[], byte[]> connection)
    {
        final RedisFuture<String> loaded;
        try
        {
            loaded = connection.async().scriptLoad(GcraScript.SOURCE);
        }
        catch (final RuntimeException ex)
        {
            retry();
            return;
        }
        final CompletableFuture<String> step = loaded.toCompletableFuture();
        final Timeout guard = SharedTimer.schedule(t -> step.completeExceptionally(new TimeoutException()), stepTimeoutNs);
        step.whenComplete((sha, ex) ->
        {
            guard.cancel();
            if (null == ex && GcraScript.sha1().equals(sha))
            {
                warmUp();
            }
            else
            {
                retry();
            }
        });
    }

    private void warmUp()
    {
        final ScriptReply reply = new ScriptReply(limiter.limit.ceilingUs() + 1);
        final AsyncCommand<byte[], byte[], ScriptReply> command;
        try
        {
            command = limiter.dispatch(reply, true, limiter.warmUpKey(), limiter.limit.ceilingUs() + 1, 0,
                RedisRateLimiter.SERVER_TIME);
        }
        catch (final RuntimeException ex)
        {
            retry();
            return;
        }
        final Timeout guard = SharedTimer.schedule(t -> command.completeExceptionally(new TimeoutException()), stepTimeoutNs);
        command.whenComplete((r, ex) ->
        {
            guard.cancel();
            if (null == ex && (reply.usable()))
            {
                limiter.started();
                done.complete(null);
            }
            else
            {
                retry();
            }
        });
    }

    private void retry()
    {
        if (limiter.closed)
        {
            return;
        }
        final long delayNs = Math.min(FIRST_RETRY_NS << Math.min(failures, 5), MAX_RETRY_NS);
        failures++;
        try
        {
            SharedTimer.schedule(this, delayNs);
        }
        catch (final RuntimeException ex)
        {
            // the JVM is shutting down: nothing left to start
        }
    }

    /**
     * @param waitNs the longest to wait.
     */
    void await(final long waitNs)
    {
        try
        {
            done.get(waitNs, TimeUnit.NANOSECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        catch (final Exception ex)
        {
            // not started within the wait: the fail policy answers meanwhile (NOT_CONNECTED)
        }
    }
}
