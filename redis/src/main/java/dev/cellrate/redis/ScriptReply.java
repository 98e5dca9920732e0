package dev.cellrate.redis;

/**
 * The script's reply for one key, {@code {now_us, value}} or, with a lease, {@code {now_us, value, granted}},
 * parsed straight into longs, with no boxing and no list: Lettuce needs one output object per command, and this
 * is it. The value is {@code TAT' - now} when admitted, {@code -retry_after} when rejected, 0 for a key error
 * ({@code gcra.lua} says so in its header); the TAT of a rejection follows from the increment this reply was made
 * for.
 */
final class ScriptReply extends ScriptOutput<ScriptReply>
{
    /** The increment the call asked for (&micro;s): a rejection's TAT is {@code now + ceiling - increment + retry}. */
    final long incrementUs;
    long nowUs;
    long value;
    long granted;

    ScriptReply(final long incrementUs)
    {
        output = this;
        this.incrementUs = incrementUs;
    }

    public void set(final long integer)
    {
        switch (count++)
        {
            case 0 -> nowUs = integer;
            case 1 -> value = integer;
            case 2 -> granted = integer;
            default ->
            {
            }
        }
    }

    private boolean arrived()
    {
        return null == error && (2 == count || 3 == count);
    }

    /**
     * @return true iff the whole reply arrived, no error, and Redis decided (admitted or rejected).
     */
    boolean decided()
    {
        return arrived() && 0 != value;
    }

    /** @return true iff Redis decided and admitted. */
    boolean admitted()
    {
        return value > 0;
    }

    /** @return 0 when admitted, else the retry-after (&micro;s). */
    long retryAfterUs()
    {
        return value > 0 ? 0 : -value;
    }

    /**
     * @param ceilingUs the limit's ceiling, tau' + T' (&micro;s).
     * @return the TAT after the decision (&micro;s): the new one when admitted, the unchanged one when rejected.
     */
    long tatAfterUs(final long ceilingUs)
    {
        return value > 0 ? nowUs + value : nowUs + ceilingUs - incrementUs - value;
    }

    /**
     * @return true iff Redis answered, but about this key alone: the script's key-error reply (the key holds
     * another type, or a value that is not a TAT), or a {@code WRONGTYPE} error reply.
     */
    boolean keyError()
    {
        return null == error ? arrived() && 0 == value : error.startsWith("WRONGTYPE");
    }

    boolean usable()
    {
        return arrived() || keyError();
    }

    void reset()
    {
        super.reset();
        value = 0;
        granted = 0;
    }
}
