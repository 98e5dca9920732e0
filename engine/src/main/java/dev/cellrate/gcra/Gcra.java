package dev.cellrate.gcra;

import dev.cellrate.check.Bounds;
import dev.cellrate.layout.CellArray;

/**
 * The GCRA decision as pure functions over {@code long}s: no memory, no atomics, no objects.
 * <p>
 * Algorithm: the virtual-scheduling form of GCRA(T, &tau;) [1]. The state is one word, the theoretical
 * arrival time {@code TAT}. A request at time {@code t} costing {@code n} permits has increment
 * {@code I = n * T}. Its <em>lag</em> is {@code max(0, TAT - t)}; it conforms iff
 * {@code lag + I <= &tau; + T} (the <em>ceiling</em>), and then {@code TAT <- max(TAT, t) + I}; otherwise the
 * state is unchanged. A cell whose {@code TAT <= t} is a full bucket, which is why the fresh value
 * {@link Long#MIN_VALUE} needs no special case. A token bucket of capacity {@code C = (&tau; + T) / T}
 * (the integer burst {@code 1 + floor(&tau; / T)} when T divides &tau;) refilled at {@code 1 / T} holds
 * {@code C - lag / T} tokens and decides identically on non-decreasing times [2].
 * <p>
 * Arithmetic: callers guarantee {@code 1 <= I <= ceiling <= 2^62} (see {@code Limit}). Lags saturate at
 * {@link Long#MAX_VALUE} and compare against {@code ceiling - I >= 0}, so no step overflows; the one sum
 * that can, {@code max(TAT, t) + I}, is checked and reported as {@link #UNREPRESENTABLE}. Time going
 * backwards only raises the lag, so it can only make conformance harder.
 * <p>
 * References: [1] ATM Forum, Traffic Management Specification 4.0 (af-tm-0056.000), section 4.4.2 and
 * annex C. [2] J.-Y. Le Boudec, P. Thiran, Network Calculus (LNCS 2050), Proposition 1.2.4.
 */
public final class Gcra
{
    /** Returned by {@link #nextTatNs} when {@code max(TAT, t) + I} exceeds {@link Long#MAX_VALUE}. */
    public static final long UNREPRESENTABLE = Long.MIN_VALUE;

    /** The code of a request that conforms and was charged (the API's {@code Result.ADMITTED}). */
    public static final long ADMITTED = 0;

    /**
     * The code of a request that can never conform: a cost outside [1, burst], or a time at the edge of the long
     * range (the API's {@code Result.NEVER}).
     */
    public static final long NEVER = -1;

    /** Largest allowed {@code &tau; + T}, 2<sup>62</sup> ns: no decision's sum or product can overflow below it. */
    public static final long MAX_CEILING_NS = 1L << 62;

    private Gcra()
    {
    }

    /**
     * @param tatNs the TAT.
     * @param nowNs the time of the request.
     * @return {@code max(0, TAT - t)}, saturated at {@link Long#MAX_VALUE}.
     */
    public static long lagNs(final long tatNs, final long nowNs)
    {
        final long lagNs = trueLagNs(tatNs, nowNs);
        return lagNs < 0 ? Long.MAX_VALUE : lagNs;
    }

    /**
     * {@code max(TAT, t) - t}: the true lag {@code max(0, TAT - t)}, which is below 2^64, as an unsigned long. As a
     * signed long it is negative exactly when the true lag exceeds {@link Long#MAX_VALUE}.
     */
    private static long trueLagNs(final long tatNs, final long nowNs)
    {
        return Math.max(tatNs, nowNs) - nowNs;
    }

    /**
     * {@code a + b}, at most {@code capNs}: {@code min(a, capNs - b) + b}, which is {@code a > capNs - b ? capNs :
     * a + b} bit for bit (mod 2^64 {@code capNs - b + b} is {@code capNs}) with no branch and no boundary of its own.
     */
    private static long addAtMost(final long a, final long b, final long capNs)
    {
        return Math.min(a, capNs - b) + b;
    }

    /**
     * @param tatNs       the TAT before the request.
     * @param nowNs       the time of the request.
     * @param incrementNs {@code I = n * T}, in [1, ceilingNs].
     * @param ceilingNs   {@code &tau; + T}.
     * @return true iff {@code lag + I <= &tau; + T}.
     */
    public static boolean conforms(final long tatNs, final long nowNs, final long incrementNs, final long ceilingNs)
    {
        return lagNs(tatNs, nowNs) <= ceilingNs - incrementNs;
    }

