package dev.cellrate.warmup;

import dev.cellrate.Result;

/**
 * Guava's {@code SmoothWarmingUp} (cold factor 3) as pure functions over {@code long}s in integer ns: no
 * memory, no atomics, no floating point.
 * <p>
 * Algorithm. Guava keeps {@code storedPermits} and {@code nextFreeTicket}. With stable interval S, warm-up
 * period W and cold factor 3 it sets {@code thresholdPermits = W / (2S)}, {@code maxPermits = W / S}, a
 * cool-down interval of exactly S, and charges stored permits above the threshold along a line rising from
 * S (at the threshold) to 3S (at the maximum). Measured in time instead of permits, the store is
 * {@code stored = storedPermits * S} ns in [0, W], the threshold W/2, and:
 * <ul>
 *     <li>idle time refills the store one ns per ns after {@code nextFree}, up to W ({@link #storedNs});</li>
 *     <li>a request is admitted iff {@code nextFree <= t} (whatever its cost: "the next caller pays");</li>
 *     <li>taking n permits spends {@code spend = min(n*S, stored)} of the store and moves
 *     {@code nextFree} to {@code t + n*S + extra}, where the trapezoid above the threshold costs
 *     {@code extra = 2 x (2a - x) / W} with {@code a = max(0, stored - W/2)} and {@code x = min(a, n*S)}
 *     ({@link #extraNs}). Derivation: the interval at store level {@code a} above the threshold is
 *     {@code S + 4a/W * S} per permit; integrating over the {@code x/S} permits taken from {@code a}
 *     downwards gives {@code x + 2x(2a - x)/W} ns, of which {@code x} is the stable cost.</li>
 * </ul>
 * Rounding: {@code extra} is a ratio; it is rounded <em>up</em> to the ns (never faster than the exact
 * curve). Guava truncates each wait to whole microseconds (and carries floating-point error), so it can be
 * up to a few microseconds earlier than the exact schedule; see {@code docs/warmup-and-composite.md}.
 * <p>
 * Arithmetic: callers guarantee {@code 0 <= stored <= W <= 2^61} and {@code n*S <= 2^62}; the one product
 * that can exceed 64 bits, {@code 2x(2a - x)} (when W exceeds about 3 s), is divided in 128 bits.
 */
final class WarmupMath
{
    /** The interval word of an unlimited rate (Guava's {@code Double.POSITIVE_INFINITY}): nothing is charged. */
    static final long UNLIMITED_INTERVAL_NS = 0;

    /** Largest cost: Guava's {@code tryAcquire(int)}. */
    static final long MAX_PERMITS = Integer.MAX_VALUE;

    /** Largest charge {@code n * S}: 2<sup>62</sup> ns. */
    static final long MAX_CHARGE_NS = 1L << 62;

    private WarmupMath()
    {
    }

    /**
     * @param permits    n.
     * @param intervalNs S in [1, 2<sup>62</sup>], or {@link #UNLIMITED_INTERVAL_NS}.
     * @return {@code n * S} (0 when unlimited), or a negative value ({@code Result.NEVER}) when n is outside
     * [1, {@link #MAX_PERMITS}] or {@code n * S} exceeds 2<sup>62</sup>: the cost can never be taken.
     */
    static long chargeNs(final long permits, final long intervalNs)
    {
        if (permits < 1 || permits > MAX_PERMITS)
        {
            return Result.NEVER;
        }
        final long chargeNs = permits * intervalNs;
        return Math.multiplyHigh(permits, intervalNs) != 0 || chargeNs < 0 || chargeNs > MAX_CHARGE_NS ? Result.NEVER :
            chargeNs;
    }

    /**
     * @param intervalNs S &ge; 1.
     * @return the largest cost S allows: {@code min(MAX_PERMITS, 2^62 / S)}.
     */
    static long maxPermits(final long intervalNs)
    {
        return UNLIMITED_INTERVAL_NS == intervalNs ? MAX_PERMITS : Math.min(MAX_PERMITS, MAX_CHARGE_NS / intervalNs);
    }

