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
        final int whole = chars & ~3;
        for (int i = 0; i < whole; i += 4)
        {
            final long m = (long)s.charAt(i) | (long)s.charAt(i + 1) << 16 | (long)s.charAt(i + 2) << 32 |
                (long)s.charAt(i + 3) << 48;
            v3 ^= m;
            for (int r = 0; r < 2; r++)
            {
                v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
                v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
                v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
                v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
            }
            v0 ^= m;
        }
        long last = (long)(chars * 2) << 56;
        for (int i = whole, shift = 0; i < chars; i++, shift += 16)
        {
            last |= (long)s.charAt(i) << shift;
        }
        v3 ^= last;
        for (int r = 0; r < 2; r++)
        {
            v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
            v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
            v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
            v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
        }
        v0 ^= last;
        v2 ^= 0xff;
        for (int r = 0; r < 4; r++)
        {
            v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
            v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
            v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
            v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
        }
        return v0 ^ v1 ^ v2 ^ v3;
    }
}
