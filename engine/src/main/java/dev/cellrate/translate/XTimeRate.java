package dev.cellrate.translate;

import dev.cellrate.Limit;
import dev.cellrate.ReservingLimiter;
import org.agrona.concurrent.NanoClock;

/**
 * Translator for Go's {@code golang.org/x/time/rate} {@code NewLimiter(r, b)}.
 * <p>
 * <b>What maps to what.</b> The Go limiter is a token bucket of size b refilled at r per second that starts
 * full. That is GCRA(1/r, (b-1)/r): b is the burst itself ({@link #newLimiter}).
 * <ul>
 *     <li>{@code AllowN(t, n)}: {@code RateLimiter.tryAcquire(n, t)} on {@link #newLimiter}, or
 *     {@code ReservingLimiter.reserve(n, t, 0)} (Go's {@code AllowN} is {@code reserveN(t, n, 0)}).</li>
 *     <li>{@code ReserveN(t, n)}, {@code Reservation.DelayFrom}, {@code CancelAt}: a {@link ReservingLimiter}
 *     ({@link #newReservingLimiter}): {@code reserve(n, t, Long.MAX_VALUE, reservation)} returns the delay,
 *     {@code cancel(reservation, t)} is {@code CancelAt}. Go grants every n &le; b and lets the bucket go into
 *     debt; so does the {@code ReservingLimiter}. The {@code Shaper} is <em>not</em> this: it admits only what
 *     {@code AllowN} admits and spaces it.</li>
 *     <li>{@code WaitN(ctx, n)} with a deadline d away: {@code acquireWithin(n, d)} (reserve only if the wait
 *     fits, then park; interruptible, where Go's context cancellation cancels the reservation).</li>
 * </ul>
 * <b>Where they differ</b> (each checked against the real library, see {@code docs/translations.md}):
 * <ul>
 *     <li>Cancel: cellrate refunds only while no later reservation was granted (then exactly); Go restores a
 *     partial amount otherwise. A second {@code CancelAt} of one reservation restores again in Go; in cellrate
 *     it does nothing.</li>
 *     <li>Rounding: T = &lceil;10<sup>9</sup> / r&rceil; ns, rounded <em>up</em> (the safe side: never faster
 *     than r). When r does not divide 10<sup>9</sup> each permit of a backlog is scheduled up to 1 ns later than
 *     Go's exact 1/r, so times to act drift later by up to 2/3 ns per permit at r = 3 until the bucket is full
 *     again; {@code AllowN} can then reject where Go admits, never the reverse.</li>
 *     <li>Edges: {@code AllowN(t, 0)} is true in Go and takes nothing, {@code AllowN(t, -1)} <em>adds</em> a
 *     token; cellrate answers both {@code NEVER} (a caller with n = 0 needs no limiter; a negative cost is
 *     never a refund). {@code Limit(0)} gives b tokens once and never refills, {@code b = 0} admits only
 *     n = 0, {@code rate.Inf} admits everything: none has a GCRA translation, so {@code r = 0}, {@code b = 0}
 *     are rejected at construction (use a counter, nothing, or no limiter). Go moves {@code last} backwards on
 *     a clock step back, which can re-credit refill time; cellrate never does.</li>
 * </ul>
 */
public final class XTimeRate
{
    private XTimeRate()
    {
    }

    /**
     * {@code rate.NewLimiter(rate.Limit(eventsPerSecond), burst)}.
     *
     * @param eventsPerSecond r, in [1, 10<sup>9</sup>].
     * @param burst           b, &ge; 1.
     * @return GCRA(T, (b-1)T) with T = &lceil;10<sup>9</sup> / r&rceil; ns.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public static Limit newLimiter(final long eventsPerSecond, final long burst)
    {
        Range.require("r", eventsPerSecond, 1, 1_000_000_000L);
        return every(Range.ceilDiv(1_000_000_000L, eventsPerSecond), burst);
    }

    /**
     * {@code rate.NewLimiter(rate.Every(interval), burst)}.
     *
     * @param intervalNs the interval between events, in [1, 2<sup>62</sup>].
     * @param burst      b, in [1, 2<sup>62</sup> / interval].
     * @return GCRA(interval, (b-1) interval).
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public static Limit every(final long intervalNs, final long burst)
    {
        Range.require("interval (ns)", intervalNs, 1, Limit.MAX_CEILING_NS);
        Range.require("b", burst, 1, Limit.MAX_CEILING_NS / intervalNs);
        return Limit.ofGcra(intervalNs, (burst - 1) * intervalNs);
    }

    /**
     * The Go limiter used through {@code ReserveN} / {@code CancelAt} / {@code WaitN}: a full
     * {@link ReservingLimiter} of {@link #newLimiter}.
     *
     * @param eventsPerSecond r, in [1, 10<sup>9</sup>].
     * @param burst           b, &ge; 1.
     * @param clock           the clock of {@code acquireWithin} ({@code WaitN}).
     * @return a new reserving limiter.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public static ReservingLimiter newReservingLimiter(final long eventsPerSecond, final long burst, final NanoClock clock)
    {
        return new ReservingLimiter(newLimiter(eventsPerSecond, burst), clock);
    }
}
