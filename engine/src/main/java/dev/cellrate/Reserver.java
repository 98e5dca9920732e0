package dev.cellrate;

import dev.cellrate.Reservation;
import org.agrona.concurrent.NanoClock;

/**
 * The front contract of a single-cell shaper: reserve a release slot, permits and time both explicit, or a
 * clock form whose only {@code long} argument is permits. Codes follow the reservation convention of
 * {@link Result} (a delay {@code >= 0} when admitted).
 * <p>
 * Threading: thread-safe. Allocation: none, on every method.
 */
public interface Reserver
{
    /**
     * @param permits the cost.
     * @param nowNs   the time of the request, ns.
     * @return a reservation code (see {@link Result}).
     */
    long reserve(long permits, long nowNs);

    /**
     * @param permits     the cost.
     * @param nowNs       the time of the request, ns.
     * @param reservation a caller-owned record for {@code cancel}, filled if admitted; may be null.
     * @return a reservation code (see {@link Result}).
     */
    long reserve(long permits, long nowNs, Reservation reservation);

    /**
     * @return the clock the clock forms read.
     */
    NanoClock clock();

    /**
     * @return as {@link #reserve(long, long)} for one permit, by the clock.
     */
    default long reserve()
    {
        return reserve(1, clock().nanoTime());
    }

    /**
     * @param permits the cost.
     * @return as {@link #reserve(long, long)}, by the clock.
     */
    default long reserve(final long permits)
    {
        return reserve(permits, clock().nanoTime());
    }

    /**
     * @param permits     the cost.
     * @param reservation a caller-owned record, filled if admitted; may be null.
     * @return as {@link #reserve(long, long, Reservation)}, by the clock.
     */
    default long reserve(final long permits, final Reservation reservation)
    {
        return reserve(permits, clock().nanoTime(), reservation);
    }
}
