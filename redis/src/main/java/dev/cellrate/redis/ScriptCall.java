package dev.cellrate.redis;

import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.netty.util.Timeout;
import io.netty.util.TimerTask;

import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * One asynchronous script call (a decision or a batch): the Lettuce command itself and its timeout on the
 * {@link SharedTimer}. Exactly once: {@link #deliver()} runs for whichever of reply, failure or timeout wins the
 * CAS on {@code state}; a NOSCRIPT reply to EVALSHA hands the call to a fresh EVAL call with the time left.
 *
 * @param <R> the command's output.
 */
abstract class ScriptCall<R extends ScriptOutput<R>> extends AsyncCommand<byte[], byte[], R> implements TimerTask
{
    private static final int PENDING = 0;
    private static final int DONE = 1;
    @SuppressWarnings("rawtypes")
    private static final AtomicIntegerFieldUpdater<ScriptCall> STATE =
        AtomicIntegerFieldUpdater.newUpdater(ScriptCall.class, "state");

    final RedisRateLimiter limiter;
    final R reply;
    final long deadlineNs;
    final boolean bySha;
    private volatile int state;
    private Timeout timeout;

    ScriptCall(final Command<byte[], byte[], R> command, final R reply, final RedisRateLimiter limiter,
        final boolean bySha, final long deadlineNs)
    {
        super(command);
        this.limiter = limiter;
        this.reply = reply;
        this.bySha = bySha;
        this.deadlineNs = deadlineNs;
    }

    /** @return the same call by EVAL, with the same deadline. */
    abstract ScriptCall<R> byEval();

    /** Answer the caller from the reply (or its cause). */
    abstract void deliver();

    static void launch(final ScriptCall<?> call)
    {
        final long leftNs = call.deadlineNs - System.nanoTime();
        try
        {
            call.timeout = SharedTimer.schedule(call, leftNs);
        }
        catch (final RuntimeException ex)
        {
            call.failed(FallbackCause.ERROR); // the timer refused: the JVM is shutting down
            return;
        }
        try
        {
            call.limiter.link.connection.dispatch(call);
        }
        catch (final RuntimeException ex)
        {
            call.failed(FallbackCause.ERROR);
        }
    }

    /** The timeout. */
    public final void run(final Timeout t)
    {
        if (STATE.compareAndSet(this, PENDING, DONE))
        {
            super.cancel(false);
            reply.cause = FallbackCause.TIMEOUT;
            deliver();
        }
    }

    protected final void completeResult()
    {
        super.completeResult();
        if (!STATE.compareAndSet(this, PENDING, DONE))
        {
            return;
        }
        cancelTimeout();
        if (reply.noScript() && bySha)
        {
            limiter.link.countReload();
            reply.reset();
            launch(byEval());
            return;
        }
        if (!reply.usable())
        {
            reply.cause = FallbackCause.ERROR;
        }
        deliver();
    }

    public final boolean completeExceptionally(final Throwable ex)
    {
        final boolean first = super.completeExceptionally(ex);
        failed(ex instanceof io.lettuce.core.RedisCommandTimeoutException ? FallbackCause.TIMEOUT : FallbackCause.ERROR);
        return first;
    }

    public final boolean cancel(final boolean mayInterruptIfRunning)
    {
        final boolean first = super.cancel(mayInterruptIfRunning);
        failed(FallbackCause.ERROR);
        return first;
    }

    private void failed(final FallbackCause cause)
    {
        if (STATE.compareAndSet(this, PENDING, DONE))
        {
            cancelTimeout();
            reply.cause = cause;
            deliver();
        }
    }

    private void cancelTimeout()
    {
        final Timeout t = timeout;
        if (null != t)
        {
            t.cancel();
        }
    }
}
