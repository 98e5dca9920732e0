package dev.cellrate.redis;

import dev.cellrate.Decision;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandType;

import io.netty.util.Timeout;
import io.netty.util.TimerTask;

import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * One asynchronous decision: the Lettuce command itself (Lettuce needs one command and one output per call;
 * this object is both the command's future and the decision's state, so nothing else of ours is allocated),
 * and its timeout on the {@link SharedTimer} (one wheel entry per call, scheduled and cancelled without a lock;
 * Lettuce's own command timeout, if the client enables it, is the client's and may be longer). Nothing here
 * takes a lock or blocks, so concurrent callers' commands go out together on the one connection.
 * <p>
 * Exactly once: the listener runs for whichever of reply, failure or timeout wins the CAS on {@code state};
 * a NOSCRIPT reply hands the decision to a fresh EVAL call with the time left.
 */
final class AsyncCall extends AsyncCommand<byte[], byte[], ScriptReply> implements TimerTask
{
    private static final int PENDING = 0;
    private static final int DONE = 1;
    private static final AtomicIntegerFieldUpdater<AsyncCall> STATE =
        AtomicIntegerFieldUpdater.newUpdater(AsyncCall.class, "state");

    private final RedisRateLimiter limiter;
    private final ScriptReply reply;
    private final byte[] redisKey;
    private final long permits;
    private final long incrementUs;
    private final long lease;
    private final long nowUs;
    private final Decision decision;
    private final DecisionListener listener;
    private final LeaseListener leaseListener;
    private final long deadlineNs;
    private final boolean bySha;
    private volatile int state;
    private Timeout timeout;

    private AsyncCall(
        final RedisRateLimiter limiter, final ScriptReply reply, final boolean bySha, final byte[] redisKey,
        final long permits, final long incrementUs, final long lease, final long nowUs, final Decision decision,
        final DecisionListener listener, final LeaseListener leaseListener, final long deadlineNs)
    {
        super(new Command<>(bySha ? CommandType.EVALSHA : CommandType.EVAL, reply,
            limiter.args(bySha, redisKey, incrementUs, lease, nowUs)));
        this.limiter = limiter;
        this.reply = reply;
        this.bySha = bySha;
        this.redisKey = redisKey;
        this.permits = permits;
        this.incrementUs = incrementUs;
        this.lease = lease;
        this.nowUs = nowUs;
        this.decision = decision;
        this.listener = listener;
        this.leaseListener = leaseListener;
        this.deadlineNs = deadlineNs;
    }

    /**
     * Start a decision: the breaker's verdict, then EVALSHA.
     */
    static void start(
        final RedisRateLimiter limiter, final byte[] redisKey, final long permits, final long incrementUs,
        final long lease, final long nowUs, final Decision decision, final DecisionListener listener,
        final LeaseListener leaseListener)
    {
        final ScriptReply reply = new ScriptReply();
        final FallbackCause refusal = limiter.refusal();
        if (null != refusal)
        {
            reply.cause = refusal;
            finish(limiter, reply, redisKey, permits, nowUs, decision, listener, leaseListener);
            return;
        }
        launch(new AsyncCall(limiter, reply, true, redisKey, permits, incrementUs, lease, nowUs, decision,
            listener, leaseListener, System.nanoTime() + limiter.timeoutNs));
    }

    private static void launch(final AsyncCall call)
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
            launch(new AsyncCall(limiter, reply, false, redisKey, permits, incrementUs, lease, nowUs, decision,
                listener, leaseListener, deadlineNs));
            return;
        }
        if (!reply.complete4() && !reply.keyError())
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
        limiter.settle(reply);
        finish(limiter, reply, redisKey, permits, nowUs, decision, listener, leaseListener);
    }

    private static void finish(
        final RedisRateLimiter limiter, final ScriptReply reply, final byte[] redisKey, final long permits,
        final long nowUs, final Decision decision, final DecisionListener listener, final LeaseListener leaseListener)
    {
        if (null != leaseListener)
        {
            leaseListener.onLease(reply);
            return;
        }
        listener.onDecision(limiter.answer(reply, redisKey, permits, nowUs, decision));
    }

    /**
     * Internal: the two-tier front's view of a finished lease call.
     */
    interface LeaseListener
    {
        void onLease(ScriptReply reply);
    }
}
