package dev.cellrate.check;

/**
 * The construction-time check every cellrate configuration uses, so that a bad value fails with one message
 * shape: the field's name, its allowed range, and the value given. Never called on a decision path.
 */
public final class Bounds
{
    private Bounds()
    {
    }

    /**
     * @param field the configuration field's name, as the user wrote it.
     * @param value the value given.
     * @param min   smallest allowed value.
     * @param max   largest allowed value.
     * @return {@code value}, if it is in [min, max].
     * @throws IllegalArgumentException "{@code field} must be in [min, max] but was value".
     */
    public static long requireRange(final String field, final long value, final long min, final long max)
    {
        if (value < min || value > max)
        {
            throw new IllegalArgumentException(field + " must be in [" + min + ", " + max + "] but was " + value);
        }
        return value;
    }

    /**
     * @param field the configuration field's name, as the user wrote it.
     * @param value the value given.
     * @param <T>   its type.
     * @return {@code value}, if it is not null.
     * @throws IllegalArgumentException "{@code field} must not be null".
     */
    public static <T> T requireNonNull(final String field, final T value)
    {
        if (null == value)
        {
            throw new IllegalArgumentException(field + " must not be null");
        }
        return value;
    }
}
