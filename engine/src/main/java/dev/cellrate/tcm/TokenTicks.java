package dev.cellrate.tcm;

/**
 * RFC 2697/2698 token updates in integer nanoseconds, as pure functions: no memory, no floating point.
 * <p>
 * The RFCs increment a token count by one, {@code rate} times per second. Here the k-th increment happens at
 * the first integer ns {@code t} with {@code t * rate >= k * 10^9} (a grid anchored at t = 0, so the phase of
 * the increments never drifts), and the number of increments in {@code (last, now]} is
 * {@code floor(now * rate / 10^9) - floor(last * rate / 10^9)}. Each time is split as {@code q * 10^9 + r}
 * ({@code 0 <= r < 10^9}) so every product fits a long: {@code r * rate < 10^9 * 2^33 < 2^63}; differences of
 * {@code q} are bounded before they are multiplied. The count is saturated at {@code cap} (enough to fill the
 * buckets), since more increments change nothing.
 */
final class TokenTicks
{
    /** ns per second: the RFCs' rates are per second. */
    public static final long NANOS_PER_SECOND = 1_000_000_000L;

    /** Largest rate: 2<sup>33</sup> bytes per second (about 68.7 Gbit/s). */
    public static final long MAX_RATE_PER_SECOND = 1L << 33;

    private TokenTicks()
    {
    }

    /**
     * @param lastNs            the time of the previous update.
     * @param nowNs             the time of this update.
     * @param ratePerSecond     increments per second, in [1, {@link #MAX_RATE_PER_SECOND}].
     * @param capTicks          the most increments that can matter, &ge; 0.
     * @return increments in {@code (lastNs, nowNs]}, in [0, capTicks]; 0 if {@code nowNs <= lastNs} (time going
     * backwards adds nothing).
     */
    public static long ticks(final long lastNs, final long nowNs, final long ratePerSecond, final long capTicks)
    {
        if (nowNs <= lastNs)
        {
            return 0;
        }
        final long secondsApart = Math.floorDiv(nowNs, NANOS_PER_SECOND) - Math.floorDiv(lastNs, NANOS_PER_SECOND);
        if (secondsApart > capTicks / ratePerSecond + 1)
        {
            return capTicks;
        }
        final long ticks = secondsApart * ratePerSecond +
            Math.floorMod(nowNs, NANOS_PER_SECOND) * ratePerSecond / NANOS_PER_SECOND -
            Math.floorMod(lastNs, NANOS_PER_SECOND) * ratePerSecond / NANOS_PER_SECOND;
        return Math.min(ticks, capTicks);
    }
}
