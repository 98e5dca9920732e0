package dev.cellrate.stat;

import dev.cellrate.RateLimiter;

/**
 * A candidate limit tried in shadow beside the enforced one: every request is decided by both; the enforced
 * limiter's code is returned and counted, the shadow limiter runs in dry-run (it charges its own cell exactly
 * as if it were enforced, never rejects, and counts {@link StatKind#WOULD_REJECT}). Allocation-free; the
 * shadow costs one more decision and one more counter add.
 */
public final class ShadowRateLimiter
{
    private final RateLimiter enforced;
    private final LimiterStats enforcedStats;
    private final RateLimiter shadow;
    private final LimiterStats shadowStats;

    /**
     * @param enforced      the limiter whose decisions count.
     * @param enforcedStats its counters.
     * @param shadow        the candidate limiter (its own cell).
     * @param shadowStats   its counters (under another name, e.g. "api.shadow").
     */
    public ShadowRateLimiter(
        final RateLimiter enforced, final LimiterStats enforcedStats,
        final RateLimiter shadow, final LimiterStats shadowStats)
    {
        if (null == enforced || null == enforcedStats || null == shadow || null == shadowStats)
        {
            throw new IllegalArgumentException("enforced, enforcedStats, shadow and shadowStats must not be null");
        }
        this.enforced = enforced;
        this.enforcedStats = enforcedStats;
        this.shadow = shadow;
        this.shadowStats = shadowStats;
    }

    /**
     * @param permits the cost.
     * @param nowNs   the time of the request, ns.
     * @return the enforced limiter's code.
     */
    public long tryAcquire(final long permits, final long nowNs)
    {
        shadowStats.dryRun(shadow.tryAcquire(permits, nowNs));
        return enforcedStats.record(enforced.tryAcquire(permits, nowNs));
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
