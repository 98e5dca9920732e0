package dev.cellrate;

import dev.cellrate.Reservation;
import org.agrona.concurrent.NanoClock;

/**
 * The front contract of a keyed shaper: reserve a release slot for a key, with key, permits and time all
 * explicit, or a clock form {@code (key, permits)}. Codes follow the reservation convention of {@link Result}.
 * <p>
 * Threading: thread-safe. Allocation: none, on every method.
 */
public interface KeyedReserver
{
    /**
     * @param key         the key.
     * @param permits     the cost.
     * @param nowNs       the time of the request, ns.
     * @param reservation a caller-owned record for {@code cancel}, filled if admitted; may be null.
     * @return a reservation code (see {@link Result}).
     */
    long reserve(long key, long permits, long nowNs, Reservation reservation);

    /**
     * @param key         the key (hashed; not retained).
     * @param permits     the cost.
     * @param nowNs       the time of the request, ns.
     * @param reservation a caller-owned record for {@code cancel}, filled if admitted; may be null.
     * @return a reservation code (see {@link Result}).
     */
    long reserve(CharSequence key, long permits, long nowNs, Reservation reservation);

    /**
     * @return the clock the clock forms read.
     */
    NanoClock clock();

    /**
     * @param key     the key.
     * @param permits the cost.
     * @param nowNs   the time of the request, ns.
     * @return as {@link #reserve(long, long, long, Reservation)} without a record.
     */
    default long reserve(final long key, final long permits, final long nowNs)
    {
        return reserve(key, permits, nowNs, null);
    }

    /**
     * @param key     the key.
     * @param permits the cost.
     * @return as {@link #reserve(long, long, long, Reservation)} without a record, by the clock.
     */
    default long reserve(final long key, final long permits)
    {
        return reserve(key, permits, clock().nanoTime(), null);
    }

    /**
     * @param key         the key.
     * @param permits     the cost.
     * @param reservation a caller-owned record, filled if admitted; may be null.
     * @return as {@link #reserve(long, long, long, Reservation)}, by the clock.
     */
    default long reserve(final long key, final long permits, final Reservation reservation)
    {
        return reserve(key, permits, clock().nanoTime(), reservation);
    }

    /**
     * @param key         the key.
     * @param permits     the cost.
     * @param reservation a caller-owned record, filled if admitted; may be null.
     * @return as {@link #reserve(CharSequence, long, long, Reservation)}, by the clock.
     */
    default long reserve(final CharSequence key, final long permits, final Reservation reservation)
    {
        return reserve(key, permits, clock().nanoTime(), reservation);
    }
}
