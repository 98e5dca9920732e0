package dev.cellrate;

import dev.cellrate.layout.CellArray;
import java.math.BigInteger;

/**
 * The exact GCRA(T, &tau;) of docs/design.md §3 in unbounded integers, for differential tests only. It shares no
 * code with the engine: every quantity is a {@link BigInteger}, so nothing saturates or wraps except where the
 * engine's contract says a {@code long} result is clamped (retry-after, reset-after) or a TAT is
 * unrepresentable (then {@link Result#NEVER}).
 */
final class ReferenceGcra
{
    static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);

    private final BigInteger emissionIntervalNs;
    private final BigInteger ceilingNs;
    private BigInteger tatNs;
    long admitted;
    long admittedOnBoundary;
    long retryAfters;
    long nevers;

    ReferenceGcra(final long emissionIntervalNs, final long toleranceNs)
    {
        this.emissionIntervalNs = BigInteger.valueOf(emissionIntervalNs);
        this.ceilingNs = BigInteger.valueOf(toleranceNs).add(this.emissionIntervalNs);
    }

    /**
     * @return the result code the engine must return for {@code permits} at {@code nowNs}; charges on admission.
     */
    long decide(final long permits, final long nowNs)
    {
        final BigInteger t = BigInteger.valueOf(nowNs);
        final BigInteger incrementNs = BigInteger.valueOf(permits).multiply(emissionIntervalNs);
        if (permits < 1 || incrementNs.compareTo(ceilingNs) > 0)
        {
            nevers++;
            return Result.NEVER;
        }
        final BigInteger baseNs = null == tatNs ? t : tatNs.max(t);
        final BigInteger excessNs = baseNs.add(incrementNs).subtract(ceilingNs).subtract(t);
        if (excessNs.signum() > 0)
        {
            retryAfters++;
            return excessNs.min(LONG_MAX).longValueExact();
        }
        final BigInteger nextTatNs = baseNs.add(incrementNs);
        if (nextTatNs.compareTo(LONG_MAX) > 0)
        {
            nevers++;
            return Result.NEVER;
        }
        admitted++;
        admittedOnBoundary += excessNs.signum() == 0 ? 1 : 0;
        tatNs = nextTatNs;
        return Result.ADMITTED;
    }

    /**
     * @return {@code floor((t + &tau; + T - max(TAT, t)) / T)}, at least 0.
     */
    long remaining(final long nowNs)
    {
        final BigInteger t = BigInteger.valueOf(nowNs);
        final BigInteger baseNs = null == tatNs ? t : tatNs.max(t);
        final BigInteger numerator = t.add(ceilingNs).subtract(baseNs);
        return numerator.signum() <= 0 ? 0 : numerator.divide(emissionIntervalNs).longValueExact();
    }

    /**
     * @return {@code max(0, TAT - t)}, clamped to {@link Long#MAX_VALUE}.
     */
    long resetAfterNs(final long nowNs)
    {
        if (null == tatNs)
        {
            return 0;
        }
        return tatNs.subtract(BigInteger.valueOf(nowNs)).max(BigInteger.ZERO).min(LONG_MAX).longValueExact();
    }

    /**
     * @return the TAT as the engine stores it: {@link CellArray#FRESH_TAT_NS} before the first admission.
     */
    long tatNs()
    {
        return null == tatNs ? CellArray.FRESH_TAT_NS : tatNs.longValueExact();
    }
}
