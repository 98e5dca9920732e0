package dev.cellrate;

import dev.cellrate.check.Bounds;
import dev.cellrate.layout.CellArray;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.NanoClock;

/**
 * What every front over one {@link CellArray} cell holds ({@link RateLimiter}, {@link SingleThreadedRateLimiter},
 * {@link Shaper}, {@link ReservingLimiter}): the cell, its {@link Limit} and the clock of the clock forms, with the readers a
 * user calls (the limit and the clock). The decisions are each front's own. Immutable.
 */
abstract class CellFront
{
    /** The state buffer of {@link #cells}. */
    final AtomicBuffer buffer;
    /** The offset of the cell's TAT word in {@link #buffer}. */
    final int tatOffset;
    /** {@code limit.emissionIntervalNs()}. */
    final long emissionIntervalNs;
    /** {@code limit.ceilingNs()}: &tau; + T. */
    final long ceilingNs;
    final Limit limit;
    final NanoClock clock;
    /** The array holding the cell; it also keeps the cell's memory alive. */
    final CellArray cells;

    /**
     * @param limit     the limit.
     * @param cells     the array holding the cell.
     * @param cellIndex the cell, in [0, cells.cellCount()).
     * @param clock     the clock of the clock forms.
     * @throws IllegalArgumentException on a null argument or an index out of range, naming it.
     */
    CellFront(final Limit limit, final CellArray cells, final int cellIndex, final NanoClock clock)
    {
        this.limit = Bounds.requireNonNull("limit", limit);
        this.cells = Bounds.requireNonNull("cells", cells);
        this.clock = Bounds.requireNonNull("clock", clock);
        this.buffer = cells.buffer();
        this.tatOffset = CellArray.tatOffset(cells.checkIndex(cellIndex));
        this.emissionIntervalNs = limit.emissionIntervalNs();
        this.ceilingNs = limit.ceilingNs();
    }

    /**
     * @return the cell's current TAT (acquire read), {@link CellArray#FRESH_TAT_NS} if never charged. Inside the
     * engine only: the TAT is the cell's internal time word, never part of the API.
     */
    final long tatNs()
    {
        return buffer.getLongAcquire(tatOffset);
    }

    /**
     * @return the limit.
     */
    public final Limit limit()
    {
        return limit;
    }

    /**
     * @return the clock of the clock forms.
     */
    public final NanoClock clock()
    {
        return clock;
    }

    /**
     * @return the cell array holding this front's cell.
     */
    final CellArray cells()
    {
        return cells;
    }
}
