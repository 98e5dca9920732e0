package dev.cellrate.observe;

import dev.cellrate.stat.LimiterStats;
import dev.cellrate.check.Bounds;
import dev.cellrate.Result;
import dev.cellrate.concurrency.ConcurrencyLimiter;

/**
 * A {@link ConcurrencyLimiter} with its acquisitions counted in a {@link LimiterStats}: enforced
 * ({@link #enforced}) or in dry-run ({@link #dryRun}): never rejects. In dry-run a free slot is answered with
 * its ticket as enforced; when every slot is taken the answer is {@link #DRY_RUN_TICKET} (a ticket {@code >= 0},
 * as every pass answers: go, holding nothing) instead of {@link Result#CONCURRENCY_FULL}, and {@link #release(long)} of it does nothing. The
 * limiter then holds exactly the requests the enforced one would hold, so its counters say exactly what
 * enforcing would reject. {@link ObservedReserver#proceeds(long)} reads both answers. Allocation-free.
 */
public final class ObservedConcurrencyLimiter
{
    /**
     * The ticket of a dry-run pass when every slot is taken: {@code >= 0} like every ticket, held by nobody;
     * {@link #release(long)} of it does nothing. (The limiter itself could only issue this value as the ticket of
     * slot 2<sup>20</sup> &minus; 1 at generation 2<sup>43</sup> &minus; 1; releasing such a real ticket through
     * a dry-run wrapper would leave its slot held: under-admission, never over-admission.)
     */
    public static final long DRY_RUN_TICKET = Long.MAX_VALUE;

    private final ConcurrencyLimiter limiter;
    private final LimiterStats stats;
    private final boolean dryRun;

    private ObservedConcurrencyLimiter(final ConcurrencyLimiter limiter, final LimiterStats stats, final boolean dryRun)
    {
        Bounds.requireNonNull("limiter", limiter);
        Bounds.requireNonNull("stats", stats);
        this.limiter = limiter;
        this.stats = stats;
        this.dryRun = dryRun;
    }

    /**
     * @param limiter the concurrency limit.
     * @param stats   its counters.
     * @return the limit, enforced, its outcomes counted.
     */
    public static ObservedConcurrencyLimiter enforced(final ConcurrencyLimiter limiter, final LimiterStats stats)
    {
        return new ObservedConcurrencyLimiter(limiter, stats, false);
    }

    /**
     * @param limiter the concurrency limit.
     * @param stats   its counters.
     * @return the limit in dry-run: never rejects, counts what it would have rejected.
     */
    public static ObservedConcurrencyLimiter dryRun(final ConcurrencyLimiter limiter, final LimiterStats stats)
    {
        return new ObservedConcurrencyLimiter(limiter, stats, true);
    }

    /**
     * @return a ticket ({@code >= 0}); when every slot is taken, {@link Result#CONCURRENCY_FULL} (enforced) or
     * {@link #DRY_RUN_TICKET} (dry-run).
     */
    public long tryAcquire()
    {
        final long code = limiter.tryAcquire();
        if (!dryRun)
        {
            return stats.recordReservation(code);
        }
        return stats.dryRunReservation(code) == code ? code : DRY_RUN_TICKET;
    }

    /**
     * @param ticket what {@link #tryAcquire()} answered (a rejection or {@link #DRY_RUN_TICKET} is ignored).
     * @return true iff a slot was released.
     */
    public boolean release(final long ticket)
    {
        return DRY_RUN_TICKET != ticket && limiter.release(ticket);
    }

    /**
     * @return the requests holding a slot.
     */
    public long inFlight()
    {
        return limiter.inFlight();
    }

    /**
     * @return true in dry-run.
     */
    public boolean isDryRun()
    {
        return dryRun;
    }
}
