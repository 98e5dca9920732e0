package dev.cellrate;

import java.math.BigInteger;

/**
 * Exact reference model of the shaper, in BigInteger arithmetic straight from the definitions (TM 4.0
 * virtual scheduling + postponement to max(t, TAT); NGINX's delay=N rule; cancel = pop the latest live
 * reservation). No code shared with the engine.
 */
final class ShaperModel
{
    final BigInteger t;
    final BigInteger tau;
    final BigInteger burst;
    final BigInteger immediate;
    BigInteger tat;          // null = fresh (full bucket at any time)

    BigInteger lastSlot;     // outcome of the last reserve
    BigInteger lastRelease;
    BigInteger lastRetryAfter;
    boolean lastNever;

    ShaperModel(final long emissionIntervalNs, final long toleranceNs, final long immediateExcess)
    {
        t = BigInteger.valueOf(emissionIntervalNs);
        tau = BigInteger.valueOf(toleranceNs);
        burst = BigInteger.ONE.add(tau.divide(t));
        immediate = BigInteger.valueOf(immediateExcess).multiply(t);
    }

    /** @return true iff admitted; fills the last* fields. */
    boolean reserve(final long permits, final long nowNs)
    {
        final BigInteger n = BigInteger.valueOf(permits);
        final BigInteger now = BigInteger.valueOf(nowNs);
        lastSlot = null;
        lastRelease = null;
        lastRetryAfter = null;
        lastNever = false;
        if (n.signum() <= 0 || n.compareTo(burst) > 0)
        {
            lastNever = true;
            return false;
        }
        final BigInteger base = null == tat ? now : tat.max(now);
        final BigInteger next = base.add(n.multiply(t));
        final BigInteger excess = next.subtract(now).subtract(tau.add(t));
        if (excess.signum() > 0)
        {
            lastRetryAfter = excess;
            return false;
        }
        if (next.compareTo(BigInteger.valueOf(Long.MAX_VALUE)) > 0)
        {
            lastNever = true;
            return false;
        }
        tat = next;
        lastSlot = base;
        final BigInteger wait = base.subtract(now).subtract(immediate);
        lastRelease = wait.signum() > 0 ? now.add(wait) : now;
        return true;
    }
}
