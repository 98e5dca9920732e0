package dev.cellrate.reconfigure;

import dev.cellrate.Limit;
import dev.cellrate.Result;
import dev.cellrate.check.Bounds;
import dev.cellrate.Shaper;
import dev.cellrate.ShaperMode;
import dev.cellrate.Reserver;
import dev.cellrate.Reservation;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;

/**
 * A leaky-queue shaper ({@link dev.cellrate.Shaper}) whose {@link Limit} can be replaced at run time
 * ({@link #setLimit(Limit)}), keeping its state as {@link ReconfigurableRateLimiter} does: the TAT is kept, so
 * the backlog is kept in time. Requests already reserved keep the release times they were given (they were
 * promised them); a request after the change queues behind the same backlog and is spaced by the new
 * emission interval. Nobody gets a fresh burst by a change. A decision concurrent with a change reserves
 * wholly under the old or wholly under the new limit. The mode's immediate allowance ({@code delay=N}) is
 * {@code N} permits of the current limit. Allocation-free on {@link #reserve(long, long)}.
 */
public final class ReconfigurableShaper implements Reserver
{
    private final ShaperMode mode;
    /** The current limit as a {@link Shaper} over this front's one cell (a change replaces it, not the cell). */
    private volatile Shaper shaper;

    /**
     * @param limit the initial limit.
     * @param mode  the release mode.
     */
    public ReconfigurableShaper(final Limit limit, final ShaperMode mode)
    {
        this.mode = Bounds.requireNonNull("mode", mode);
        this.shaper = new Shaper(Bounds.requireNonNull("limit", limit), mode);
    }

    /**
     * @param permits the cost.
     * @param nowNs   the time of the request, ns.
     * @return the delay in ns (&ge; 0) if admitted; {@link Result#NEVER}; or a retry-after code, see
     * {@link Result} (reservation convention).
     */
    public long reserve(final long permits, final long nowNs)
    {
        return shaper.reserve(permits, nowNs);
    }

    /**
     * @param permits     the cost.
     * @param nowNs       the time of the request, ns.
     * @param reservation a caller-owned record for {@link #cancel(Reservation)}, filled in place; may be null.
     * @return as {@link #reserve(long, long)}.
     */
    public long reserve(final long permits, final long nowNs, final Reservation reservation)
    {
        return shaper.reserve(permits, nowNs, reservation);
    }

    /**
     * Refund a reservation of this shaper, made under the current or an earlier limit, as
     * {@link Shaper#cancel(Reservation)} does.
     *
     * @param reservation a holder filled by this shaper's {@code reserve}.
     * @return true iff refunded.
     * @throws IllegalArgumentException if another front made it.
     */
    public boolean cancel(final Reservation reservation)
    {
        return shaper.cancel(reservation);
    }

    /**
     * @return the system clock, which the clock forms read.
     */
    public NanoClock clock()
    {
        return SystemNanoClock.INSTANCE;
    }

    /**
     * Replace the limit; the backlog is kept in time. Any thread.
     *
     * @param limit the new limit.
     */
    public void setLimit(final Limit limit)
    {
        shaper = shaper.withLimit(Bounds.requireNonNull("limit", limit));
    }

    /**
     * @return the current limit.
     */
    public Limit limit()
    {
        return shaper.limit();
    }

    /**
     * @return the shaper of the current limit, over this front's one cell.
     */
    Shaper shaper()
    {
        return shaper;
    }
}
