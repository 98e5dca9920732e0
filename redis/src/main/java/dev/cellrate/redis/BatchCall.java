package dev.cellrate.redis;

import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandType;

/**
 * One asynchronous batch: the Lettuce command itself and the batch's state, with its timeout on the
 * {@link SharedTimer}, as {@link AsyncCall} is for one key. Exactly once: the codes are filled and the listener
 * runs for whichever of reply, failure or timeout wins the CAS on {@code state}; a late reply writes into its own
 * {@link BatchReply}, never into the caller's codes. A NOSCRIPT reply hands the batch to a fresh EVAL call with the
 * time left.
 */
final class BatchCall extends ScriptCall<BatchReply>
{
    private final byte[][] redisKeys;
    private final long[] incrementsUs;
    private final long[] permits;
    private final int count;
    private final long nowUs;
    private final long[] codes;
    private final BatchListener listener;

    private BatchCall(
        final RedisRateLimiter limiter, final BatchReply reply, final boolean bySha, final byte[][] redisKeys,
        final long[] incrementsUs, final long[] permits, final int count, final long nowUs, final long[] codes,
        final BatchListener listener, final long deadlineNs)
    {
        super(new Command<>(bySha ? CommandType.EVALSHA : CommandType.EVAL, reply,
            limiter.link.args.batch(bySha, redisKeys, incrementsUs, count, nowUs)), reply, limiter, bySha, deadlineNs);
        this.redisKeys = redisKeys;
        this.incrementsUs = incrementsUs;
        this.permits = permits;
        this.count = count;
        this.nowUs = nowUs;
        this.codes = codes;
        this.listener = listener;
    }

    static void start(
        final RedisRateLimiter limiter, final byte[][] redisKeys, final long[] incrementsUs, final long[] permits,
        final int count, final long nowUs, final long[] codes, final BatchListener listener)
    {
        final BatchReply reply = new BatchReply(count);
        final FallbackCause refusal = limiter.link.refusal();
        if (null != refusal)
        {
            reply.cause = refusal;
            listener.onBatch(limiter.verdicts.answerBatch(reply, redisKeys, incrementsUs, permits, count, nowUs, codes));
            return;
        }
        launch(new BatchCall(limiter, reply, true, redisKeys, incrementsUs, permits, count, nowUs, codes, listener,
            System.nanoTime() + limiter.link.timeoutNs));
    }

    ScriptCall<BatchReply> byEval()
    {
        return new BatchCall(limiter, reply, false, redisKeys, incrementsUs, permits, count, nowUs, codes,
            listener, deadlineNs);
    }

    void deliver()
    {
        limiter.link.settle(reply.cause);
        listener.onBatch(limiter.verdicts.answerBatch(reply, redisKeys, incrementsUs, permits, count, nowUs, codes));
    }
}
