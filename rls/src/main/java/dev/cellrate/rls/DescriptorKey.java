package dev.cellrate.rls;

import dev.cellrate.hash.SipHash;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;

import java.io.ByteArrayOutputStream;
import java.security.SecureRandom;

/**
 * The identity of a descriptor's counter: the domain and every entry's key and value (a shared wildcard value
 * in place of the value under {@code share_threshold}), as the reference service builds its cache key.
 * <p>
 * Embedded, the identity is a 64-bit SipHash-2-4 of those strings' UTF-8 bytes, each followed by its length
 * (the engine's {@link SipHash.Parts}, so no two distinct lists of strings have the same input), under a 128-bit
 * secret drawn from {@link SecureRandom} per process: a client cannot choose a descriptor that shares another's
 * cell (odds 2<sup>-64</sup> per pair of distinct descriptors). With Redis, the identity is the readable string {@code domain_key_value_..._}, the reference's
 * key without its window suffix, so every replica computes the same one.
 * <p>
 * Threading: immutable; any thread.
 */
final class DescriptorKey
{
    private final SipHash sip;

    DescriptorKey()
    {
        this.sip = SipHash.random();
    }

    DescriptorKey(final long k0, final long k1)
    {
        this.sip = new SipHash(k0, k1);
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
        if (scratch.owner != this)
        {
            scratch.parts = sip.parts();
            scratch.owner = this;
        }
        final SipHash.Parts parts = scratch.parts.reset().add(domain);
        for (int i = 0; i < descriptor.getEntriesCount(); i++)
        {
            final RateLimitDescriptor.Entry entry = descriptor.getEntries(i);
            parts.add(entry.getKey()).add(null != shared && null != shared[i] ? shared[i] : entry.getValue());
        }
        return parts.finish();
    }

    /**
     * @param parts byte strings.
     * @return the one-shot hash of the input {@link #hash} builds from strings with these UTF-8 bytes: each part
     *         followed by its length as 4 little-endian bytes (for tests).
     */
    long hashOfBytes(final byte[]... parts)
    {
        final ByteArrayOutputStream input = new ByteArrayOutputStream();
        for (final byte[] part : parts)
        {
            input.writeBytes(part);
            for (int i = 0; i < 4; i++)
            {
                input.write(part.length >>> (8 * i));
            }
        }
        final byte[] bytes = input.toByteArray();
        return sip.hash(bytes, 0, bytes.length);
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

    /** A reusable hasher of descriptors, one thread at a time: made on first use for the key that uses it. */
    static final class Sip
    {
        private DescriptorKey owner;
        private SipHash.Parts parts;
    }
}
