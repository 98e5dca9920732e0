package dev.cellrate.hash;

import dev.cellrate.table.KeyHash;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.security.SecureRandom;
import java.util.Objects;

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
        return new Parts(k0, k1);
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
        private static final VarHandle LONG_LE =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

        private final long k0;
        private final long k1;
        private long v0;
        private long v1;
        private long v2;
        private long v3;
        /** Bytes fed but not yet compressed: the low {@link #pendingBytes} bytes, little-endian. */
        private long pending;
        private int pendingBytes;
        /** Bytes fed since the start of the hash (only its low byte enters the last block). */
        private long total;

        Parts(final long k0, final long k1)
        {
            this.k0 = k0;
            this.k1 = k1;
            reset();
        }

        /**
         * Discard everything fed since the last {@link #finish()}.
         *
         * @return this hasher, empty.
         */
        public Parts reset()
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
         * Feed a string: its UTF-8 bytes, then their count.
         *
         * @param part the characters.
         * @return this hasher.
         */
        public Parts add(final CharSequence part)
        {
            final long start = total;
            final int chars = part.length();
            int i = 0;
            while (i < chars)
            {
                final int n = Math.min(8, chars - i);
                final long ascii = 8 == n ? KeyHash.asciiWord(part, i) : KeyHash.asciiWord(part, i, n);
                if (KeyHash.NOT_ASCII != ascii)
                {
                    append(ascii, n);
                    i += n;
                    continue;
                }
                for (final int end = i + n; i < end; )
                {
                    i = encode(part, i, chars);
                }
            }
            append((total - start) & 0xFFFF_FFFFL, 4);
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
            Objects.checkFromIndexSize(offset, length, bytes.length);
            final int end = offset + length;
            int i = offset;
            for (; i <= end - 8; i += 8)
            {
                append((long)LONG_LE.get(bytes, i), 8);
            }
            final int tail = end - i;
            if (0 != tail)
            {
                // the 1 to 7 bytes left: the range's last word shifted down when the range has one, else a loop
                long word = 0;
                if (length >= 8)
                {
                    word = (long)LONG_LE.get(bytes, end - 8) >>> (64 - (tail << 3));
                }
                else
                {
                    for (int b = 0; b < tail; b++)
                    {
                        word |= (bytes[i + b] & 0xFFL) << (b << 3);
                    }
                }
                append(word, tail);
            }
            append(length & 0xFFFF_FFFFL, 4);
            return this;
        }

        /**
         * End the hash; the hasher is then empty, ready for the next one.
         *
         * @return the SipHash-2-4 of every part fed since the last {@code finish()} or {@link #reset()}.
         */
        public long finish()
        {
            compress(pending | (total << 56));
            v2 ^= 0xFF;
            for (int r = 0; r < 4; r++)
            {
                round();
            }
            final long hash = v0 ^ v1 ^ v2 ^ v3;
            reset();
            return hash;
        }

        /** Encode the char at {@code i} (a surrogate pair: both chars) as UTF-8; returns the next index. */
        private int encode(final CharSequence part, final int i, final int chars)
        {
            final char c = part.charAt(i);
            if (c < 0x80)
            {
                append(c, 1);
            }
            else if (c < 0x800)
            {
                append((0xC0 | (c >>> 6)) | ((0x80 | (c & 0x3F)) << 8), 2);
            }
            else if (!Character.isSurrogate(c))
            {
                append((0xE0 | (c >>> 12)) | ((0x80 | ((c >>> 6) & 0x3F)) << 8) | ((0x80 | (c & 0x3F)) << 16), 3);
            }
            else if (Character.isHighSurrogate(c) && i + 1 < chars && Character.isLowSurrogate(part.charAt(i + 1)))
            {
                final int cp = Character.toCodePoint(c, part.charAt(i + 1));
                append(((0xF0 | (cp >>> 18)) | ((0x80 | ((cp >>> 12) & 0x3F)) << 8) |
                    ((0x80 | ((cp >>> 6) & 0x3F)) << 16) | ((long)(0x80 | (cp & 0x3F)) << 24)), 4);
                return i + 2;
            }
            else
            {
                append('?', 1);
            }
            return i + 1;
        }

        /** Feed the low {@code n} bytes of {@code value} (1 to 8; the bytes above them are zero), little-endian. */
        private void append(final long value, final int n)
        {
            total += n;
            final int used = pendingBytes;
            final long word = pending | value << (used << 3);
            final int filled = used + n;
            if (filled < 8)
            {
                pending = word;
                pendingBytes = filled;
                return;
            }
            compress(word);
            // The bytes of value that did not fit: none when it ended the word exactly.
            pending = 8 == filled ? 0 : value >>> ((8 - used) << 3);
            pendingBytes = filled - 8;
        }

        private void compress(final long m)
        {
            v3 ^= m;
            round();
            round();
            v0 ^= m;
        }

        private void round()
        {
            v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
            v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
            v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
            v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
        }
    }
}
