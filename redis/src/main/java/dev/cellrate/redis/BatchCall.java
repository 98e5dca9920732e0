package dev.cellrate.redis;

import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandType;
import io.netty.util.Timeout;
import io.netty.util.TimerTask;

import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * One asynchronous batch: the Lettuce command itself and the batch's state, with its timeout on the
 * {@link SharedTimer}, as {@link AsyncCall} is for one key. Exactly once: the codes are filled and the listener
 * runs for whichever of reply, failure or timeout wins the CAS on {@code state}; a late reply writes into its own
 * {@link BatchReply}, never into the caller's codes. A NOSCRIPT reply hands the batch to a fresh EVAL call with the
 * time left.
 */
final class BatchCall extends AsyncCommand<byte[], byte[], BatchReply> implements TimerTask
{
    private static final int PENDING = 0;
    private static final int DONE = 1;
    private static final AtomicIntegerFieldUpdater<BatchCall> STATE =
        AtomicIntegerFieldUpdater.newUpdater(BatchCall.class, "state");

    private final RedisRateLimiter limiter;
    private final BatchReply reply;
    private final byte[][] redisKeys;
    private final long[] incrementsUs;
    private final long[] permits;
    private final int count;
    private final long nowUs;
    private final long[] codes;
    private final BatchListener listener;
    private final long deadlineNs;
    private final boolean bySha;
    private volatile int state;
    private Timeout timeout;

    private BatchCall(
        final RedisRateLimiter limiter, final BatchReply reply, final boolean bySha, final byte[][] redisKeys,
        final long[] incrementsUs, final long[] permits, final int count, final long nowUs, final long[] codes,
        final BatchListener listener, final long deadlineNs)
    {
        super(new Command<>(bySha ? CommandType.EVALSHA : CommandType.EVAL, reply,
            limiter.batchArgs(bySha, redisKeys, incrementsUs, count, nowUs)));
        this.limiter = limiter;
        this.reply = reply;
        this.bySha = bySha;
        this.redisKeys = redisKeys;
        this.incrementsUs = incrementsUs;
        this.permits = permits;
        this.count = count;
        this.nowUs = nowUs;
        this.codes = codes;
        this.listener = listener;
        this.deadlineNs = deadlineNs;
    }

    static void start(
        final RedisRateLimiter limiter, final byte[][] redisKeys, final long[] incrementsUs, final long[] permits,
        final int count, final long nowUs, final long[] codes, final BatchListener listener)
    {
        final BatchReply reply = new BatchReply(count);
        final FallbackCause refusal = limiter.refusal();
        if (null != refusal)
        {
            reply.cause = refusal;
            listener.onBatch(limiter.answerBatch(reply, redisKeys, incrementsUs, permits, count, nowUs, codes));
            return;
        }
        launch(new BatchCall(limiter, reply, true, redisKeys, incrementsUs, permits, count, nowUs, codes, listener,
            System.nanoTime() + limiter.timeoutNs));
    }

    private static void launch(final BatchCall call)
    {
        try
        {
            call.timeout = SharedTimer.schedule(call, call.deadlineNs - System.nanoTime());
        }
        catch (final RuntimeException ex)
        {
            call.failed(FallbackCause.ERROR); // the timer refused: the JVM is shutting down
            return;
        }
        try
        {
            call.limiter.connection.dispatch(call);
        }
        catch (final RuntimeException ex)
        {
            call.failed(FallbackCause.ERROR);
        }
    }

    /** The timeout. */
    public void run(final Timeout t)
    {
        if (STATE.compareAndSet(this, PENDING, DONE))
        {
            super.cancel(false);
            reply.cause = FallbackCause.TIMEOUT;
            deliver();
        }
    }

    protected void completeResult()
    {
        super.completeResult();
        if (!STATE.compareAndSet(this, PENDING, DONE))
        {
            return;
        }
        cancelTimeout();
        if (reply.noScript() && bySha)
        {
            limiter.countReload();
            reply.reset();
            launch(new BatchCall(limiter, reply, false, redisKeys, incrementsUs, permits, count, nowUs, codes,
                listener, deadlineNs));
            return;
        }
        if (!reply.complete())
        {
            reply.cause = FallbackCause.ERROR;
        }
        deliver();
    }

    public boolean completeExceptionally(final Throwable ex)
    {
        final boolean first = super.completeExceptionally(ex);
        failed(ex instanceof io.lettuce.core.RedisCommandTimeoutException ? FallbackCause.TIMEOUT : FallbackCause.ERROR);
        return first;
    }

    public boolean cancel(final boolean mayInterruptIfRunning)
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

    private void deliver()
    {
        limiter.settleBatch(reply.cause);
        listener.onBatch(limiter.answerBatch(reply, redisKeys, incrementsUs, permits, count, nowUs, codes));
    }
}
