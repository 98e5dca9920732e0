package dev.cellrate.redis;

import dev.cellrate.Result;

import java.util.Arrays;

/**
 * A {@link RedisRateLimiter}'s batch calls: the arguments checked, the keys encoded with their increments (a key
 * that can never conform is answered {@link Result#NEVER} at once and skipped by the script), then one script call
 * for the rest, synchronous ({@link RedisLink#callBatch}) or not ({@link BatchCall}).
 */
final class Batches
{
    private final RedisRateLimiter limiter;
    private final byte[] prefix;
    private final MicrosLimit limit;

    Batches(final RedisRateLimiter limiter, final byte[] prefix, final MicrosLimit limit)
    {
        this.limiter = limiter;
        this.prefix = prefix;
        this.limit = limit;
    }

    int decide(final CharSequence[] keys, final long[] permits, final int count, final long nowUs, final long[] codes)
    {
        check(keys, permits, count, codes);
        final byte[][] redisKeys = new byte[count][];
        final long[] incrementsUs = new long[count];
        if (0 == prepare(keys, permits, count, nowUs, codes, redisKeys, incrementsUs))
        {
            return 0;
        }
        return limiter.verdicts.answerBatch(limiter.link.callBatch(redisKeys, incrementsUs, count, nowUs), redisKeys,
            incrementsUs, permits, count, nowUs, codes);
    }

    void decideAsync(
        final CharSequence[] keys, final long[] permits, final int count, final long nowUs, final long[] codes,
        final BatchListener listener)
    {
        check(keys, permits, count, codes);
        final byte[][] redisKeys = new byte[count][];
        final long[] incrementsUs = new long[count];
        if (0 == prepare(keys, permits, count, nowUs, codes, redisKeys, incrementsUs))
        {
            listener.onBatch(0);
            return;
        }
        BatchCall.start(limiter, redisKeys, incrementsUs, Arrays.copyOf(permits, count), count, nowUs, codes, listener);
    }

    private static void check(final CharSequence[] keys, final long[] permits, final int count, final long[] codes)
    {
        if (count < 0 || count > RedisRateLimiter.MAX_BATCH || count > keys.length || count > permits.length ||
            count > codes.length)
        {
            throw new IllegalArgumentException("count must be in [0, " + Math.min(RedisRateLimiter.MAX_BATCH,
                Math.min(keys.length, Math.min(permits.length, codes.length))) + "] but was " + count);
        }
    }

    /**
     * Encode the keys and their increments; a key that can never conform gets {@link Result#NEVER} now and
     * increment 0 (the script skips it).
     *
     * @return keys to send.
     */
    private int prepare(
        final CharSequence[] keys, final long[] permits, final int count, final long nowUs, final long[] codes,
        final byte[][] redisKeys, final long[] incrementsUs)
    {
        int toSend = 0;
        for (int i = 0; i < count; i++)
        {
            redisKeys[i] = RedisKeys.encode(prefix, keys[i]);
            final long incrementUs = limit.incrementUs(permits[i]);
            if (incrementUs < 1 || Long.MIN_VALUE == nowUs)
            {
                codes[i] = Result.NEVER;
            }
            else
            {
                incrementsUs[i] = incrementUs;
                toSend++;
            }
        }
        return toSend;
    }
}
