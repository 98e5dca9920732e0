package dev.cellrate.redis;

import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.CommandOutput;

import java.nio.ByteBuffer;

/**
 * The script's reply for a batch of n keys, {@code {now_us, then per key: retry_after_us, tat_after_us,
 * granted}}, parsed straight into one {@code long[n]} of retry-afters (the only allocation, sized by the batch).
 * It belongs to its command, never to the caller: a reply that arrives after its timeout writes here, not into
 * the caller's array.
 */
final class BatchReply extends CommandOutput<byte[], byte[], BatchReply>
{
    final long[] retryAfterUs;
    FallbackCause cause;
    private int count;

    BatchReply(final int keys)
    {
        super(ByteArrayCodec.INSTANCE, null);
        output = this;
        retryAfterUs = new long[keys];
    }

    public void set(final long integer)
    {
        final int index = count++ - 1;
        if (index >= 0 && index < 3 * retryAfterUs.length && 0 == index % 3)
        {
            retryAfterUs[index / 3] = integer;
        }
    }

    public void set(final ByteBuffer bytes)
    {
        count = Integer.MIN_VALUE; // the script replies integers only
    }

    /**
     * @return true iff the whole reply arrived and no error.
     */
    boolean complete()
    {
        return null == error && 1 + 3 * retryAfterUs.length == count;
    }

    /**
     * @return true iff Redis answered NOSCRIPT.
     */
    boolean noScript()
    {
        return null != error && error.startsWith("NOSCRIPT");
    }

    void reset()
    {
        count = 0;
        error = null;
        cause = null;
    }
}
