package dev.cellrate.redis;

/**
 * The script's reply for a batch of n keys, {@code {now_us, then per key: retry_after_us, tat_after_us,
 * granted}}, parsed straight into one {@code long[n]} of retry-afters (the only allocation, sized by the batch).
 * It belongs to its command, never to the caller: a reply that arrives after its timeout writes here, not into
 * the caller's array.
 */
final class BatchReply extends ScriptOutput<BatchReply>
{
    final long[] retryAfterUs;

    BatchReply(final int keys)
    {
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

    /**
     * @return true iff the whole reply arrived and no error.
     */
    boolean complete()
    {
        return null == error && 1 + 3 * retryAfterUs.length == count;
    }

    boolean usable()
    {
        return complete();
    }
}
