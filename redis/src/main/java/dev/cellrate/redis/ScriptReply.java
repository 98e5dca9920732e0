package dev.cellrate.redis;

/**
 * The script's reply for one key, {@code {now_us, retry_after_us, tat_after_us, granted}}, parsed straight into
 * longs, with no boxing and no list: Lettuce needs one output object per command, and this is it.
 */
final class ScriptReply extends ScriptOutput<ScriptReply>
{
    long retryAfterUs = -1;
    long tatAfterUs;
    long nowUs;
    long granted;

    ScriptReply()
    {
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

    boolean usable()
    {
        return complete4() || keyError();
    }

    void reset()
    {
        super.reset();
        retryAfterUs = -1;
    }
}