    /**
     * @param tatNs       the TAT before the request.
     * @param nowNs       the time of the request.
     * @param incrementNs {@code I = n * T}, in [1, ceilingNs].
     * @param ceilingNs   {@code &tau; + T}.
     * @return 0 if the request conforms, otherwise {@code lag + I - (&tau; + T) > 0}: the ns after
     * {@code nowNs} at which it would first conform, saturated at {@link Long#MAX_VALUE}.
     */
    public static long retryAfterNs(final long tatNs, final long nowNs, final long incrementNs, final long ceilingNs)
    {
        final long lagNs = trueLagNs(tatNs, nowNs);
        final long excessNs = lagNs - (ceilingNs - incrementNs);
        // If the true lag is below 2^63 (lagNs >= 0), excessNs is exact (slack in [0, 2^62]) and the answer is
        // max(0, excessNs). Otherwise the true excess is in [2^62, 2^64): excessNs is exact if it is below 2^63
        // (positive), else it reads negative and saturates. So: saturate iff both read negative.
        return (lagNs & excessNs) < 0 ? Long.MAX_VALUE : Math.max(excessNs, 0);
    }

    /**
     * @param tatNs       the TAT before a conforming request.
     * @param nowNs       the time of the request.
     * @param incrementNs {@code I = n * T} &ge; 1.
     * @return {@code max(TAT, t) + I}, or {@link #UNREPRESENTABLE} if that exceeds {@link Long#MAX_VALUE}
     * (a real TAT is never {@link Long#MIN_VALUE} since {@code I >= 1}).
     */
    public static long nextTatNs(final long tatNs, final long nowNs, final long incrementNs)
    {
        final long baseNs = Math.max(tatNs, nowNs);
        return baseNs > Long.MAX_VALUE - incrementNs ? UNREPRESENTABLE : baseNs + incrementNs;
    }

    /**
     * Permits that would still conform one by one at {@code t}:
     * {@code floor((&tau; + T - lag) / T)}, at least 0. Needs a division: call it only when asked.
     *
     * @param tatNs              the TAT (after the decision).
     * @param nowNs              the time.
     * @param emissionIntervalNs T.
     * @param ceilingNs          &tau; + T.
     * @return the remaining permits, in [0, burst].
     */
    public static long remaining(final long tatNs, final long nowNs, final long emissionIntervalNs, final long ceilingNs)
    {
        return remainingAtLag(lagNs(tatNs, nowNs), emissionIntervalNs, ceilingNs);
    }

    /**
     * @param lagNs              {@code max(0, TAT - t)}, in [0, 2<sup>63</sup>).
     * @param emissionIntervalNs T.
     * @param ceilingNs          &tau; + T.
     * @return the remaining permits at that lag, in [0, burst]: {@code max(0, &tau; + T - lag) / T}.
     */
    public static long remainingAtLag(final long lagNs, final long emissionIntervalNs, final long ceilingNs)
    {
        // lag in [0, 2^63), ceiling in [1, 2^62]: the difference cannot overflow.
        return Math.max(ceilingNs - lagNs, 0) / emissionIntervalNs;
    }

    /**
     * @param tatNs the TAT (after the decision).
     * @param nowNs the time.
     * @return ns until the cell is full again (idle): {@code max(0, TAT - t)}.
     */
    public static long resetAfterNs(final long tatNs, final long nowNs)
    {
        return lagNs(tatNs, nowNs);
    }

    /**
     * The whole decision of one request, as a code: what {@code tryAcquire} answers and what {@code peek}
     * answers without charging.
     *
     * @param tatNs       the TAT before the request.
     * @param nowNs       the time of the request.
     * @param incrementNs {@code I = n * T}, in [1, ceilingNs].
     * @param ceilingNs   {@code &tau; + T}.
     * @return {@link #ADMITTED} if the request conforms and {@code max(TAT, t) + I} is representable
     * (the caller may then write it without a check), a positive retry-after, or {@link #NEVER}.
     */
    public static long decide(final long tatNs, final long nowNs, final long incrementNs, final long ceilingNs)
    {
        final long retryAfterNs = retryAfterNs(tatNs, nowNs, incrementNs, ceilingNs);
        if (retryAfterNs > 0)
        {
            return retryAfterNs;
        }
        return Math.max(tatNs, nowNs) > Long.MAX_VALUE - incrementNs ? NEVER : ADMITTED;
    }

