package dev.cellrate;

import java.math.BigInteger;

/**
 * A token bucket in exact arithmetic, for differential tests only: capacity {@code (&tau; + T) / T} tokens
 * (the integer {@code burst} when T divides &tau;), refilled at one token per {@code T} ns, full before the
 * first request. Tokens are kept scaled by {@code T} (one scaled unit = 1/T token = one ns of refill), so
 * every value is an exact integer. Arrival times must not decrease.
 */
final class ReferenceTokenBucket
{
    private final BigInteger emissionIntervalNs;
    private final BigInteger capacityScaled;
    private BigInteger tokensScaled;
    private BigInteger lastNs;

    ReferenceTokenBucket(final long emissionIntervalNs, final long toleranceNs)
    {
        this.emissionIntervalNs = BigInteger.valueOf(emissionIntervalNs);
        this.capacityScaled = BigInteger.valueOf(toleranceNs).add(this.emissionIntervalNs);
        this.tokensScaled = capacityScaled;
    }

    /**
     * Refill to {@code nowNs}, then take {@code permits} tokens if there are enough.
     *
     * @return {@link Result#ADMITTED}, the exact ns until enough tokens are there, or {@link Result#NEVER}
     * when the cost exceeds the capacity.
     */
    long offer(final long permits, final long nowNs)
    {
        final BigInteger t = BigInteger.valueOf(nowNs);
        if (null != lastNs)
        {
            if (t.compareTo(lastNs) < 0)
            {
                throw new IllegalStateException("token bucket reference needs non-decreasing time");
            }
            tokensScaled = tokensScaled.add(t.subtract(lastNs)).min(capacityScaled);
        }
        lastNs = t;
        final BigInteger costScaled = BigInteger.valueOf(permits).multiply(emissionIntervalNs);
        if (permits < 1 || costScaled.compareTo(capacityScaled) > 0)
        {
            return Result.NEVER;
        }
        if (tokensScaled.compareTo(costScaled) >= 0)
        {
            tokensScaled = tokensScaled.subtract(costScaled);
            return Result.ADMITTED;
        }
        return costScaled.subtract(tokensScaled).longValueExact();
    }

    /**
     * @return whole tokens in the bucket now (after the last offer).
     */
    long wholeTokens()
    {
        return tokensScaled.divide(emissionIntervalNs).longValueExact();
    }

    /**
     * @return ns until the bucket is full again if nothing else arrives.
     */
    long nsToFull()
    {
        return capacityScaled.subtract(tokensScaled).longValueExact();
    }
}
