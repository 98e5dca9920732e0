package dev.cellrate.testing;

import java.math.BigInteger;

import dev.cellrate.Limit;
import dev.cellrate.Result;

/**
 * The one exact GCRA model of a cell whose limit may change between decisions (reconfiguration, per-key
 * classes): the TAT in unbounded integers, absent ({@code null}, a full bucket) until the first admission, and
 * each decision taken under the limit passed with it. The rule of a change is the engine's: the TAT is kept.
 * Not thread-safe: one per key.
 */
public final class ModelCell
{
    /** The TAT after the last admission, or {@code null} if none yet. */
    public BigInteger tatNs;

    /**
     * @param limit   the limit current at this decision.
     * @param permits the cost.
     * @param nowNs   the time.
     * @return {@link Result#ADMITTED} (and the TAT moves), the exact retry-after, or {@link Result#NEVER}.
     */
    public long decide(final Limit limit, final long permits, final long nowNs)
    {
        final BigInteger t = BigInteger.valueOf(nowNs);
        final BigInteger incrementNs =
            BigInteger.valueOf(permits).multiply(BigInteger.valueOf(limit.emissionIntervalNs()));
        final BigInteger ceilingNs = BigInteger.valueOf(limit.ceilingNs());
        if (permits < 1 || incrementNs.compareTo(ceilingNs) > 0)
        {
            return Result.NEVER;
        }
        final BigInteger baseNs = null == tatNs ? t : tatNs.max(t);
        final BigInteger excessNs = baseNs.add(incrementNs).subtract(ceilingNs).subtract(t);
        if (excessNs.signum() > 0)
        {
            return excessNs.longValueExact();
        }
        tatNs = baseNs.add(incrementNs);
        return Result.ADMITTED;
    }
}
