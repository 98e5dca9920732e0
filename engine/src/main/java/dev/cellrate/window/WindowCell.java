package dev.cellrate.window;

import dev.cellrate.check.Bounds;
import dev.cellrate.layout.CellArray;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.NanoClock;

/**
 * What the two one-word window fronts share (layer: front support, package-private): the configuration checks,
 * the cell word and the accessors. Final fields and final methods only, so a front's decision path reads its
 * fields as if they were its own (no dispatch).
 * <p>
 * The word packs {@code countsPerWord} counts of {@code c = countBits(limit)} bits under a signed window index:
 * construction demands {@code windowNs >= 2^(countsPerWord c)} so the index of every 64-bit time fits exactly,
 * and, for two counts (the sliding counter's {@code prev (W - e)} products), {@code limit * windowNs <= Long.MAX_VALUE}.
 */
abstract class WindowCell
{
    final AtomicBuffer buffer;
    final int wordOffset;
    final long limit;
    final long windowNs;
    final int countBits;
    final NanoClock clock;

    WindowCell(
        final long limit,
        final long maxLimit,
        final int countsPerWord,
        final long windowNs,
        final CellArray cells,
        final int cellIndex,
        final NanoClock clock)
    {
        if (null == cells || null == clock)
        {
            throw new IllegalArgumentException("cells and clock must not be null");
        }
        Bounds.requireRange("limit", limit, 1, maxLimit);
        this.countBits = FixedWindow.countBits(limit);
        Bounds.requireRange("windowNs", windowNs, 1L << (countsPerWord * countBits),
            1 == countsPerWord ? Long.MAX_VALUE : Long.MAX_VALUE / limit);
        Bounds.requireRange("cellIndex", cellIndex, 0, cells.cellCount() - 1);
        this.limit = limit;
        this.windowNs = windowNs;
        this.clock = clock;
        this.buffer = cells.buffer();
        this.wordOffset = CellArray.tatOffset(cellIndex);
    }

    /**
     * @param initialPermits the initial fill, &ge; 0.
     * @return true iff the fill is below a full window (the fresh cell is already full).
     */
    final boolean partlyFilled(final long initialPermits)
    {
        return Bounds.requireRange("initialPermits", initialPermits, 0, Long.MAX_VALUE) < limit;
    }

    /**
     * @return the raw state word (acquire read), for tests of the layout.
     */
    final long word()
    {
        return buffer.getLongAcquire(wordOffset);
    }

    /**
     * @return c, the bit budget of each count.
     */
    final int countBits()
    {
        return countBits;
    }

    /**
     * @return permits per window.
     */
    public final long limit()
    {
        return limit;
    }

    /**
     * @return the window length, ns.
     */
    public final long windowNs()
    {
        return windowNs;
    }

    /**
     * @return the clock the clock forms read.
     */
    public final NanoClock clock()
    {
        return clock;
    }
}
