package dev.cellrate.stat;

import dev.cellrate.Result;
import dev.cellrate.tcm.Colour;

/**
 * Classifies a result code into the {@link StatKind} outcome it counts as, through {@link Result}'s one code
 * space. Pure, allocation-free. Two conventions, as {@link Result} defines them: a decision
 * ({@code tryAcquire}) and a reservation ({@code reserve}); a concurrency limit's ticket reads as a
 * reservation (admitted iff {@code >= 0}).
 */
final class Outcome
{
    private Outcome()
    {
    }

    /**
     * @param code a decision code (any {@code tryAcquire}, {@code peek}, {@code debit}).
     * @return the outcome's kind index ({@link StatKind#ordinal()}).
     */
    static int kindOf(final long code)
    {
        if (Result.ADMITTED == code || Result.WOULD_HAVE_REJECTED == code)
        {
            return StatKind.ADMITTED.ordinal();
        }
        if (code > 0)
        {
            return StatKind.REJECTED.ordinal();
        }
        return kindOfNegative(code);
    }

    /**
     * @param code a reservation code (a shaper's {@code reserve}), or a concurrency limit's ticket.
     * @return the outcome's kind index.
     */
    static int kindOfReservation(final long code)
    {
        if (Result.isReserved(code))
        {
            return StatKind.ADMITTED.ordinal();
        }
        if (Result.isEncodedRetryAfter(code))
        {
            return StatKind.REJECTED.ordinal();
        }
        return kindOfNegative(code);
    }

    /**
     * @param colour a marker's colour ({@code dev.cellrate.tcm.Colour}).
     * @return ADMITTED for GREEN and YELLOW (a policer forwards them), REJECTED for RED, OTHER_REJECTED for
     * anything else.
     */
    static int kindOfColour(final int colour)
    {
        if (Colour.RED == colour)
        {
            return StatKind.REJECTED.ordinal();
        }
        return Colour.isValid(colour) ? StatKind.ADMITTED.ordinal() : StatKind.OTHER_REJECTED.ordinal();
    }

    private static int kindOfNegative(final long code)
    {
        if (Result.NEVER == code)
        {
            return StatKind.NEVER_FIT.ordinal();
        }
        if (Result.TABLE_FULL == code || Result.REJECTED_OVERFLOW == code)
        {
            return StatKind.TABLE_FULL_REJECTED.ordinal();
        }
        if (Result.ADMITTED_TABLE_FULL == code || Result.ADMITTED_OVERFLOW == code)
        {
            return StatKind.TABLE_FULL_ADMITTED.ordinal();
        }
        // Any other admitting code (e.g. a shared-store front's fail-open) counts as admitted.
        return Result.isAdmitted(code) ? StatKind.ADMITTED.ordinal() : StatKind.OTHER_REJECTED.ordinal();
    }

    /**
     * @param kind a kind index.
     * @return true if the outcome let the request through.
     */
    static boolean isAdmission(final int kind)
    {
        return StatKind.ADMITTED.ordinal() == kind || StatKind.TABLE_FULL_ADMITTED.ordinal() == kind;
    }
}
