package dev.cellrate.reconfigure;

import dev.cellrate.check.Bounds;
import dev.cellrate.layout.CellArray;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import dev.cellrate.gcra.CellLoop;
import dev.cellrate.gcra.Gcra;
import dev.cellrate.translate.GuavaBursty;
import org.agrona.concurrent.AtomicBuffer;

/**
 * A Guava-compatible pay-later limiter ({@link dev.cellrate.PayLaterRateLimiter}) whose rate can be changed
 * live exactly as Guava's {@code RateLimiter.setRate} changes a {@code SmoothBursty} limiter, including an
 * unlimited rate (Guava's {@code setRate(Double.POSITIVE_INFINITY)}), so limiting can be switched off and on
 * (one documented corner where it differs from Guava: see {@link #setRate(GuavaBursty, long)}).
 * <p>
 * Guava's rule, in cellrate's terms ({@code TAT = nextFree + (M - stored) T}, {@code M T = &tau;} = 1 s): setRate
 * keeps {@code nextFree} and scales the stored permits by {@code M'/M}; since {@code M' T' = M T}, the stored
 * <em>time</em> is unchanged, so the TAT is kept (debt and stored permits kept in time). Exact when T is a whole
 * number of ns (rates dividing 10<sup>9</sup>) and Guava's doubles are exact (checked against the real Guava
 * jar on seeded traces, {@code GuavaSetRateDifferentialTest}). Unlimited: a request is admitted once the debt
 * from before the switch has been served ({@code nextFree &le; now}, as Guava), and nothing is charged; back to
 * a finite rate, Guava refills the store ({@code stored = M'}), i.e. the TAT becomes {@code nextFree}
 * ({@code TAT - &tau;} of the limit before the switch): a full bucket unless the old debt is still running.
 * <p>
 * Concurrency: a decision goes through the one cell loop ({@link CellLoop}) and checks the settings once per
 * CAS attempt, after reading the word; a decision concurrent with a change decides wholly under the old or the
 * new settings. Leaving unlimited rewrites the TAT (one CAS loop) before publishing
 * the new settings, so a decision that reads the new settings sees the rewritten TAT. Allocation-free decisions.
 * Changes: any thread, serialised among themselves.
 */
public final class ReconfigurablePayLaterRateLimiter
{
    private final AtomicBuffer buffer;
    private final int tatOffset;
    /** The cell word as base object and address (the cell loop's raw access; {@link #buffer} keeps it alive). */
    private final Object base;
    private final long address;
    private final Charge charge = new Charge();
    private volatile Settings settings;

    /**
     * @param guava     the translation of {@code RateLimiter.create(r)}.
     * @param createdNs the creation time (the limiter starts empty, as Guava's).
     */
    public ReconfigurablePayLaterRateLimiter(final GuavaBursty guava, final long createdNs)
    {
        Bounds.requireNonNull("guava", guava);
        buffer = CellArray.allocate(1).buffer();
        tatOffset = CellArray.tatOffset(0);
        base = buffer.byteArray();
        address = buffer.addressOffset() + tatOffset;
        buffer.putLongVolatile(tatOffset, Gcra.emptyPayLaterTatNs(createdNs, guava.limit().toleranceNs()));
        settings = Settings.of(guava.limit());
    }

    /**
     * @param permits the cost, in [1, max permits of the current rate]; admitted when one permit would be, all
     *                charged (pay later).
     * @param nowNs   the time of the request, ns.
     * @return {@link Result#ADMITTED}, a positive retry-after in ns, or {@link Result#NEVER}.
     */
    public long tryAcquire(final long permits, final long nowNs)
    {
        while (true)
        {
            final Settings settings = this.settings;
            if (permits < 1 || permits > settings.maxPermits)
            {
                return Result.NEVER;
            }
            if (settings.unlimited)
            {
                final long tatNs = buffer.getLongAcquire(tatOffset);
                if (settings != this.settings)
                {
                    continue; // the settings changed after the read above: decide under the new ones
                }
                // pay-later conformance lag <= tau: GCRA's retry-after with slack tau (ceiling tau + 1, increment 1)
                final long retryAfterNs = Gcra.retryAfterNs(tatNs, nowNs, 1, settings.toleranceNs + 1);
                return retryAfterNs > 0 ? retryAfterNs : Result.ADMITTED;
            }
            // pay-later conformance lag <= tau is GCRA's with ceiling tau + I
            final long incrementNs = permits * settings.emissionIntervalNs;
            final long code = charge.charge(
                base, address, incrementNs, settings.toleranceNs + incrementNs, nowNs, settings);
            if (CellLoop.STALE != code)
            {
                return code;
            }
        }
    }

