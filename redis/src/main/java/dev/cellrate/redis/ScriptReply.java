package dev.cellrate.redis;

import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.codec.ByteArrayCodec;

import java.nio.ByteBuffer;

/**
 * The script's reply for one key, {@code {now_us, retry_after_us, tat_after_us, granted}}, parsed straight into
 * longs, with no boxing and no list: Lettuce needs one output object per command, and this is it.
 */
final class ScriptReply extends CommandOutput<byte[], byte[], ScriptReply>
{
    long retryAfterUs = -1;
    long tatAfterUs;
    long nowUs;
    long granted;
    FallbackCause cause;
    private int count;

    ScriptReply()
    {
        super(ByteArrayCodec.INSTANCE, null);
        output = this;
    }

    public void set(final long integer)
    {
        switch (count++)
        {
            case 0 -> nowUs = integer;
            case 1 -> retryAfterUs = integer;
            case 2 -> tatAfterUs = integer;
            case 3 -> granted = integer;
            default ->
            {
            }
        }
    }

    public void set(final ByteBuffer bytes)
    {
        // The script replies integers only; anything else leaves the reply incomplete (a failure).
        count = Integer.MIN_VALUE;
    }

    /**
     * @return true iff four integers arrived and no error.
     */
    boolean complete4()
    {
        return 4 == count && null == error && retryAfterUs >= 0;
    }

    /**
     * @return true iff Redis answered, but about this key alone: the script's key-error reply (the key holds
     * another type, or a value that is not a TAT), or a {@code WRONGTYPE} error reply.
     */
    boolean keyError()
    {
        return null == error ? 4 == count && -1 == retryAfterUs : error.startsWith("WRONGTYPE");
    }

    /**
     * @return true iff Redis answered NOSCRIPT (its script cache no longer holds ours).
     */
    boolean noScript()
    {
        return null != error && error.startsWith("NOSCRIPT");
    }

    void reset()
    {
        retryAfterUs = -1;
        count = 0;
        error = null;
        cause = null;
    }
}
