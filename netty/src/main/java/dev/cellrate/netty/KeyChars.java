package dev.cellrate.netty;

/**
 * A reusable {@link CharSequence} view of a key's bytes, one char per byte ({@code 0..255}, ISO-8859-1), so
 * that a byte key reaches every keyed front through the {@code CharSequence} forms of the engine's contracts.
 * Distinct byte keys are distinct char keys, and an ASCII key is the same key as its {@code String}.
 * <p>
 * Fronts hash the view and do not retain it (the engine's contract), so one instance per handler is rewrapped
 * for every request; {@link #toString()} allocates and is for diagnostics only. Not thread-safe.
 */
final class KeyChars implements CharSequence
{
    private byte[] bytes;
    private int offset;
    private int length;

    KeyChars wrap(final byte[] bytes, final int offset, final int length)
    {
        this.bytes = bytes;
        this.offset = offset;
        this.length = length;
        return this;
    }

    public int length()
    {
        return length;
    }

    public char charAt(final int index)
    {
        if (index < 0 || index >= length)
        {
            throw new IndexOutOfBoundsException("index " + index + " outside [0, " + length + ")");
        }
        return (char)(bytes[offset + index] & 0xFF);
    }

    public CharSequence subSequence(final int start, final int end)
    {
        return toString().substring(start, end);
    }

    public String toString()
    {
        return new String(bytes, offset, length, java.nio.charset.StandardCharsets.ISO_8859_1);
    }
}
