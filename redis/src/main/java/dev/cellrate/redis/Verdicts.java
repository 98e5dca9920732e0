package dev.cellrate.redis;

import dev.cellrate.Decision;
import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import org.agrona.concurrent.NanoClock;

import java.util.concurrent.atomic.LongAdder;

/**
 * The codes a {@link RedisRateLimiter} answers: Redis's decision from a script reply, a key's error, or the
 * {@link FailPolicy}'s answer when Redis could not decide (counted and logged at a bounded rate by the
 * {@link FallbackLog}; under {@link FailPolicy#LOCAL}, the local cell's own codes). Fills the caller's
 * {@link Decision} when it gives one.
 */
final class Verdicts
{
    private static final long NS_PER_US = 1000;

    private final Limit effective;
    private final long ceilingUs;
    private final FailPolicy policy;
    private final KeyedRateLimiter local;
    private final NanoClock localClock;
    private final FallbackLog log;
    private final LongAdder keyErrors = new LongAdder();

    Verdicts(final RedisRateLimiterBuilder b, final MicrosLimit limit)
    {
        this.effective = limit.effective();
        this.ceilingUs = limit.ceilingUs();
        this.policy = b.policy;
        this.local = FailPolicy.LOCAL == b.policy ? KeyedRateLimiter.builder(b.limit).expectedKeys(b.localKeys)
            .initialPermits(Math.min(b.localInitialPermits, b.limit.burst())).build() : null;
        this.localClock = b.localClock;
        this.log = new FallbackLog(b.name, b.policy, b.logIntervalNs);
    }

    /**
     * The code of a finished script call: Redis's decision, the key's error, or the fail policy's answer.
     */
    long answer(
        final ScriptReply reply, final byte[] redisKey, final long permits, final long nowUs, final Decision decision)
    {
        if (reply.decided())
        {
            return fromReply(reply, decision);
        }
        if (null == reply.cause && reply.keyError())
        {
            keyErrors.increment();
            if (null != decision)
            {
                decision.setOutcome(RedisRateLimiter.REJECTED_KEY_ERROR, 0, 0, effective.burst());
            }
            return RedisRateLimiter.REJECTED_KEY_ERROR;
        }
        return fallback(reply.cause, redisKey, permits, nowUs, decision);
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
                final long value = reply.values[i];
                if (0 != value)
                {
                    code = value > 0 ? Result.ADMITTED : -value * NS_PER_US;
                }
                else
                {
                    keyErrors.increment();
                    code = RedisRateLimiter.REJECTED_KEY_ERROR;
                }
            }
            codes[i] = code;
            admitted += Result.isAdmitted(code) ? 1 : 0;
        }
        return admitted;
    }

    long fromReply(final ScriptReply reply, final Decision decision)
    {
        final long code = reply.admitted() ? Result.ADMITTED : reply.retryAfterUs() * NS_PER_US;
        if (null != decision)
        {
            decision.set(code, Math.max(0, reply.tatAfterUs(ceilingUs) - reply.nowUs) * NS_PER_US, effective);
        }
        return code;
    }

    long never(final long nowUs, final Decision decision)
    {
        if (null != decision)
        {
            decision.set(Result.NEVER, 0, effective);
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
        final long nowNs = RedisRateLimiter.SERVER_TIME == nowUs ? localClock.nanoTime() : nowUs * NS_PER_US;
        switch (policy)
        {
            case OPEN:
                if (null != decision)
                {
                    decision.set(Result.ADMITTED, 0, effective);
                }
                return RedisRateLimiter.ADMITTED_FAIL_OPEN;
            case CLOSED:
                if (null != decision)
                {
                    decision.setOutcome(RedisRateLimiter.REJECTED_FAIL_CLOSED, 0, 0, effective.burst());
                }
                return RedisRateLimiter.REJECTED_FAIL_CLOSED;
            default:
                return null == decision ?
                    local.tryAcquire(redisKey, 0, redisKey.length, permits, nowNs) :
                    local.tryAcquire(redisKey, 0, redisKey.length, permits, nowNs, decision);
        }
    }

    NanoClock localClock()
    {
        return localClock;
    }

    FailPolicy policy()
    {
        return policy;
    }

    long keyErrors()
    {
        return keyErrors.sum();
    }

    FallbackLog log()
    {
        return log;
    }
}