    /**
     * The cell loop of a decision under one snapshot of the settings: each attempt first checks that the
     * snapshot is still the current one (read after the word it decides on), else the decision starts again
     * under the new settings.
     */
    private final class Charge extends CellLoop<Settings>
    {
        protected boolean stale(final Settings snapshot)
        {
            return snapshot != settings;
        }
    }

    /** The cell loop's rewrite of the TAT when leaving unlimited (see {@link #setRate}). */
    private static final class LeaveUnlimited extends CellLoop<Object>
    {
        private final long oldToleranceNs;
        private final long newToleranceNs;

        LeaveUnlimited(final long oldToleranceNs, final long newToleranceNs)
        {
            this.oldToleranceNs = oldToleranceNs;
            this.newToleranceNs = newToleranceNs;
        }

        protected long updatedTatNs(
            final Object holder, final long tatNs, final long nowNs, final long incrementNs, final long ceilingNs)
        {
            return afterUnlimitedTatNs(tatNs, oldToleranceNs, newToleranceNs, nowNs);
        }
    }

    /**
     * Guava's {@code setRate(r)} with the translation of {@code create(r)}, at {@code nowNs}: the TAT is kept.
     * After unlimited, Guava refills the store: the TAT becomes {@code nextFree} (a full bucket) when the debt
     * from before the switch has been served by {@code nowNs}. If that debt is still running, Guava's state
     * (a full store that cannot be used before {@code nextFree}) has no single-TAT equivalent; this limiter
     * then takes {@code TAT = nextFree + &tau;'}: the same first admission time, an empty store after it, so it
     * admits fewer than Guava right after {@code nextFree} and may later admit a request that Guava, having
     * spent its store, rejects (on the differential test's seeded traces: 3,112 admissions where Guava made
     * 3,232 over the 4,017 decisions that followed such a switch; every other decision identical).
     *
     * @param guava the translation of the new rate.
     * @param nowNs the time of the change, ns (Guava reads its clock here).
     */
    public synchronized void setRate(final GuavaBursty guava, final long nowNs)
    {
        Bounds.requireNonNull("guava", guava);
        final Settings old = settings;
        final Settings next = Settings.of(guava.limit());
        if (old.unlimited)
        {
            new LeaveUnlimited(old.toleranceNs, next.toleranceNs).update(base, address, 0, 0, nowNs, null);
        }
        settings = next;
    }

    private static long afterUnlimitedTatNs(
        final long tatNs, final long oldToleranceNs, final long newToleranceNs, final long nowNs)
    {
        final long nextFreeNs = tatNs >= Long.MIN_VALUE + oldToleranceNs ? tatNs - oldToleranceNs : Long.MIN_VALUE;
        if (nextFreeNs <= nowNs)
        {
            return nextFreeNs;
        }
        return nextFreeNs <= Long.MAX_VALUE - newToleranceNs ? nextFreeNs + newToleranceNs : Long.MAX_VALUE;
    }

    /**
     * Guava's {@code setRate(Double.POSITIVE_INFINITY)}: admit everything once the debt already incurred has
     * been served; charge nothing.
     */
    public synchronized void setUnlimited()
    {
        final Settings old = settings;
        if (!old.unlimited)
        {
            settings = new Settings(old.emissionIntervalNs, old.toleranceNs, Integer.MAX_VALUE, true);
        }
    }

    /**
     * @return true while unlimited.
     */
    public boolean isUnlimited()
    {
        return settings.unlimited;
    }

    /**
     * @return the cell's TAT (acquire read); inside the engine only.
     */
    long tatNs()
    {
        return buffer.getLongAcquire(tatOffset);
    }

    private static final class Settings
    {
        final long emissionIntervalNs;
        final long toleranceNs;
        final long maxPermits;
        final boolean unlimited;

        Settings(final long emissionIntervalNs, final long toleranceNs, final long maxPermits, final boolean unlimited)
        {
            this.emissionIntervalNs = emissionIntervalNs;
            this.toleranceNs = toleranceNs;
            this.maxPermits = maxPermits;
            this.unlimited = unlimited;
        }

        static Settings of(final Limit limit)
        {
            return new Settings(limit.emissionIntervalNs(), limit.toleranceNs(),
                Math.min(Integer.MAX_VALUE, Limit.MAX_CEILING_NS / limit.emissionIntervalNs()), false);
        }
    }
}
