package dev.cellrate.redis;

/**
 * The script's reply for a batch of n keys, {@code {now_us, then one value per key}} ({@code gcra.lua} says what a
 * value means), parsed straight into one {@code long[n]} (the only allocation, sized by the batch). It belongs to
 * its command, never to the caller: a reply that arrives after its timeout writes here, not into the caller's
 * array.
 */
final class BatchReply extends ScriptOutput<BatchReply>
{
    final long[] values;

    BatchReply(final int keys)
    {
        output = this;
        values = new long[keys];
    }

    public void set(final long integer)
    {
        final int index = count++ - 1;
        if (index >= 0 && index < values.length)
        {
            values[index] = integer;
        }
    }

    /**
     * @return true iff the whole reply arrived and no error.
     */
    boolean complete()
    {
        return null == error && 1 + values.length == count;
    }

    boolean usable()
    {
        return complete();
    }
}
