package dev.cellrate.observe;

import dev.cellrate.stat.LimiterStats;
import dev.cellrate.stat.StatKind;
import dev.cellrate.check.Bounds;
import dev.cellrate.Decision;
import dev.cellrate.Limiter;
import org.agrona.concurrent.NanoClock;

/**
 * A candidate limit tried in shadow beside the enforced one: every request is decided by both; the enforced
 * limiter's code is returned and counted, the shadow limiter runs in dry-run (it charges its own state exactly
 * as if it were enforced, never affects the answer, and counts {@link StatKind#WOULD_REJECT}). Allocation-free;
 * the shadow costs one more decision and one more counter add.
 */
public final class ShadowLimiter implements Limiter
{
    private final Limiter enforced;
    private final LimiterStats enforcedStats;
    private final Limiter shadow;
    private final LimiterStats shadowStats;

    /**
     * @param enforced      the limiter whose decisions count.
     * @param enforcedStats its counters.
     * @param shadow        the candidate limiter (its own state).
     * @param shadowStats   its counters (under another name, e.g. "api.shadow").
     */
    public ShadowLimiter(
        final Limiter enforced, final LimiterStats enforcedStats, final Limiter shadow, final LimiterStats shadowStats)
    {
        Bounds.requireNonNull("enforced", enforced);
        Bounds.requireNonNull("enforcedStats", enforcedStats);
        Bounds.requireNonNull("shadow", shadow);
        Bounds.requireNonNull("shadowStats", shadowStats);
        this.enforced = enforced;
        this.enforcedStats = enforcedStats;
        this.shadow = shadow;
        this.shadowStats = shadowStats;
    }

    public long tryAcquire(final long permits, final long nowNs)
    {
        shadowStats.dryRun(shadow.tryAcquire(permits, nowNs));
        return enforcedStats.record(enforced.tryAcquire(permits, nowNs));
    }

    public long tryAcquire(final long permits, final long nowNs, final Decision decision)
    {
        shadowStats.dryRun(shadow.tryAcquire(permits, nowNs));
        return enforcedStats.record(enforced.tryAcquire(permits, nowNs, decision));
    }

    public NanoClock clock()
    {
        return enforced.clock();
    }

    /**
     * @return the enforced limiter's counters.
     */
    public LimiterStats enforcedStats()
    {
        return enforcedStats;
    }

    /**
     * @return the shadow limiter's counters.
     */
    public LimiterStats shadowStats()
    {
        return shadowStats;
    }
}
