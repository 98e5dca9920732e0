package dev.cellrate.hash;

import dev.cellrate.table.KeyHash;
import dev.cellrate.table.SipState;

import java.security.SecureRandom;

/**
 * SipHash-2-4 [1] under a 128-bit secret: a keyed pseudo-random function from byte strings to 64-bit words.
 * Without the secret, no one can choose two inputs with the same hash, or an input with a chosen hash, better
 * than by guessing; for inputs not chosen against the secret, two distinct inputs share a hash with probability
 * 2<sup>-64</sup>. This is the hash the keyed table applies to {@code CharSequence}, {@code byte[]} and buffer
 * keys, so a key hashed here and a key hashed by the table under the same secret are the same word.
 * <p>
 * <b>Inputs.</b>
 * <ul>
 *     <li>{@link #hash(CharSequence)}: the sequence's UTF-8 encoding, exactly as {@code String.getBytes(UTF_8)}
 *     gives it (an unpaired surrogate becomes {@code '?'}), encoded in place.</li>
 *     <li>{@link #hash(byte[], int, int)}: a range of bytes; the same word as a sequence whose UTF-8 encoding
 *     is those bytes.</li>
 *     <li>{@link Parts}: several strings or byte ranges as one input, each part followed by its length, so that
 *     no two distinct lists of parts hash the same input ({@code ("ab", "c")} and {@code ("a", "bc")} differ).
 *     For keys built from several fields, without building a joined string.</li>
 * </ul>
 * <b>Secret.</b> {@link #random()} draws it from {@link SecureRandom}: use that unless two processes must agree
 * on the words. A fixed secret ({@link #SipHash(long, long)}) is for tests and for processes that share one;
 * anyone who knows it can compute words offline and pick colliding inputs, so treat it like a password.
 * <p>
 * Allocation: none, after construction ({@link #parts()} allocates the hasher it returns). Input checks: a
 * byte range outside its array throws {@link IndexOutOfBoundsException} before any byte is read.
 * <p>
 * Threading: immutable, any thread. A {@link Parts} is used by one thread at a time.
 * <p>
 * References: [1] J.-P. Aumasson, D. J. Bernstein, "SipHash: a fast short-input PRF", INDOCRYPT 2012
 * (https://eprint.iacr.org/2012/351); the 64 reference vectors of https://github.com/veorq/SipHash.
 */
public final class SipHash
{
    private final long k0;
    private final long k1;

    /**
     * A hash under a fixed secret: the 16 key bytes {@code k[0..15]} of the reference, read as two little-endian
     * words.
     *
     * @param k0 the secret's first word ({@code k[0..7]}).
     * @param k1 the secret's second word ({@code k[8..15]}).
     */
    public SipHash(final long k0, final long k1)
    {
        this.k0 = k0;
        this.k1 = k1;
    }

    /**
     * @return a hash under a fresh secret drawn from {@link SecureRandom}.
     */
    public static SipHash random()
    {
        final SecureRandom random = new SecureRandom();
        return new SipHash(random.nextLong(), random.nextLong());
    }

    /**
     * @param key the characters.
     * @return the SipHash-2-4 of their UTF-8 encoding.
     */
    public long hash(final CharSequence key)
    {
        return KeyHash.hashCharSequence(key, k0, k1);
    }

    /**
     * @param bytes  the array.
     * @param offset first byte.
     * @param length number of bytes.
     * @return the SipHash-2-4 of bytes {@code [offset, offset + length)}.
     * @throws IndexOutOfBoundsException if the range is not inside the array (including a negative length).
     */
    public long hash(final byte[] bytes, final int offset, final int length)
    {
        return KeyHash.hashBytes(bytes, offset, length, k0, k1);
    }

    /**
     * @return a new, empty hasher of several parts under this secret; keep one per thread and reuse it.
     */
    public Parts parts()
    {
        return new Parts(this);
    }

    /**
     * The hash of a list of parts, fed one at a time without allocating. The input hashed is each part's bytes
     * (a string's UTF-8 encoding, as {@link SipHash#hash(CharSequence)} encodes it) followed by their count as
     * 4 little-endian bytes, so {@code parts.add("ab").add("c").finish()} is {@link SipHash#hash(byte[], int,
     * int)} of {@code 'a' 'b' 2 0 0 0 'c' 1 0 0 0}. A part's count is taken modulo 2<sup>32</sup>: parts are
     * under 4 GiB.
     * <p>
     * {@link #finish()} ends one hash and leaves the hasher empty for the next; {@link #reset()} discards a
     * hash abandoned midway.
     * <p>
     * Threading: one thread at a time.
     */
    public static final class Parts
    {
        private final SipHash secret;
        private final SipState sip;

        Parts(final SipHash secret)
        {
            this.secret = secret;
            this.sip = new SipState(secret.k0, secret.k1);
        }

        /**
         * Discard everything fed since the last {@link #finish()}.
         *
         * @return this hasher, empty.
         */
        public Parts reset()
        {
            sip.reset(secret.k0, secret.k1);
            return this;
        }

        /**
         * Feed a string: its UTF-8 bytes, then their count.
         *
         * @param part the characters.
         * @return this hasher.
         */
        public Parts add(final CharSequence part)
        {
            final long start = sip.total();
            sip.appendUtf8(part, 0);
            sip.appendCount(sip.total() - start);
            return this;
        }

        /**
         * Feed bytes {@code [offset, offset + length)} of an array, then their count.
         *
         * @param bytes  the array.
         * @param offset first byte.
         * @param length number of bytes.
         * @return this hasher.
         * @throws IndexOutOfBoundsException if the range is not inside the array (including a negative length);
         *                                   nothing is fed then.
         */
        public Parts add(final byte[] bytes, final int offset, final int length)
        {
            sip.appendBytes(bytes, offset, length);
            sip.appendCount(length);
            return this;
        }

        /**
         * End the hash; the hasher is then empty, ready for the next one.
         *
         * @return the SipHash-2-4 of every part fed since the last {@code finish()} or {@link #reset()}.
         */
        public long finish()
        {
            final long hash = sip.finish();
            reset();
            return hash;
        }
    }
}
