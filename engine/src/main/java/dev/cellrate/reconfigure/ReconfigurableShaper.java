package dev.cellrate.reconfigure;

import dev.cellrate.CellArray;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import dev.cellrate.shaper.AtomicShaper;
import dev.cellrate.shaper.ShaperMode;
import org.agrona.concurrent.AtomicBuffer;

/**
 * A leaky-queue shaper ({@link dev.cellrate.shaper.Shaper}) whose {@link Limit} can be replaced at run time
 * ({@link #setLimit(Limit)}), keeping its state as {@link ReconfigurableRateLimiter} does: the TAT is kept, so
 * the backlog is kept in time. Requests already reserved keep the release times they were given (they were
 * promised them); a request after the change queues behind the same backlog and is spaced by the new
 * emission interval. Nobody gets a fresh burst by a change. A decision concurrent with a change reserves
 * wholly under the old or wholly under the new limit. The mode's immediate allowance ({@code delay=N}) is
 * {@code N} permits of the current limit. Allocation-free on {@link #reserve(long, long)}.
 */
public final class ReconfigurableShaper
{
    private final AtomicBuffer buffer;
    private final int tatOffset;
    private final ShaperMode mode;
    private volatile Settings settings;

    /**
     * @param limit the initial limit.
     * @param mode  the release mode.
     */
    public ReconfigurableShaper(final Limit limit, final ShaperMode mode)
    {
        if (null == limit || null == mode)
        {
            throw new IllegalArgumentException("limit and mode must not be null");
        }
        final CellArray cells = CellArray.allocate(1);
        this.buffer = cells.buffer();
        this.tatOffset = CellArray.tatOffset(0);
        this.mode = mode;
        this.settings = new Settings(limit, mode.immediateNs(limit.emissionIntervalNs()));
    }

    /**
     * @param permits the cost.
     * @param nowNs   the time of the request, ns.
     * @return the delay in ns (&ge; 0) if admitted; {@link Result#NEVER}; or a retry-after code, see
     * {@link Result} (reservation convention).
     */
    public long reserve(final long permits, final long nowNs)
    {
        final Settings settings = this.settings;
        final Limit limit = settings.limit;
        return AtomicShaper.reserve(
            buffer, tatOffset, limit.incrementNs(permits), limit.ceilingNs(), settings.immediateNs, nowNs, null);
    }

    /**
     * Replace the limit; the backlog is kept in time. Any thread.
     *
     * @param limit the new limit.
     */
    public void setLimit(final Limit limit)
    {
        if (null == limit)
        {
            throw new IllegalArgumentException("limit must not be null");
        }
        settings = new Settings(limit, mode.immediateNs(limit.emissionIntervalNs()));
    }

    /**
     * @return the current limit.
     */
    public Limit limit()
    {
        return settings.limit;
    }

    /**
     * @return the cell's TAT (acquire read).
     */
    public long tatNs()
    {
        return buffer.getLongAcquire(tatOffset);
    }

    private static final class Settings
    {
        final Limit limit;
        final long immediateNs;

        Settings(final Limit limit, final long immediateNs)
        {
            this.limit = limit;
            this.immediateNs = immediateNs;
        }
    }
}
