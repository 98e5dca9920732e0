package dev.cellrate;

import org.agrona.DirectBuffer;

/**
 * The caller's mapping from a key to its limit class (free, pro, internal, ...) for a
 * {@link ClassedKeyedRateLimiter}: called once per key, when the key is inserted into the table (a key that
 * has a cell is decided under the class stored with it, without calling the mapping). Must be allocation-free
 * and thread-safe, and should be a pure function of the key: a key's class changes only when its cell is
 * evicted (idle) and the key inserted again. A class outside [0, class count) is answered
 * {@link Result#NEVER} (nothing is claimed). Only {@link #classOf(long)} is required; the forms for the other
 * key kinds answer class 0 unless overridden.
 */
@FunctionalInterface
public interface KeyClassifier
{
    /**
     * @param key a long key.
     * @return its class.
     */
    int classOf(long key);

    /**
     * @param key a character key.
     * @return its class; 0 unless overridden.
     */
    default int classOf(final CharSequence key)
    {
        return 0;
    }

    /**
     * @param key    array holding the key bytes.
     * @param offset first byte.
     * @param length byte count.
     * @return its class; 0 unless overridden.
     */
    default int classOf(final byte[] key, final int offset, final int length)
    {
        return 0;
    }

    /**
     * @param key    buffer holding the key bytes.
     * @param offset first byte.
     * @param length byte count.
     * @return its class; 0 unless overridden.
     */
    default int classOf(final DirectBuffer key, final int offset, final int length)
    {
        return 0;
    }
}
