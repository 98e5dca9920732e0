package dev.cellrate.redis;

/**
 * Builds the Redis key {@code prefix + key} in one right-sized array (the one Lettuce sends): UTF-8 for
 * character keys, encoded directly with no intermediate {@code String} or array; an unpaired surrogate
 * becomes {@code '?'} as {@link String#getBytes} would make it.
 */
final class RedisKeys
{
    private RedisKeys()
    {
    }

    static byte[] encode(final byte[] prefix, final long key)
    {
        int digits = key < 0 ? 2 : 1; // a sign, and at least one digit
        for (long v = key / 10; v != 0; v /= 10)
        {
            digits++;
        }
        final byte[] out = new byte[prefix.length + digits];
        System.arraycopy(prefix, 0, out, 0, prefix.length);
        long v = key;
        int p = out.length;
        do
        {
            out[--p] = (byte)('0' + Math.abs(v % 10));
            v /= 10;
        }
        while (v != 0);
        if (key < 0)
        {
            out[--p] = '-';
        }
        return out;
    }

    static byte[] encode(final byte[] prefix, final byte[] key, final int offset, final int length)
    {
        final byte[] out = new byte[prefix.length + length];
        System.arraycopy(prefix, 0, out, 0, prefix.length);
        System.arraycopy(key, offset, out, prefix.length, length);
        return out;
    }

    static byte[] encode(final byte[] prefix, final CharSequence key)
    {
        final int n = key.length();
        int size = prefix.length;
        for (int i = 0; i < n; i++)
        {
            final char c = key.charAt(i);
            if (c < 0x80)
            {
                size += 1;
            }
            else if (c < 0x800)
            {
                size += 2;
            }
            else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(key.charAt(i + 1)))
            {
                size += 4;
                i++;
            }
            else
            {
                size += Character.isSurrogate(c) ? 1 : 3;
            }
        }
        final byte[] out = new byte[size];
        System.arraycopy(prefix, 0, out, 0, prefix.length);
        int p = prefix.length;
        for (int i = 0; i < n; i++)
        {
            final char c = key.charAt(i);
            if (c < 0x80)
            {
                out[p++] = (byte)c;
            }
            else if (c < 0x800)
            {
                out[p++] = (byte)(0xC0 | (c >> 6));
                out[p++] = (byte)(0x80 | (c & 0x3F));
            }
            else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(key.charAt(i + 1)))
            {
                final int cp = Character.toCodePoint(c, key.charAt(++i));
                out[p++] = (byte)(0xF0 | (cp >> 18));
                out[p++] = (byte)(0x80 | ((cp >> 12) & 0x3F));
                out[p++] = (byte)(0x80 | ((cp >> 6) & 0x3F));
                out[p++] = (byte)(0x80 | (cp & 0x3F));
            }
            else if (Character.isSurrogate(c))
            {
                out[p++] = (byte)'?';
            }
            else
            {
                out[p++] = (byte)(0xE0 | (c >> 12));
                out[p++] = (byte)(0x80 | ((c >> 6) & 0x3F));
                out[p++] = (byte)(0x80 | (c & 0x3F));
            }
        }
        return out;
    }
}
