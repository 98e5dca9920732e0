package dev.cellrate.stat;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Result;
import dev.cellrate.shaper.ShaperResult;

/**
 * Classifies a decision's result code into the {@link StatKind} outcome it counts as. Pure, allocation-free.
 * The only place that reads the code space for statistics.
 */
public final class Outcome
{
    private Outcome()
    {
    }

    /**
     * @param code a code returned by a policing front (single, keyed, window, composite, concurrency,
     *             pay-later, warm-up) or {@link DryRun#WOULD_HAVE_REJECTED}.
     * @return the outcome's kind index ({@link StatKind#ordinal()}).
     */
    public static int kindOf(final long code)
    {
        if (Result.ADMITTED == code || DryRun.WOULD_HAVE_REJECTED == code)
        {
            return StatKind.ADMITTED.ordinal();
        }
        if (code > 0)
        {
            return StatKind.REJECTED.ordinal();
        }
        if (Result.NEVER == code)
        {
            return StatKind.NEVER_FIT.ordinal();
        }
        if (Result.TABLE_FULL == code || KeyedRateLimiter.REJECTED_OVERFLOW == code)
        {
            return StatKind.TABLE_FULL_REJECTED.ordinal();
        }
        if (KeyedRateLimiter.ADMITTED_TABLE_FULL == code || KeyedRateLimiter.ADMITTED_OVERFLOW == code)
        {
            return StatKind.TABLE_FULL_ADMITTED.ordinal();
        }
        return StatKind.OTHER_REJECTED.ordinal();
    }

    /**
     * @param code a code returned by a shaper's {@code reserve} ({@link ShaperResult}).
     * @return the outcome's kind index.
     */
    public static int kindOfShaper(final long code)
    {
        if (ShaperResult.isAdmitted(code))
        {
            return StatKind.ADMITTED.ordinal();
        }
        if (ShaperResult.isRetryAfter(code))
        {
            return StatKind.REJECTED.ordinal();
        }
        if (Result.NEVER == code)
        {
            return StatKind.NEVER_FIT.ordinal();
        }
        return Result.TABLE_FULL == code ? StatKind.TABLE_FULL_REJECTED.ordinal() : StatKind.OTHER_REJECTED.ordinal();
    }

    /**
     * @param code a code returned by {@code ConcurrencyLimiter.tryAcquire} (a ticket &ge; 0 when admitted).
     * @return the outcome's kind index.
     */
    public static int kindOfTicket(final long code)
    {
        return code >= 0 ? StatKind.ADMITTED.ordinal() : StatKind.OTHER_REJECTED.ordinal();
    }

    /**
     * @param kind a kind index.
     * @return true if the outcome let the request through.
     */
    public static boolean isAdmission(final int kind)
    {
        return StatKind.ADMITTED.ordinal() == kind || StatKind.TABLE_FULL_ADMITTED.ordinal() == kind;
    }
}
