package dev.cellrate.stat;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Result;

/**
 * Dry-run codes: a limiter run in dry-run ({@link LimiterStats#dryRun(long)}) decides and counts but never
 * rejects; where it would have rejected it answers {@link #WOULD_HAVE_REJECTED}, an admission.
 */
public final class DryRun
{
    /**
     * Admitted in dry-run although the limit rejected: the request goes through; the rejection was counted.
     * It is not {@link Result#ADMITTED}, so use {@link #isAdmitted(long)} on dry-run codes.
     */
    public static final long WOULD_HAVE_REJECTED = -15;

    private DryRun()
    {
    }

    /**
     * @param code a code of a policing front, possibly passed through {@link LimiterStats#dryRun(long)}.
     * @return true if the request may go.
     */
    public static boolean isAdmitted(final long code)
    {
        return WOULD_HAVE_REJECTED == code || KeyedRateLimiter.isAdmitted(code);
    }
}
