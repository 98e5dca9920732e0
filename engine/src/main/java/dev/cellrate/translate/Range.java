package dev.cellrate.translate;

import dev.cellrate.Bounds;

/**
 * Construction-time validation shared by the translators: the message names the field and its allowed
 * range, in the shape of {@code dev.cellrate.Limit}'s checks.
 */
final class Range
{
    private Range()
    {
    }

    static long require(final String field, final long value, final long min, final long max)
    {
        return Bounds.requireRange(field, value, min, max);
    }

    static <T> T requireNonNull(final String field, final T value)
    {
        if (null == value)
        {
            throw new IllegalArgumentException(field + " must not be null");
        }
        return value;
    }

    /**
     * @param dividend &ge; 0.
     * @param divisor  &ge; 1.
     * @return {@code ceil(dividend / divisor)}.
     */
    static long ceilDiv(final long dividend, final long divisor)
    {
        final long quotient = dividend / divisor;
        return dividend % divisor != 0 ? quotient + 1 : quotient;
    }
}