    /**
     * The TAT after a debit: the cost is charged whether or not it conforms, but the cell's debt is bounded:
     * the new TAT is at most {@code t + debtCeilingNs} (saturated at {@link Long#MAX_VALUE}), and a TAT is
     * never lowered (that would hand out permits).
     *
     * @param tatNs         the TAT before the debit.
     * @param nowNs         the time of the debit.
     * @param incrementNs   {@code n * T} &ge; 1.
     * @param debtCeilingNs the largest lag a debit may leave, &ge; the ceiling.
     * @return the new TAT, &ge; {@code tatNs}.
     */
    public static long debitTatNs(final long tatNs, final long nowNs, final long incrementNs, final long debtCeilingNs)
    {
        final long capNs = addAtMost(nowNs, debtCeilingNs, Long.MAX_VALUE);
        final long chargedNs = addAtMost(Math.max(tatNs, nowNs), incrementNs, capNs);
        return Math.max(tatNs, chargedNs);
    }

    /**
     * @param ceilingNs {@code &tau; + T}.
     * @return the debt ceiling of a debit: twice the ceiling (a cell may owe at most one full burst),
     * saturated at {@link Long#MAX_VALUE}.
     */
    public static long debtCeilingNs(final long ceilingNs)
    {
        return ceilingNs > Long.MAX_VALUE / 2 ? Long.MAX_VALUE : 2 * ceilingNs;
    }

    /**
     * The TAT at which a cell created at {@code t} holds exactly {@code permits} (the initial fill).
     *
     * @param nowNs              the creation time.
     * @param permits            permits available at creation, &ge; 0; at or above the burst it is full.
     * @param emissionIntervalNs T.
     * @param ceilingNs          &tau; + T.
     * @return the initial TAT: {@code t + &tau; + T - permits * T}, or {@link CellArray#FRESH_TAT_NS} (full) when
     * {@code permits * T >= &tau; + T}.
     */
    public static long initialTatNs(final long nowNs, final long permits, final long emissionIntervalNs,
        final long ceilingNs)
    {
        if (permits >= ceilingNs / emissionIntervalNs)
        {
            return CellArray.FRESH_TAT_NS;
        }
        final long lagNs = ceilingNs - Math.max(0, permits) * emissionIntervalNs;
        return addAtMost(nowNs, lagNs, Long.MAX_VALUE);
    }

    /**
     * The TAT of a pay-later cell that stores no permits at {@code t}, as Guava's {@code SmoothBursty} at its
     * creation: {@code t + &tau;}, saturated. A pay-later request waits only for its first permit, so the first
     * request at {@code t} passes and charges its whole cost; the next one waits for what it charged.
     *
     * @param nowNs       the time the cell starts empty.
     * @param toleranceNs &tau;, &ge; 0.
     * @return the initial TAT.
     */
    public static long emptyPayLaterTatNs(final long nowNs, final long toleranceNs)
    {
        return addAtMost(nowNs, toleranceNs, Long.MAX_VALUE);
    }

    /**
     * The initial fill of a front's cell, checked: as {@link #initialTatNs(long, long, long, long)}, after
     * checking {@code initialPermits} (construction time only).
     *
     * @param nowNs          the creation time.
     * @param initialPermits permits available at creation, in [0, {@link Long#MAX_VALUE}]; at or above the burst
     *                       the cell is full.
     * @param emissionIntervalNs T of the cell's limit.
     * @param ceilingNs          &tau; + T of the cell's limit.
     * @return the initial TAT.
     * @throws IllegalArgumentException naming {@code initialPermits} if it is negative.
     */
    public static long initialFillTatNs(
        final long nowNs, final long initialPermits, final long emissionIntervalNs, final long ceilingNs)
    {
        return initialTatNs(nowNs, Bounds.requireRange("initialPermits", initialPermits, 0, Long.MAX_VALUE),
            emissionIntervalNs, ceilingNs);
    }
}
