package dev.cellrate.redis;

import static dev.cellrate.redis.Checks.requireRange;

import dev.cellrate.Limit;
import dev.cellrate.Result;

import java.math.BigInteger;

/**
 * A {@link Limit} rounded to whole microseconds for the Lua script, in the direction that never admits more.
 * <p>
 * Lua numbers are IEEE doubles, exact for integers below 2<sup>53</sup>. The script keeps every quantity in
 * integer &micro;s: times since the Unix epoch (about 1.8&middot;10<sup>15</sup> &micro;s today) and
 * lags, increments and ceilings up to {@link #MAX_CEILING_US} = 2<sup>52</sup> &micro;s (142 years), so
 * every TAT, sum and difference it forms stays below 2<sup>53</sup> and is exact.
 * <p>
 * Rounding (see {@code docs/distributed.md}): {@code T' = ceil(T / 1 us)} (never a faster rate) and
 * {@code tau' = floor(tau * T' / T)} in &micro;s, so that {@code tau' / T' <= tau / T}: the rounded cell's burst
 * {@code 1 + tau'/T'} is never larger and its rate {@code 1/T'} never faster. Over any window of length
 * {@code L} it therefore admits at most {@code (tau' + L) / T' + 1 <= (tau + L) / T + 1} permits, the in-process
 * engine's bound. When T and &tau; are whole &micro;s the rounding is the identity and, on times in whole
 * &micro;s, Redis decides exactly like the engine (proved decision for decision by the tests).
 */
public final class MicrosLimit
{
    /** Largest ceiling &tau;' + T' the script accepts: 2<sup>52</sup> &micro;s. */
    public static final long MAX_CEILING_US = 1L << 52;

    /** Largest time the script accepts: every TAT stays below now + ceiling &lt; 2<sup>53</sup> &micro;s. */
    public static final long MAX_NOW_US = (1L << 53) - MAX_CEILING_US - 1;

    private static final long NS_PER_US = 1000;

    private final Limit limit;
    private final Limit effective;
    private final long emissionIntervalUs;
    private final long toleranceUs;
    private final long ceilingUs;
    private final long burst;

    private MicrosLimit(final Limit limit)
    {
        this.limit = limit;
        final long intervalNs = limit.emissionIntervalNs();
        this.emissionIntervalUs = intervalNs / NS_PER_US + (intervalNs % NS_PER_US != 0 ? 1 : 0);
        // tau' = floor(tau * T' / T), exactly (the product can exceed a long).
        this.toleranceUs = BigInteger.valueOf(limit.toleranceNs())
            .multiply(BigInteger.valueOf(emissionIntervalUs))
            .divide(BigInteger.valueOf(intervalNs))
            .longValueExact();
        requireRange("limit ceiling in us (tolerance + interval)", toleranceUs + emissionIntervalUs, 1, MAX_CEILING_US);
        this.ceilingUs = toleranceUs + emissionIntervalUs;
        this.burst = 1 + toleranceUs / emissionIntervalUs;
        this.effective = Limit.ofGcra(emissionIntervalUs * NS_PER_US, toleranceUs * NS_PER_US);
    }

    /**
     * @param limit the limit to round.
     * @return the rounded limit.
     * @throws IllegalArgumentException if the rounded ceiling exceeds {@link #MAX_CEILING_US}.
     */
    public static MicrosLimit of(final Limit limit)
    {
        if (null == limit)
        {
            throw new IllegalArgumentException("limit must not be null");
        }
        return new MicrosLimit(limit);
    }

    /**
     * @return the limit as given.
     */
    public Limit limit()
    {
        return limit;
    }

    /**
     * @return the limit Redis enforces, in ns: {@code Limit.ofGcra(T' * 1000, tau' * 1000)}; equal to
     * {@link #limit()} when T and &tau; are whole &micro;s.
     */
    public Limit effective()
    {
        return effective;
    }

    /**
     * @return T' in &micro;s.
     */
    public long emissionIntervalUs()
    {
        return emissionIntervalUs;
    }

    /**
     * @return &tau;' in &micro;s.
     */
    public long toleranceUs()
    {
        return toleranceUs;
    }

    /**
     * @return &tau;' + T' in &micro;s.
     */
    public long ceilingUs()
    {
        return ceilingUs;
    }

    /**
     * @return the rounded burst {@code 1 + floor(tau' / T')}, never more than the limit's.
     */
    public long burst()
    {
        return burst;
    }

    /**
     * @param permits the cost.
     * @return {@code permits * T'} in &micro;s, or {@link Result#NEVER} outside [1, burst].
     */
    public long incrementUs(final long permits)
    {
        return permits >= 1 && permits <= burst ? permits * emissionIntervalUs : Result.NEVER;
    }

    /**
     * @param nowNs a caller time in ns.
     * @return the whole &micro;s at or before it, or {@link Result#NEVER} outside [0, {@link #MAX_NOW_US}].
     */
    public static long toMicros(final long nowNs)
    {
        if (nowNs < 0)
        {
            return Result.NEVER;
        }
        final long nowUs = nowNs / NS_PER_US;
        return nowUs > MAX_NOW_US ? Result.NEVER : nowUs;
    }

    public String toString()
    {
        return "MicrosLimit{emissionIntervalUs=" + emissionIntervalUs + ", toleranceUs=" + toleranceUs +
            ", burst=" + burst + ", limit=" + limit + '}';
    }
}
