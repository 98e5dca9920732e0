package dev.cellrate.redis;

import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandType;

/**
 * The decisions of concurrent callers sent together by a {@link Coalescer}: one script call (the
 * batch form of the script; each key at its caller's time or the server's) that decides each key in order on its
 * own cell, exactly as the one-key
 * calls one after the other would. On the reply, each decision whose caller still waits gets its own key's
 * answer (a synchronous caller is woken, an asynchronous one called back on this I/O thread); on a failure or the call's timeout, its cause. A NOSCRIPT reply hands the call to EVAL with the time
 * left, as for any other call.
 */
final class CoalescedCall extends ScriptCall<CoalescedReply>
{
    private final Coalescer coalescer;
    private final PendingDecision[] decisions;
    private final byte[][] redisKeys;
    private final long[] incrementsUs;

    private CoalescedCall(
        final RedisRateLimiter limiter, final Coalescer coalescer, final CoalescedReply reply, final boolean bySha,
        final PendingDecision[] decisions, final byte[][] redisKeys, final long[] incrementsUs, final long deadlineNs)
    {
        super(new Command<>(bySha ? CommandType.EVALSHA : CommandType.EVAL, reply,
            limiter.link.args.coalesced(bySha, decisions, redisKeys, incrementsUs)),
            reply, limiter, bySha, deadlineNs);
        this.coalescer = coalescer;
        this.decisions = decisions;
        this.redisKeys = redisKeys;
        this.incrementsUs = incrementsUs;
    }

    static void start(final RedisRateLimiter limiter, final Coalescer coalescer, final PendingDecision[] decisions)
    {
        final int n = decisions.length;
        final byte[][] redisKeys = new byte[n][];
        final long[] incrementsUs = new long[n];
        for (int i = 0; i < n; i++)
        {
            redisKeys[i] = decisions[i].redisKey;
            incrementsUs[i] = decisions[i].incrementUs;
        }
        launch(new CoalescedCall(limiter, coalescer, new CoalescedReply(n), true, decisions, redisKeys, incrementsUs,
            System.nanoTime() + limiter.link.timeoutNs));
    }

    ScriptCall<CoalescedReply> byEval()
    {
        return new CoalescedCall(limiter, coalescer, reply, false, decisions, redisKeys, incrementsUs, deadlineNs);
    }

    void deliver()
    {
        if (null == reply.cause)
        {
            limiter.link.countRoundTrip();
        }
        final boolean complete = null == reply.cause && reply.complete();
        RuntimeException thrown = null;
        boolean synchronous = false;
        for (int i = 0; i < decisions.length; i++)
        {
            final PendingDecision decision = decisions[i];
            if (decision.claim())
            {
                synchronous |= decision instanceof BlockingDecision;
                if (complete)
                {
                    reply.copyTo(i, decision.nowUs, decision.reply);
                }
                else
                {
                    decision.reply.cause = null == reply.cause ? FallbackCause.ERROR : reply.cause;
                }
                try
                {
                    decision.release();
                }
                catch (final RuntimeException ex) // a listener threw: the other callers are still answered
                {
                    thrown = null == thrown ? ex : thrown;
                }
            }
        }
        if (synchronous)
        {
            Thread.yield(); // the callers answered here are runnable: let them queue their next decisions first
        }
        coalescer.sent(); // after the answers: callers that come back meanwhile join the next combined call
        if (null != thrown)
        {
            throw thrown;
        }
    }
}
