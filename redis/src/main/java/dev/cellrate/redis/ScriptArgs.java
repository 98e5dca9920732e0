package dev.cellrate.redis;

import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.protocol.CommandArgs;

/**
 * The arguments of {@code gcra.lua} (its header names each one): the script by SHA-1 or by source, the cells as
 * keys, then the limit, the lease, the time, the extra expiry and the increments (one for every key, or one per
 * key), for one key, a batch, or the decisions of concurrent callers sent together.
 */
final class ScriptArgs
{
    /** The script's time argument when each key comes with its own time. */
    static final long PER_KEY_TIME = -2;

    private final long ceilingUs;
    private final long emissionIntervalUs;
    private final long extraTtlMs;

    ScriptArgs(final MicrosLimit limit, final long extraTtlMs)
    {
        this.ceilingUs = limit.ceilingUs();
        this.emissionIntervalUs = limit.emissionIntervalUs();
        this.extraTtlMs = extraTtlMs;
    }

    /** One key, with {@code lease} extra intervals to grant if it conforms (0: a plain decision). */
    CommandArgs<byte[], byte[]> one(
        final boolean bySha, final byte[] redisKey, final long incrementUs, final long lease, final long nowUs)
    {
        return head(bySha, 1).addKey(redisKey)
            .add(ceilingUs).add(emissionIntervalUs).add(lease).add(nowUs).add(extraTtlMs).add(incrementUs);
    }

    /**
     * {@code count} keys at one time; an increment of 0 skips its key. One increment for every key when they are
     * all the same (the common case: one argument instead of {@code count}), else one per key.
     */
    CommandArgs<byte[], byte[]> batch(
        final boolean bySha, final byte[][] redisKeys, final long[] incrementsUs, final int count, final long nowUs)
    {
        final CommandArgs<byte[], byte[]> args = head(bySha, count);
        for (int i = 0; i < count; i++)
        {
            args.addKey(redisKeys[i]);
        }
        args.add(ceilingUs).add(emissionIntervalUs).add(0).add(nowUs).add(extraTtlMs);
        final long firstUs = incrementsUs[0];
        boolean shared = firstUs > 0;
        for (int i = 1; i < count && shared; i++)
        {
            shared = incrementsUs[i] == firstUs;
        }
        if (shared)
        {
            return args.add(firstUs);
        }
        args.add(0);
        for (int i = 0; i < count; i++)
        {
            args.add(incrementsUs[i]);
        }
        return args;
    }

    /**
     * The arguments of a combined call: the batch form, at one time when every decision has the same one (the
     * server's or a caller's), else each key at its own ({@link #PER_KEY_TIME}, then one time per key).
     */
    CommandArgs<byte[], byte[]> coalesced(
        final boolean bySha, final PendingDecision[] decisions, final byte[][] redisKeys, final long[] incrementsUs)
    {
        final int count = decisions.length;
        final long firstUs = decisions[0].nowUs;
        boolean oneTime = true;
        for (int i = 1; i < count && oneTime; i++)
        {
            oneTime = decisions[i].nowUs == firstUs;
        }
        final CommandArgs<byte[], byte[]> args =
            batch(bySha, redisKeys, incrementsUs, count, oneTime ? firstUs : PER_KEY_TIME);
        if (!oneTime)
        {
            for (int i = 0; i < count; i++)
            {
                args.add(decisions[i].nowUs);
            }
        }
        return args;
    }

    private static CommandArgs<byte[], byte[]> head(final boolean bySha, final int keys)
    {
        return new CommandArgs<>(ByteArrayCodec.INSTANCE).add(bySha ? GcraScript.SHA1_HEX : GcraScript.SOURCE).add(keys);
    }
}
