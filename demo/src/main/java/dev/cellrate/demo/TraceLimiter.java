package dev.cellrate.demo;

/**
 * One limiter, fresh, fed a trace one arrival at a time (demo only: not a hot path).
 */
interface TraceLimiter
{
    /** Returned by {@link #offer(long)} for a rejected request. */
    long REJECTED = -1;

    /**
     * @param nowNs the arrival time.
     * @return {@link #REJECTED}, or for an admitted request the ns it waits before release (0 for a policer;
     * a shaper delays conforming requests to their scheduled time).
     */
    long offer(long nowNs);
}
