package dev.cellrate.translate;

import dev.cellrate.Limit;

/**
 * Translator for redis-cell {@code CL.THROTTLE <key> <max_burst> <count per period> <period> [<quantity>]}.
 * <p>
 * redis-cell (v0.5) sets {@code T = period / count} and a delay-variation tolerance of {@code (max_burst+1)T},
 * and compares the TAT <em>after</em> charging: a request costing {@code n} is limited iff
 * {@code max(TAT, now) + n*T - (max_burst+1)T > now}. That is GCRA(T, max_burst&middot;T), the
 * {@code quantity} being the cost n: from idle {@code max_burst + 1} requests pass (its reply's
 * {@code X-RateLimit-Limit} is {@code max_burst + 1} too).
 * <p>
 * Rounding: redis-cell computes {@code T} as the truncated floating-point quotient of {@code period} in ns
 * by {@code count}; for periods below 2<sup>53</sup> ns that is exactly {@code floor(period_ns / count)},
 * which this translator uses so decisions are identical (it is the peer's own rounding, at most 1 ns per
 * permit faster than the nominal rate; use {@link Limit#of} for the never-faster rounding).
 */
public final class RedisCell
{
    /** Largest accepted period: 2<sup>53</sup> ns (about 104 days), where redis-cell's T is exact. */
    public static final long MAX_PERIOD_SECONDS = (1L << 53) / 1_000_000_000L;

    private RedisCell()
    {
    }

    /**
     * @param maxBurst       {@code max_burst}, &ge; 0 (the limit's burst is max_burst + 1).
     * @param countPerPeriod {@code count per period}, in [1, period in ns].
     * @param periodSeconds  {@code period}, in [1, {@link #MAX_PERIOD_SECONDS}].
     * @return GCRA(floor(period_ns / count), max_burst &middot; T); charge {@code quantity} as the permits.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public static Limit throttle(final long maxBurst, final long countPerPeriod, final long periodSeconds)
    {
        Range.require("period", periodSeconds, 1, MAX_PERIOD_SECONDS);
        final long periodNs = periodSeconds * 1_000_000_000L;
        Range.require("count", countPerPeriod, 1, periodNs);
        final long emissionIntervalNs = periodNs / countPerPeriod;
        Range.require("max_burst", maxBurst, 0, Limit.MAX_CEILING_NS / emissionIntervalNs - 1);
        return Limit.ofGcra(emissionIntervalNs, maxBurst * emissionIntervalNs);
    }
}
