package dev.cellrate.stat;

import dev.cellrate.Bounds;
import dev.cellrate.Result;
import dev.cellrate.concurrency.ConcurrencyLimiter;

/**
 * A {@link ConcurrencyLimiter} with its acquisitions counted in a {@link LimiterStats}: enforced
 * ({@link #enforced}) or in dry-run ({@link #dryRun}): never rejects. In dry-run a free slot is answered with
 * its ticket as enforced; when every slot is taken the answer is {@link Result#WOULD_HAVE_REJECTED} (go, holding
 * nothing) instead of {@link Result#CONCURRENCY_FULL}, and {@link #release(long)} of it does nothing. The
 * limiter then holds exactly the requests the enforced one would hold, so its counters say exactly what
 * enforcing would reject. {@link ObservedReserver#proceeds(long)} reads both answers. Allocation-free.
 */
public final class ObservedConcurrencyLimiter
{
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
     * @return a ticket ({@code >= 0}); {@link Result#CONCURRENCY_FULL} (enforced) or
     * {@link Result#WOULD_HAVE_REJECTED} (dry-run) when every slot is taken.
     */
    public long tryAcquire()
    {
        final long code = limiter.tryAcquire();
        return dryRun ? stats.dryRunReservation(code) : stats.recordReservation(code);
    }

    /**
     * @param ticket what {@link #tryAcquire()} answered (a rejection or {@link Result#WOULD_HAVE_REJECTED} is
     *               ignored).
     * @return true iff a slot was released.
     */
    public boolean release(final long ticket)
    {
        return limiter.release(ticket);
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
