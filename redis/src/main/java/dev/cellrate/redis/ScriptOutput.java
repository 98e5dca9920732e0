package dev.cellrate.redis;

import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.CommandOutput;

import java.nio.ByteBuffer;

/**
 * What the script's replies share: integers only (anything else leaves the reply incomplete), the NOSCRIPT
 * check, the reset before a retry by EVAL, and the cause when no usable reply came.
 *
 * @param <T> the reply type itself.
 */
abstract class ScriptOutput<T extends ScriptOutput<T>> extends CommandOutput<byte[], byte[], T>
{
    FallbackCause cause;
    int count;

    ScriptOutput()
    {
        super(ByteArrayCodec.INSTANCE, null);
    }

    public void set(final ByteBuffer bytes)
    {
        // The script replies integers only; anything else leaves the reply incomplete (a failure).
        count = Integer.MIN_VALUE;
    }

    /**
     * @return true iff the reply is one the caller can be answered from.
     */
    abstract boolean usable();

    /**
     * @return true iff Redis answered NOSCRIPT (its script cache no longer holds ours).
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
