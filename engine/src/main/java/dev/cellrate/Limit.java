package dev.cellrate;

import dev.cellrate.check.Bounds;
import dev.cellrate.gcra.Gcra;

import static dev.cellrate.check.Bounds.requireRange;

import java.util.concurrent.TimeUnit;

/**
 * An immutable GCRA(T, &tau;) contract in integer nanoseconds: emission interval {@code T} (the cost of one
 * permit) and tolerance {@code &tau;} (how far ahead of the schedule a request may arrive).
 * <p>
 * On non-decreasing times the same limit is a token bucket that starts full, holds {@code (&tau; + T) / T}
 * tokens and refills one token per {@code T}: the two decide identically on every request (see
 * {@code docs/design.md}). That capacity is the integer {@code burst = 1 + floor(&tau; / T)} exactly when
 * {@code T} divides {@code &tau;}, as for every limit built by {@link #of} and {@link #perSecond}; a limit from
 * {@link #ofGcra} with {@code T} not dividing {@code &tau;} is a bucket of fractional capacity.
 * <p>
 * <b>Bounds.</b> Every decision compares lags against the <em>ceiling</em> {@code &tau; + T}. A limit is
 * accepted only when {@code T >= 1}, {@code &tau; >= 0} and {@code &tau; + T <= }{@link #MAX_CEILING_NS}
 * (2<sup>62</sup> ns, about 146 years). Because a request may cost at most {@code burst} permits and
 * {@code burst * T <= &tau; + T}, no product {@code permits * T} on the decision path can overflow.
 */
public final class Limit
{
    /** Largest allowed {@code &tau; + T}: 2<sup>62</sup> ns. */
    public static final long MAX_CEILING_NS = Gcra.MAX_CEILING_NS;

    private final long emissionIntervalNs;
    private final long toleranceNs;
    private final long ceilingNs;
    private final long burst;

    private Limit(final long emissionIntervalNs, final long toleranceNs)
    {
        this.emissionIntervalNs = emissionIntervalNs;
        this.toleranceNs = toleranceNs;
        this.ceilingNs = toleranceNs + emissionIntervalNs;
        this.burst = 1 + toleranceNs / emissionIntervalNs;
    }

    /**
     * GCRA(T, &tau;) given directly.
     *
     * @param emissionIntervalNs T, in [1, 2<sup>62</sup>].
     * @param toleranceNs        &tau;, in [0, 2<sup>62</sup> - T].
     * @return the limit.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public static Limit ofGcra(final long emissionIntervalNs, final long toleranceNs)
    {
        requireRange("emissionIntervalNs", emissionIntervalNs, 1, MAX_CEILING_NS);
        requireRange("toleranceNs", toleranceNs, 0, MAX_CEILING_NS - emissionIntervalNs);
        return new Limit(emissionIntervalNs, toleranceNs);
    }

    /**
     * {@code permits} per {@code period}, with up to {@code burst} permits at once from idle (a token bucket
     * of capacity {@code burst}). T is {@code ceil(period / permits)}: rounded <em>up</em>, so the limiter
     * is never faster than asked; &tau; is {@code (burst - 1) * T}.
     *
     * @param permits permits per period, &ge; 1.
     * @param period  the period, &ge; 1 ns once converted, at most 2<sup>62</sup> ns.
     * @param unit    unit of {@code period}.
     * @param burst   token-bucket capacity, in [1, 2<sup>62</sup> / T].
     * @return the limit.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public static Limit of(final long permits, final long period, final TimeUnit unit, final long burst)
    {
        Bounds.requireNonNull("unit", unit);
        requireRange("permits", permits, 1, Long.MAX_VALUE);
        requireRange("period", period, 1, Long.MAX_VALUE);
        final long periodNs = unit.toNanos(period);
        requireRange("period (in ns)", periodNs, 1, MAX_CEILING_NS);
        final long emissionIntervalNs = periodNs / permits + (periodNs % permits != 0 ? 1 : 0);
        requireRange("burst", burst, 1, MAX_CEILING_NS / emissionIntervalNs);
        return new Limit(emissionIntervalNs, (burst - 1) * emissionIntervalNs);
    }

    /**
     * {@code permitsPerSecond} per second with a token-bucket capacity of {@code burst}.
     *
     * @param permitsPerSecond rate, &ge; 1.
     * @param burst            capacity, &ge; 1.
     * @return the limit.
     * @see #of(long, long, TimeUnit, long)
     */
    public static Limit perSecond(final long permitsPerSecond, final long burst)
    {
        return of(permitsPerSecond, 1, TimeUnit.SECONDS, burst);
    }

    /**
     * @return T, the emission interval in ns (the cost of one permit).
     */
    public long emissionIntervalNs()
    {
        return emissionIntervalNs;
    }

    /**
     * @return &tau;, the tolerance in ns.
     */
    public long toleranceNs()
    {
        return toleranceNs;
    }

    /**
     * @return &tau; + T: a request conforms iff its lag after paying is at most this.
     */
    public long ceilingNs()
    {
        return ceilingNs;
    }

    /**
     * @return b = 1 + floor(&tau; / T): the most permits admitted at one instant from idle.
     */
    public long burst()
    {
        return burst;
    }

    /**
     * The TAT increment for a cost, or {@link Result#NEVER} when the cost is outside [1, burst] (such a
     * request can never conform, so it is answered without touching the cell).
     *
     * @param permits the cost.
     * @return {@code permits * T}, or {@link Result#NEVER}.
     */
    public long incrementNs(final long permits)
    {
        return permits >= 1 && permits <= burst ? permits * emissionIntervalNs : Result.NEVER;
    }


    /**
     * @return the largest lag a debit may leave: {@code 2 (&tau; + T)}, one full burst of debt (see
     * {@link DebitLimiter}).
     */
    public long debtCeilingNs()
    {
        return Gcra.debtCeilingNs(ceilingNs);
    }

    /**
     * @param permits the cost of a debit, any size &ge; 1.
     * @return {@code permits * T}, clamped at {@link #debtCeilingNs()}; {@link Result#NEVER} below 1 permit.
     */
    public long debitIncrementNs(final long permits)
    {
        if (permits < 1)
        {
            return Result.NEVER;
        }
        final long debtCeilingNs = debtCeilingNs();
        return permits > debtCeilingNs / emissionIntervalNs ? debtCeilingNs : permits * emissionIntervalNs;
    }

    public boolean equals(final Object o)
    {
        if (this == o)
        {
            return true;
        }
        if (!(o instanceof Limit))
        {
            return false;
        }
        final Limit that = (Limit)o;
        return emissionIntervalNs == that.emissionIntervalNs && toleranceNs == that.toleranceNs;
    }

    public int hashCode()
    {
        return Long.hashCode(emissionIntervalNs) * 31 + Long.hashCode(toleranceNs);
    }

    public String toString()
    {
        return "Limit{emissionIntervalNs=" + emissionIntervalNs + ", toleranceNs=" + toleranceNs +
            ", burst=" + burst + '}';
    }
}
