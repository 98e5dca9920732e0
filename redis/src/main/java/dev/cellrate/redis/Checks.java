package dev.cellrate.redis;

/**
 * Configuration checks of this module: a bad value fails at start with a message that names the field and its
 * range.
 */
final class Checks
{
    private Checks()
    {
    }

    static long requireRange(final String field, final long value, final long min, final long max)
    {
        if (value < min || value > max)
        {
            throw new IllegalArgumentException(field + " must be in [" + min + ", " + max + "] but was " + value);
        }
        return value;
    }
}
