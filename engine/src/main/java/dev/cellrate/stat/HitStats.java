package dev.cellrate.stat;

import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.status.CountersReader;

/**
 * Counts of hits (the permits requests asked for) by outcome, in a {@link StatFile}: the statistics of Envoy's
 * rate limit service ({@link StatKind#TOTAL_HITS}, {@link StatKind#OVER_LIMIT}, {@link StatKind#NEAR_LIMIT},
 * {@link StatKind#WITHIN_LIMIT}, {@link StatKind#SHADOW_MODE}), which count a request's cost rather than one per
 * decision. Registered by {@link StatFile#hits(String, int)}; read like a limiter's statistics (one
 * {@link StatReader.Stat} per kind, stripes summed), so {@code cellrate-stat} and the Micrometer binder show them.
 * <p>
 * Recording: {@link #add(StatKind, long)} adds to the calling thread's stripe of the kind's counter (threads get
 * stripes round-robin): one atomic add on a counter alone on its 128-byte slot, no allocation.
 * <p>
 * Threading: any thread.
 */
public final class HitStats
{
    /** Kinds of hits: a {@link HitStats} has this many counters per stripe. */
    static final int KINDS = StatKind.SHADOW_MODE.ordinal() - StatKind.TOTAL_HITS.ordinal() + 1;

    private final AtomicBuffer values;
    private final int stripeMask;
    private final int stripeShift;
    /** Values-buffer offset of kind {@code k} (from TOTAL_HITS) on stripe {@code s}: {@code [k << stripeShift | s]}. */
    private final int[] offsets;

    HitStats(final StatFile file, final String name, final int limiterId, final int stripes)
    {
        this.values = file.valuesBuffer();
        this.stripeMask = stripes - 1;
        this.stripeShift = Integer.numberOfTrailingZeros(stripes);
        this.offsets = new int[KINDS << stripeShift];
        for (int k = 0; k < KINDS; k++)
        {
            for (int s = 0; s < stripes; s++)
            {
                final int counterId = file.allocate(
                    StatKind.values()[StatKind.TOTAL_HITS.ordinal() + k], name, limiterId, s, stripes);
                offsets[k << stripeShift | s] = CountersReader.counterOffset(counterId);
            }
        }
    }

    /**
     * Add hits to a count.
     *
     * @param kind one of the hit kinds, {@link StatKind#TOTAL_HITS} to {@link StatKind#SHADOW_MODE}.
     * @param hits permits, &ge; 0 (a negative number adds nothing).
     * @throws IllegalArgumentException if {@code kind} is not a hit kind.
     */
    public void add(final StatKind kind, final long hits)
    {
        final int k = kind.ordinal() - StatKind.TOTAL_HITS.ordinal();
        if (k < 0)
        {
            throw new IllegalArgumentException("not a hit count: " + kind);
        }
        if (hits > 0)
        {
            values.getAndAddLong(offsets[k << stripeShift | (ThreadStripe.current() & stripeMask)], hits);
        }
    }

    /**
     * @param kind a hit kind.
     * @return the sum of its stripes (a reader's view).
     */
    public long value(final StatKind kind)
    {
        final int k = kind.ordinal() - StatKind.TOTAL_HITS.ordinal();
        if (k < 0)
        {
            throw new IllegalArgumentException("not a hit count: " + kind);
        }
        long sum = 0;
        for (int s = 0; s <= stripeMask; s++)
        {
            sum += values.getLongVolatile(offsets[k << stripeShift | s]);
        }
        return sum;
    }
}
