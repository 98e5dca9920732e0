package dev.cellrate.redis;

/**
 * The script's reply to a combined call of n decisions, {@code {now_us, then one value per key}} ({@code gcra.lua}
 * says what a value means), parsed into one {@code long[n]} that belongs to the command: the callers' own
 * replies are filled from it only for the decisions whose callers still wait ({@link PendingDecision#claim()}).
 */
final class CoalescedReply extends ScriptOutput<CoalescedReply>
{
    long nowUs;
    final long[] perKey;

    CoalescedReply(final int keys)
    {
        output = this;
        perKey = new long[keys];
    }

    public void set(final long integer)
    {
        final int index = count++ - 1;
        if (index < 0)
        {
            nowUs = integer;
        }
        else if (index < perKey.length)
        {
            perKey[index] = integer;
        }
    }

    /**
     * @return true iff the whole reply arrived and no error.
     */
    boolean complete()
    {
        return null == error && 1 + perKey.length == count;
    }

    boolean usable()
    {
        return complete();
    }

    /**
     * Fill the caller's reply of decision {@code i} as the one-key call's reply would read: the time it was
     * decided at is the caller's own, or the server's ({@code callerNowUs} = {@link RedisRateLimiter#SERVER_TIME}).
     */
    void copyTo(final int i, final long callerNowUs, final ScriptReply to)
    {
        to.set(RedisRateLimiter.SERVER_TIME == callerNowUs ? nowUs : callerNowUs);
        to.set(perKey[i]);
    }
}
