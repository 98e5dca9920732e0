package dev.cellrate.spring;

import java.security.SecureRandom;

/**
 * SipHash-2-4 of a string's UTF-16 code units (as little-endian bytes) under a 128-bit secret drawn from
 * {@link SecureRandom}: the 64-bit keys of {@code @RateLimited} string keys. Without the secret no one can
 * choose two strings that share a key; for honest keys, two given strings share one with probability
 * 2<sup>-64</sup>. Allocation-free.
 */
final class KeyHash
{
    private final long k0;
    private final long k1;

    KeyHash()
    {
        final SecureRandom random = new SecureRandom();
        this.k0 = random.nextLong();
        this.k1 = random.nextLong();
    }

    long hash(final CharSequence s)
    {
        long v0 = k0 ^ 0x736f6d6570736575L;
        long v1 = k1 ^ 0x646f72616e646f6dL;
        long v2 = k0 ^ 0x6c7967656e657261L;
        long v3 = k1 ^ 0x7465646279746573L;
        final int chars = s.length();
        final int blocks = (chars >>> 2) + 1; // whole 4-char blocks, then the last one with the length byte
        final int compressionRounds = 2 * blocks;
        long m = block(s, 0, chars);
        v3 ^= m;
        // two rounds per block, then four finalisation rounds: one round body serves both
        for (int r = 1, rounds = compressionRounds + 4; r <= rounds; r++)
        {
            v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
            v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
            v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
            v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
            if (r <= compressionRounds && 0 == (r & 1))
            {
                v0 ^= m;
                final int next = r >>> 1;
                if (next < blocks)
                {
                    m = block(s, next << 2, chars);
                    v3 ^= m;
                }
                else
                {
                    v2 ^= 0xff;
                }
            }
        }
        return v0 ^ v1 ^ v2 ^ v3;
    }

    /**
     * The 64-bit message word of the block starting at char {@code from}: four chars, or for the last block
     * the 0 to 3 remaining chars with {@code (2 * chars) mod 256} in the top byte.
     */
    private static long block(final CharSequence s, final int from, final int chars)
    {
        if (chars - from >= 4)
        {
            return (long)s.charAt(from) | (long)s.charAt(from + 1) << 16 | (long)s.charAt(from + 2) << 32 |
                (long)s.charAt(from + 3) << 48;
        }
        long last = (long)(chars * 2) << 56;
        for (int i = from, shift = 0; i < chars; i++, shift += 16)
        {
            last |= (long)s.charAt(i) << shift;
        }
        return last;
    }
}
