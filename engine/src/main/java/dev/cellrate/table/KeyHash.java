package dev.cellrate.table;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

import org.agrona.DirectBuffer;

/**
 * Seeded functions that turn a user key into the 64-bit <em>key word</em> stored in a {@link SlotTable} slot.
 * Pure and allocation-free; the seed is the table's (see {@code KeyedRateLimiter.Builder#seed}).
 * <ul>
 *     <li>{@link #mixLong}: {@code long} keys through a <b>bijective</b> mixer: xor with the seed, then the
 *     SplitMix64 finaliser (xor-shifts and odd multiplications, each invertible). Distinct longs give
 *     distinct words, so two long keys never share a cell.</li>
 *     <li>{@link #hashBytes}, {@link #hashCharSequence}: byte strings through a seeded 64-bit hash (8 bytes
 *     per round, little-endian words, length folded into the finaliser). A {@link CharSequence} is hashed as
 *     its UTF-8 encoding, computed on the fly, exactly as {@code String.getBytes(UTF_8)} encodes it (an
 *     unpaired surrogate becomes {@code '?'}), so "same key" across key types means "same UTF-8 bytes".</li>
 * </ul>
 * Collision odds of the byte hash, modelled as a random function of the seed: {@code n} distinct byte keys
 * (or byte keys and long keys, which share the word space) produce some shared word with probability at
 * most {@code n(n-1)/2^65}: 10<sup>7</sup> keys, 2.7 * 10<sup>-6</sup>; 10<sup>6</sup> keys,
 * 2.7 * 10<sup>-8</sup>. A shared word makes two keys share one cell, i.e. one budget: both are limited
 * <em>more</em> strictly, never less. The hash is not a cryptographic PRF: the random per-table seed stops
 * precomputed collisions and shard targeting, not an attacker who can read the seed.
 * <p>
 * Threading: stateless, any thread.
 */
public final class KeyHash
{
    private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long M1 = 0xbf58476d1ce4e5b9L;
    private static final long M2 = 0x94d049bb133111ebL;
    private static final long P1 = 0x9e3779b97f4a7c15L;
    private static final long P2 = 0xc2b2ae3d27d4eb4fL;

    private KeyHash()
    {
    }

    /**
     * Bijective seeded mix of a long key.
     *
     * @param key  the key.
     * @param seed the table's seed.
     * @return the key word; {@code mixLong(a, s) == mixLong(b, s)} iff {@code a == b}.
     */
    public static long mixLong(final long key, final long seed)
    {
        long x = key ^ seed;
        x = (x ^ (x >>> 30)) * M1;
        x = (x ^ (x >>> 27)) * M2;
        return x ^ (x >>> 31);
    }

    /**
     * Inverse of {@link #mixLong} (tests, diagnostics).
     *
     * @param word a key word.
     * @param seed the table's seed.
     * @return the long key whose word it is.
     */
    public static long unmixLong(final long word, final long seed)
    {
        long x = word;
        x = x ^ (x >>> 31) ^ (x >>> 62);
        x *= 0x319642b2d24d8ec3L;
        x = x ^ (x >>> 27) ^ (x >>> 54);
        x *= 0x96de1b173f119089L;
        x = x ^ (x >>> 30) ^ (x >>> 60);
        return x ^ seed;
    }

    /**
     * Seeded hash of {@code length} bytes of an array.
     *
     * @param bytes  the array.
     * @param offset first byte.
     * @param length number of bytes, &ge; 0.
     * @param seed   the table's seed.
     * @return the key word.
     */
    public static long hashBytes(final byte[] bytes, final int offset, final int length, final long seed)
    {
        long h = seed;
        int i = offset;
        final int wordsEnd = offset + (length & ~7);
        for (; i < wordsEnd; i += 8)
        {
            h = round(h, (long)LONG_LE.get(bytes, i));
        }
        final int tail = length & 7;
        if (tail != 0)
        {
            long word = 0;
            for (int b = 0; b < tail; b++)
            {
                word |= (bytes[i + b] & 0xFFL) << (b << 3);
            }
            h = round(h, word);
        }
        return finish(h, length, seed);
    }

    /**
     * Seeded hash of {@code length} bytes of a buffer (same value as {@link #hashBytes} of the same bytes).
     *
     * @param buffer the buffer.
     * @param offset first byte.
     * @param length number of bytes, &ge; 0.
     * @param seed   the table's seed.
     * @return the key word.
     */
    public static long hashBuffer(final DirectBuffer buffer, final int offset, final int length, final long seed)
    {
        long h = seed;
        int i = offset;
        final int wordsEnd = offset + (length & ~7);
        for (; i < wordsEnd; i += 8)
        {
            h = round(h, buffer.getLong(i, ByteOrder.LITTLE_ENDIAN));
        }
        final int tail = length & 7;
        if (tail != 0)
        {
            long word = 0;
            for (int b = 0; b < tail; b++)
            {
                word |= (buffer.getByte(i + b) & 0xFFL) << (b << 3);
            }
            h = round(h, word);
        }
        return finish(h, length, seed);
    }

    /**
     * Seeded hash of the UTF-8 encoding of a character sequence (same value as {@link #hashBytes} of
     * {@code key.toString().getBytes(UTF_8)}), encoded on the fly without allocating.
     *
     * @param key  the characters.
     * @param seed the table's seed.
     * @return the key word.
     */
    public static long hashCharSequence(final CharSequence key, final long seed)
    {
        long h = seed;
        long word = 0;
        int shift = 0;
        int length = 0;
        final int chars = key.length();
        for (int i = 0; i < chars; i++)
        {
            final char c = key.charAt(i);
            int codePoint = c;
            int bytes = 1;
            if (c >= 0x80)
            {
                if (c < 0x800)
                {
                    bytes = 2;
                }
                else if (!Character.isSurrogate(c))
                {
                    bytes = 3;
                }
                else if (Character.isHighSurrogate(c) && i + 1 < chars && Character.isLowSurrogate(key.charAt(i + 1)))
                {
                    codePoint = Character.toCodePoint(c, key.charAt(++i));
                    bytes = 4;
                }
                else
                {
                    codePoint = '?';
                }
            }
            for (int b = 0; b < bytes; b++)
            {
                final int octet = utf8Byte(codePoint, bytes, b);
                word |= (octet & 0xFFL) << shift;
                shift += 8;
                if (64 == shift)
                {
                    h = round(h, word);
                    word = 0;
                    shift = 0;
                }
            }
            length += bytes;
        }
        if (shift != 0)
        {
            h = round(h, word);
        }
        return finish(h, length, seed);
    }

    private static int utf8Byte(final int codePoint, final int bytes, final int index)
    {
        if (1 == bytes)
        {
            return codePoint;
        }
        final int lead = bytes - 1 - index;
        if (0 == index)
        {
            final int prefix = 2 == bytes ? 0xC0 : (3 == bytes ? 0xE0 : 0xF0);
            return prefix | (codePoint >>> (6 * lead));
        }
        return 0x80 | ((codePoint >>> (6 * lead)) & 0x3F);
    }

    private static long round(final long h, final long word)
    {
        return Long.rotateLeft(h ^ (word * P1), 29) * P2;
    }

    private static long finish(final long h, final int length, final long seed)
    {
        return mixLong(h ^ (length * P1), seed ^ P2);
    }
}
