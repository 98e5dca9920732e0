package dev.cellrate.translate;

import dev.cellrate.Limit;

/**
 * Translator for Go's {@code golang.org/x/time/rate} {@code NewLimiter(r, b)} as used through
 * {@code Allow}/{@code AllowN}.
 * <p>
 * The Go limiter is a token bucket of size b refilled at r per second that starts full; {@code AllowN(t, n)}
 * takes n tokens iff at least n are there (n &gt; b never). That is GCRA(1/r, (b-1)/r): b is the burst
 * itself. Differences: {@code Reserve}/{@code Wait} let the token count go negative (a shaper, not this
 * policer; cancelling a reservation is a refund), {@code rate.Inf} has no translation, and b = 0 (which in Go
 * admits nothing) is rejected here. Go moves {@code last} backwards on a clock step back, which can
 * re-credit refill time; cellrate never does.
 * <p>
 * Rounding: {@code T = ceil(10^9 / r)} ns; identical decisions when r divides 10<sup>9</sup> (Go's own
 * floating-point tokens can differ at exact boundaries).
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
     * @return GCRA(T, (b-1)T).
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
}