    /**
     * The next free time after a debit (Guava's {@code reserve}: charged whatever nextFree is), bounded.
     *
     * @param nextFreeNs the next free time before.
     * @param nowNs      the time of the debit.
     * @param waitNs     the wait the charge adds ({@link #waitNs}).
     * @param debtNs     the bound: the result is at most {@code max(nextFree, now + debtNs)}.
     * @return {@code max(nextFree, min(max(nextFree, now) + wait, now + debtNs))}, saturated; never below nextFree.
     */
    static long debitedNextFreeNs(final long nextFreeNs, final long nowNs, final long waitNs, final long debtNs)
    {
        final long baseNs = Math.max(nextFreeNs, nowNs);
        final long targetNs = baseNs > Long.MAX_VALUE - waitNs ? Long.MAX_VALUE : baseNs + waitNs;
        final long capNs = nowNs > Long.MAX_VALUE - debtNs ? Long.MAX_VALUE : nowNs + debtNs;
        return Math.max(nextFreeNs, Math.min(targetNs, capNs));
    }

    /**
     * The store after idling (Guava's {@code resync}).
     *
     * @param storedNs   the store after the last admission, in [0, W].
     * @param nextFreeNs the next free time after the last admission.
     * @param nowNs      the time of the request.
     * @param warmupNs   W.
     * @return {@code min(W, stored + max(0, now - nextFree))}, without overflow.
     */
    public static long storedNs(final long storedNs, final long nextFreeNs, final long nowNs, final long warmupNs)
    {
        if (nowNs <= nextFreeNs)
        {
            return storedNs;
        }
        final long idleNs = nowNs - nextFreeNs;
        return idleNs < 0 || idleNs >= warmupNs - storedNs ? warmupNs : storedNs + idleNs;
    }

    /**
     * The cold surcharge of taking {@code chargeNs = n*S} from a store of {@code storedNs}.
     *
     * @param storedNs the store at the admission, in [0, W].
     * @param chargeNs {@code n * S}, &ge; 0.
     * @param warmupNs W &ge; 1.
     * @return {@code ceil(2x(2a - x) / W)} with {@code a = max(0, stored - W/2)}, {@code x = min(a, n*S)};
     * in [0, W/2 + 1].
     */
    public static long extraNs(final long storedNs, final long chargeNs, final long warmupNs)
    {
        // a = stored - W/2 exactly, scaled by 2 to stay integral: a2 = 2*stored - W
        final long aboveTwiceNs = 2 * storedNs - warmupNs;
        if (aboveTwiceNs <= 0 || chargeNs <= 0)
        {
            return 0;
        }
        // with a2 = 2a and x2 = 2x: extra = 2x(2a - x)/W = x2 (2 a2 - x2) / (2W)
        final long takenTwiceNs = Math.min(aboveTwiceNs, chargeNs > Long.MAX_VALUE / 2 ? aboveTwiceNs : 2 * chargeNs);
        return mulDivCeil(takenTwiceNs, 2 * aboveTwiceNs - takenTwiceNs, 2 * warmupNs);
    }

    /**
     * @param storedNs the store at the admission, in [0, W].
     * @param chargeNs {@code n * S}.
     * @param warmupNs W.
     * @return the whole wait the admission adds to {@code nextFree}: {@code n*S + extra}.
     */
    public static long waitNs(final long storedNs, final long chargeNs, final long warmupNs)
    {
        return chargeNs + extraNs(storedNs, chargeNs, warmupNs);
    }

    /**
     * @param storedNs the store at the admission.
     * @param chargeNs {@code n * S}.
     * @return the store after the admission: {@code stored - min(n*S, stored)}.
     */
    public static long storedAfterNs(final long storedNs, final long chargeNs)
    {
        return chargeNs >= storedNs ? 0 : storedNs - chargeNs;
    }

    /**
     * {@code ceil(x * y / d)} for {@code 0 <= x, y}, {@code 1 <= d <= 2^63 - 1} and a quotient below
     * 2<sup>63</sup>, exact in 128 bits.
     *
     * @param x a factor &ge; 0.
     * @param y a factor &ge; 0.
     * @param d the divisor &ge; 1 (at most 2<sup>63</sup> - 1).
     * @return the rounded-up quotient.
     */
    static long mulDivCeil(final long x, final long y, final long d)
    {
        final long high = Math.multiplyHigh(x, y);
        final long low = x * y;
        if (0 == high && low >= 0)
        {
            final long quotient = low / d;
            return low % d != 0 ? quotient + 1 : quotient;
        }
        // shift-subtract long division of high:low by d; high < d because the quotient fits in 63 bits
        long remainder = high;
        long quotient = 0;
        for (int bit = 63; bit >= 0; bit--)
        {
            final boolean carry = remainder < 0;
            remainder = (remainder << 1) | ((low >>> bit) & 1);
            quotient <<= 1;
            if (carry || Long.compareUnsigned(remainder, d) >= 0)
            {
                remainder -= d;
                quotient |= 1;
            }
        }
        return remainder != 0 ? quotient + 1 : quotient;
    }
}
