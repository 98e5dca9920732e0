package dev.cellrate.observe;

import dev.cellrate.stat.LimiterStats;
import dev.cellrate.check.Bounds;
import dev.cellrate.Decision;
import dev.cellrate.Limiter;
import dev.cellrate.Result;
import org.agrona.concurrent.NanoClock;

/**
 * Any {@link Limiter} with its decisions counted in a {@link LimiterStats}: enforced ({@link #enforced}), or in
 * dry-run ({@link #dryRun}: decides and counts, never rejects; where the limit rejects it answers
 * {@link Result#WOULD_HAVE_REJECTED}, an admission for {@link Result#isAdmitted}). A rejection charges nothing,
 * so a dry-run limiter's state is exactly the enforced one's and its counters say exactly what enforcing would
 * do. Allocation-free; adds one counter add (and, in dry-run on a rejection, a second) to each decision.
 */
public final class ObservedLimiter implements Limiter
{
    private final Limiter limiter;
    private final LimiterStats stats;
    private final boolean dryRun;

    private ObservedLimiter(final Limiter limiter, final LimiterStats stats, final boolean dryRun)
    {
        Bounds.requireNonNull("limiter", limiter);
        Bounds.requireNonNull("stats", stats);
        this.limiter = limiter;
        this.stats = stats;
        this.dryRun = dryRun;
    }

    /**
     * @param limiter the limiter.
     * @param stats   its counters.
     * @return the limiter, enforced, its outcomes counted.
     */
    public static ObservedLimiter enforced(final Limiter limiter, final LimiterStats stats)
    {
        return new ObservedLimiter(limiter, stats, false);
    }

    /**
     * @param limiter the limiter.
     * @param stats   its counters.
     * @return the limiter in dry-run: never rejects, counts what it would have rejected.
     */
    public static ObservedLimiter dryRun(final Limiter limiter, final LimiterStats stats)
    {
        return new ObservedLimiter(limiter, stats, true);
    }

    public long tryAcquire(final long permits, final long nowNs)
    {
        final long code = limiter.tryAcquire(permits, nowNs);
        return dryRun ? stats.dryRun(code) : stats.record(code);
    }

    public long tryAcquire(final long permits, final long nowNs, final Decision decision)
    {
        final long code = limiter.tryAcquire(permits, nowNs, decision);
        return dryRun ? ObservedKeyedLimiter.pass(stats.dryRun(code), code, decision) : stats.record(code);
    }

    public NanoClock clock()
    {
        return limiter.clock();
    }

    /**
     * @return true in dry-run.
     */
    public boolean isDryRun()
    {
        return dryRun;
    }

    /**
     * @return the counters.
     */
    public LimiterStats stats()
    {
        return stats;
    }
}
