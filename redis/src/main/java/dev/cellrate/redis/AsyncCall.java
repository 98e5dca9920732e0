package dev.cellrate.redis;

import dev.cellrate.Decision;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandType;

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
final class AsyncCall extends ScriptCall<ScriptReply>
{
    private final byte[] redisKey;
    private final long permits;
    private final long incrementUs;
    private final long lease;
    private final long nowUs;
    private final Decision decision;
    private final DecisionListener listener;
    private final LeaseListener leaseListener;

    private AsyncCall(
        final RedisRateLimiter limiter, final ScriptReply reply, final boolean bySha, final byte[] redisKey,
        final long permits, final long incrementUs, final long lease, final long nowUs, final Decision decision,
        final DecisionListener listener, final LeaseListener leaseListener, final long deadlineNs)
    {
        super(new Command<>(bySha ? CommandType.EVALSHA : CommandType.EVAL, reply,
            limiter.link.args.one(bySha, redisKey, incrementUs, lease, nowUs)), reply, limiter, bySha, deadlineNs);
        this.redisKey = redisKey;
        this.permits = permits;
        this.incrementUs = incrementUs;
        this.lease = lease;
        this.nowUs = nowUs;
        this.decision = decision;
        this.listener = listener;
        this.leaseListener = leaseListener;
    }

    /**
     * Start a decision: the breaker's verdict, then EVALSHA.
     */
    static void start(
        final RedisRateLimiter limiter, final byte[] redisKey, final long permits, final long incrementUs,
        final long lease, final long nowUs, final Decision decision, final DecisionListener listener,
        final LeaseListener leaseListener)
    {
        final ScriptReply reply = new ScriptReply(incrementUs);
        final FallbackCause refusal = limiter.link.refusal();
        if (null != refusal)
        {
            reply.cause = refusal;
            finish(limiter, reply, redisKey, permits, nowUs, decision, listener, leaseListener);
            return;
        }
        launch(new AsyncCall(limiter, reply, true, redisKey, permits, incrementUs, lease, nowUs, decision,
            listener, leaseListener, System.nanoTime() + limiter.link.timeoutNs));
    }

    ScriptCall<ScriptReply> byEval()
    {
        return new AsyncCall(limiter, reply, false, redisKey, permits, incrementUs, lease, nowUs, decision,
            listener, leaseListener, deadlineNs);
    }

    void deliver()
    {
        limiter.link.settle(reply.cause);
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
        listener.onDecision(limiter.verdicts.answer(reply, redisKey, permits, nowUs, decision));
    }

    /**
     * Internal: the two-tier front's view of a finished lease call.
     */
    interface LeaseListener
    {
        void onLease(ScriptReply reply);
    }
}
