package dev.cellrate.redis;

import dev.cellrate.Decision;

/**
 * A {@link RedisRateLimiter}'s one-key decisions, synchronous and asynchronous: a cost that can never conform is
 * answered at once; otherwise the decision goes to Redis with those of concurrent callers ({@link Coalescer}), or
 * alone when coalescing is off, and the reply (or its cause) becomes the caller's code ({@link Verdicts}).
 */
final class KeyDecisions
{
    private final RedisRateLimiter limiter;
    /** Null when each decision goes as its own command. */
    private final Coalescer coalescer;

    KeyDecisions(final RedisRateLimiter limiter, final Coalescer coalescer)
    {
        this.limiter = limiter;
        this.coalescer = coalescer;
    }

    long decide(final byte[] redisKey, final long permits, final long nowUs, final Decision decision)
    {
        final long incrementUs = limiter.limit.incrementUs(permits);
        if (incrementUs < 1 || Long.MIN_VALUE == nowUs)
        {
            return limiter.verdicts.never(nowUs, decision);
        }
        final ScriptReply reply = null != coalescer ?
            callCoalesced(redisKey, incrementUs, nowUs) : limiter.link.call(redisKey, incrementUs, 0, nowUs);
        return limiter.verdicts.answer(reply, redisKey, permits, nowUs, decision);
    }

    /**
     * One synchronous decision sent with those of concurrent callers ({@link Coalescer}), bounded by the timeout.
     *
     * @return the reply; when not {@link ScriptReply#decided()} its {@code cause} says why.
     */
    private ScriptReply callCoalesced(final byte[] redisKey, final long incrementUs, final long nowUs)
    {
        final long startNs = System.nanoTime();
        final FallbackCause refusal = limiter.link.refusal();
        if (null != refusal)
        {
            final ScriptReply reply = new ScriptReply(incrementUs);
            reply.cause = refusal;
            return reply;
        }
        final BlockingDecision pending = new BlockingDecision(redisKey, incrementUs, nowUs, Thread.currentThread());
        coalescer.submit(pending);
        pending.await(startNs + limiter.link.timeoutNs);
        limiter.link.judge(pending.reply);
        return pending.reply;
    }

    /** The code of a coalesced decision whose reply (or cause) is in: judged for the breaker, then answered. */
    long finish(
        final ScriptReply reply, final byte[] redisKey, final long permits, final long nowUs, final Decision decision)
    {
        limiter.link.judge(reply);
        return limiter.verdicts.answer(reply, redisKey, permits, nowUs, decision);
    }

    void decideAsync(
        final byte[] redisKey, final long permits, final long nowUs, final Decision decision,
        final DecisionListener listener)
    {
        final long incrementUs = limiter.limit.incrementUs(permits);
        if (incrementUs < 1 || Long.MIN_VALUE == nowUs)
        {
            listener.onDecision(limiter.verdicts.never(nowUs, decision));
            return;
        }
        if (null != coalescer)
        {
            final FallbackCause refusal = limiter.link.refusal();
            if (null != refusal)
            {
                final ScriptReply reply = new ScriptReply(incrementUs);
                reply.cause = refusal;
                listener.onDecision(limiter.verdicts.answer(reply, redisKey, permits, nowUs, decision));
                return;
            }
            new ListenedDecision(this, limiter.link.timeoutNs, redisKey, permits, incrementUs, nowUs, decision, listener)
                .start(coalescer);
            return;
        }
        AsyncCall.start(limiter, redisKey, permits, incrementUs, 0, nowUs, decision, listener, null);
    }
}
