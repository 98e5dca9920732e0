package dev.cellrate.rls;

import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;

import java.security.SecureRandom;

/**
 * The identity of a descriptor's counter: the domain and every entry's key and value (a shared wildcard value
 * in place of the value under {@code share_threshold}), as the reference service builds its cache key.
 * <p>
 * Embedded, the identity is a 64-bit SipHash-2-4 of those strings, each length-prefixed (so no two distinct
 * lists of strings have the same input), under a 128-bit secret drawn from {@link SecureRandom} per process: a
 * client cannot choose a descriptor that shares another's cell (odds 2<sup>-64</sup> per pair of distinct
 * descriptors). With Redis, the identity is the readable string {@code domain_key_value_..._}, the reference's
 * key without its window suffix, so every replica computes the same one.
 * <p>
 * Threading: immutable; any thread.
 */
final class DescriptorKey
{
    private final long k0;
    private final long k1;

    DescriptorKey()
    {
        final SecureRandom random = new SecureRandom();
        this.k0 = random.nextLong();
        this.k1 = random.nextLong();
    }

    DescriptorKey(final long k0, final long k1)
    {
        this.k0 = k0;
        this.k1 = k1;
    }

    /**
     * @param domain     the domain.
     * @param descriptor the descriptor.
     * @param shared     per entry, the shared wildcard value, or null.
     * @return the descriptor's 64-bit identity.
     */
    long hash(final String domain, final RateLimitDescriptor descriptor, final String[] shared)
    {
        return hash(domain, descriptor, shared, new Sip());
    }

    /**
     * @param domain     the domain.
     * @param descriptor the descriptor.
     * @param shared     per entry, the shared wildcard value, or null.
     * @param scratch    a hasher to reuse (one thread at a time).
     * @return the descriptor's 64-bit identity.
     */
    long hash(final String domain, final RateLimitDescriptor descriptor, final String[] shared, final Sip scratch)
    {
        final Sip sip = scratch.reset(k0, k1);
        sip.string(domain);
        for (int i = 0; i < descriptor.getEntriesCount(); i++)
        {
            final RateLimitDescriptor.Entry entry = descriptor.getEntries(i);
            sip.string(entry.getKey());
            sip.string(null != shared && null != shared[i] ? shared[i] : entry.getValue());
        }
        return sip.finish();
    }

    /**
     * @param parts byte strings.
     * @return their hash, framed as {@link #hash} frames each string's UTF-8 bytes (for tests).
     */
    long hashOfBytes(final byte[]... parts)
    {
        final Sip sip = new Sip().reset(k0, k1);
        for (final byte[] part : parts)
        {
            sip.bytes(part);
        }
        return sip.finish();
    }

    /**
     * @param domain     the domain.
     * @param descriptor the descriptor.
     * @param shared     per entry, the shared wildcard value, or null.
     * @return {@code domain_key_value_...} (each entry followed by {@code _}).
     */
    static String text(final String domain, final RateLimitDescriptor descriptor, final String[] shared)
    {
        final StringBuilder b = new StringBuilder(domain.length() + 32).append(domain).append('_');
        for (int i = 0; i < descriptor.getEntriesCount(); i++)
        {
            final RateLimitDescriptor.Entry entry = descriptor.getEntries(i);
            b.append(entry.getKey()).append('_')
                .append(null != shared && null != shared[i] ? shared[i] : entry.getValue()).append('_');
        }
        return b.toString();
    }

    /** SipHash-2-4 over a stream of bytes, fed string by string; {@link #reset} before each hash. */
    static final class Sip
    {
        private long v0;
        private long v1;
        private long v2;
        private long v3;
        private long pending;
        private int pendingBytes;
        private long total;

        Sip reset(final long k0, final long k1)
        {
            v0 = k0 ^ 0x736f6d6570736575L;
            v1 = k1 ^ 0x646f72616e646f6dL;
            v2 = k0 ^ 0x6c7967656e657261L;
            v3 = k1 ^ 0x7465646279746573L;
            pending = 0;
            pendingBytes = 0;
            total = 0;
            return this;
        }

        /**
         * Feed the string's UTF-8 bytes (as {@code s.getBytes(UTF_8)} gives them, an unpaired surrogate as
         * {@code ?}), after their count as 4 little-endian bytes; encoded in place, without allocating.
         */
        void string(final String s)
        {
            final int n = s.length();
            int length = 0;
            for (int i = 0; i < n; i++)
            {
                final char c = s.charAt(i);
                if (c < 0x80)
                {
                    length += 1;
                }
                else if (c < 0x800)
                {
                    length += 2;
                }
                else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1)))
                {
                    length += 4;
                    i++;
                }
                else
                {
                    length += Character.isSurrogate(c) ? 1 : 3;
                }
            }
            for (int i = 0; i < 4; i++)
            {
                add((byte)(length >>> (8 * i)));
            }
            for (int i = 0; i < n; i++)
            {
                final char c = s.charAt(i);
                if (c < 0x80)
                {
                    add((byte)c);
                }
                else if (c < 0x800)
                {
                    add((byte)(0xC0 | (c >> 6)));
                    add((byte)(0x80 | (c & 0x3F)));
                }
                else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1)))
                {
                    final int cp = Character.toCodePoint(c, s.charAt(++i));
                    add((byte)(0xF0 | (cp >> 18)));
                    add((byte)(0x80 | ((cp >> 12) & 0x3F)));
                    add((byte)(0x80 | ((cp >> 6) & 0x3F)));
                    add((byte)(0x80 | (cp & 0x3F)));
                }
                else if (Character.isSurrogate(c))
                {
                    add((byte)'?');
                }
                else
                {
                    add((byte)(0xE0 | (c >> 12)));
                    add((byte)(0x80 | ((c >> 6) & 0x3F)));
                    add((byte)(0x80 | (c & 0x3F)));
                }
            }
        }

        /** Feed bytes as {@link #string} frames them (for tests: the same hash as the string's UTF-8 bytes). */
        void bytes(final byte[] bytes)
        {
            final int length = bytes.length;
            for (int i = 0; i < 4; i++)
            {
                add((byte)(length >>> (8 * i)));
            }
            for (final byte b : bytes)
            {
                add(b);
            }
        }

        private void add(final byte b)
        {
            pending |= (b & 0xFFL) << (8 * pendingBytes);
            total++;
            if (++pendingBytes == 8)
            {
                block(pending);
                pending = 0;
                pendingBytes = 0;
            }
        }

        private void block(final long m)
        {
            v3 ^= m;
            round();
            round();
            v0 ^= m;
        }

        long finish()
        {
            final long last = pending | ((total & 0xFF) << 56);
            block(last);
            v2 ^= 0xFF;
            round();
            round();
            round();
            round();
            return v0 ^ v1 ^ v2 ^ v3;
        }

        private void round()
        {
            v0 += v1;
            v1 = Long.rotateLeft(v1, 13);
            v1 ^= v0;
            v0 = Long.rotateLeft(v0, 32);
            v2 += v3;
            v3 = Long.rotateLeft(v3, 16);
            v3 ^= v2;
            v0 += v3;
            v3 = Long.rotateLeft(v3, 21);
            v3 ^= v0;
            v2 += v1;
            v1 = Long.rotateLeft(v1, 17);
            v1 ^= v2;
            v2 = Long.rotateLeft(v2, 32);
        }
    }
}
