package dev.cellrate.gcra;

/**
 * The "next caller pays" variant of GCRA as pure functions over {@code long}s (Guava's
 * {@code SmoothRateLimiter} rule): a request conforms when the cell has room for <em>one</em> permit, whatever
 * its cost, and then charges its whole cost.
 * <p>
 * Algorithm: with the state and lag of {@link Gcra}, a request at {@code t} costing {@code n} conforms iff
 * {@code lag <= &tau;} (the single-permit test {@code lag + T <= &tau; + T}), and then
 * {@code TAT <- max(TAT, t) + n*T}, which may exceed {@code t + &tau; + T}: the debt delays the next callers
 * instead of this one. For {@code n = 1} this is exactly {@link Gcra}. Over any interval the admitted cost is
 * still at most {@code b + r*u} plus the cost of the last admitted request (the debt it left).
 * <p>
 * Arithmetic: callers bound {@code n*T <= 2^62} at construction; the lag saturates and the one sum that can
 * overflow, {@code max(TAT, t) + n*T}, is {@link Gcra#nextTatNs}, which reports it.
 */
public final class PayLaterGcra
{
    private PayLaterGcra()
    {
    }

    /**
     * @param tatNs       the TAT before the request.
     * @param nowNs       the time of the request.
     * @param toleranceNs &tau; &ge; 0.
     * @return 0 if the request conforms (whatever its cost), otherwise {@code lag - &tau; > 0}: the ns after
     * {@code nowNs} at which it would first conform, clamped to {@link Long#MAX_VALUE} when that is beyond
     * the {@code long} range.
     */
    public static long retryAfterNs(final long tatNs, final long nowNs, final long toleranceNs)
    {
        if (tatNs <= nowNs)
        {
            return 0;
        }
        final long lagNs = tatNs - nowNs;
        final long excessNs = lagNs - toleranceNs;
        if (lagNs > 0)
        {
            return excessNs > 0 ? excessNs : 0;
        }
        // As Gcra.retryAfterNs: the true lag is lagNs + 2^64 >= 2^63 and tau <= 2^62, so the true excess is
        // >= 2^62; the subtraction wrapped back into the positive longs iff that excess is below 2^63 (then
        // exact), otherwise it is beyond the range: clamp.
        return excessNs > 0 ? excessNs : Long.MAX_VALUE;
    }
}
