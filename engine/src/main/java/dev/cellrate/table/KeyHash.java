package dev.cellrate.table;

import dev.cellrate.layout.OffHeap;
import java.lang.reflect.Field;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Objects;

import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.UnsafeApi;

/**
 * Keyed functions that turn a user key into the 64-bit <em>key word</em> stored in a {@link SlotTable} slot.
 * Pure and allocation-free; the secret is the table's (see {@link SlotTable}, and
 * {@code KeyedRateLimiterBuilder#seed(long, long)} to fix it).
 * <p>
 * <b>Algorithm.</b>
 * <ul>
 *     <li>{@link #hashBytes}, {@link #hashBuffer}, {@link #hashCharSequence}: <b>SipHash-2-4</b> [1] of the
 *     key's bytes under a 128-bit secret {@code (k0, k1)} (the reference key bytes {@code k[0..15]} read as
 *     two little-endian words). SipHash is a pseudo-random function: without the secret, an attacker who
 *     sees any number of key words cannot build two keys with the same word, or a key aimed at a chosen
 *     shard or cell, better than by guessing (the designers claim 128-bit security for key recovery and
 *     2<sup>s-64</sup> forgery probability after 2<sup>s</sup> queries). A {@link CharSequence} is hashed as
 *     its UTF-8 encoding, exactly as {@code String.getBytes(UTF_8)} encodes it (an unpaired surrogate becomes
 *     {@code '?'}), so the three forms of the same bytes are one key. How the bytes are read changes nothing
 *     of that: a {@code String} stored one byte per char (the JDK's compact strings) is read from its own byte
 *     array while it is ASCII, where that array is its UTF-8 encoding, and encoded from its chars from the
 *     first word holding a byte above 0x7F on; any other sequence is encoded on the fly from its chars. The array is found once, at class initialisation, through {@code String}'s {@code value} and
 *     {@code coder} fields and checked on a probe string; on a JVM whose {@code String} is laid out otherwise
 *     every sequence takes the char path.</li>
 *     <li>{@link #mixLong}: {@code long} keys through a <b>bijective</b> mixer: xor with a 64-bit seed, then
 *     the SplitMix64 finaliser (xor-shifts and odd multiplications, each invertible). Distinct longs give
 *     distinct words, so two long keys never share a cell: no collision to forge. The table derives that
 *     seed from its secret with SipHash ({@link #longKeySeed}), so it reveals nothing of the secret.</li>
 * </ul>
 * <b>Secret.</b> Every table draws its secret from {@link SecureRandom} unless the caller fixes it. A fixed
 * secret is for tests and reproducible placement only: anyone who knows it can compute key words offline
 * and pick keys that share a victim's cell (draining its budget) or pile onto one shard (table-full for
 * everyone on it). Treat it like a password, or better, leave it random.
 * <p>
 * Collision odds for keys <em>not</em> chosen against the secret: {@code n} distinct byte keys (or byte
 * keys and long keys, which share the word space) produce some shared word with probability at most
 * {@code n(n-1)/2^65}: 10<sup>7</sup> keys, 2.7 * 10<sup>-6</sup>; 10<sup>6</sup> keys,
 * 2.7 * 10<sup>-8</sup>. A shared word makes two keys share one cell, i.e. one budget: both are limited
 * <em>more</em> strictly, never less.
 * <p>
 * Input checks: {@code offset} and {@code length} must describe a range inside the array or buffer
 * ({@link Objects#checkFromIndexSize}); a negative length is out of range like one past the end, and throws
 * {@link IndexOutOfBoundsException} before any byte is read, also when Agrona's bounds checks are disabled.
 * Only the key's own bytes are read: never a word past its end.
 * <p>
 * Threading: stateless, any thread.
 * <p>
 * References: [1] J.-P. Aumasson, D. J. Bernstein, "SipHash: a fast short-input PRF", INDOCRYPT 2012
 * (https://eprint.iacr.org/2012/351); reference implementation and test vectors:
 * https://github.com/veorq/SipHash.
 */
public final class KeyHash
{
    private static final boolean NATIVE_LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;
    private static final long M1 = 0xbf58476d1ce4e5b9L;
    private static final long M2 = 0x94d049bb133111ebL;

    /** SipHash initialisation constants: "somepseudorandomlygeneratedbytes". */
    private static final long C0 = 0x736f6d6570736575L;
    private static final long C1 = 0x646f72616e646f6dL;
    private static final long C2 = 0x6c7967656e657261L;
    private static final long C3 = 0x7465646279746573L;

    /** The message whose SipHash under the table secret is the long-key seed (the word 0x79656b2d676e6f6c). */
    private static final String LONG_KEY_DOMAIN = "long-key";

    /** {@link #asciiWord} result when a char is not ASCII. */
    public static final long NOT_ASCII = -1L;

    /** The high bit of every byte of a word: a word of ASCII bytes has none of them set. */
    private static final long HIGH_BITS = 0x8080808080808080L;

    /**
     * Offsets of {@code String}'s {@code byte[] value} and {@code byte coder} fields (the JDK's compact strings,
     * JEP 254: coder 0 = LATIN1, one byte per char), or -1 when this JVM's {@code String} is not laid out that
     * way; see {@link #stringBytes}.
     */
    private static final long STRING_VALUE_OFFSET;
    private static final long STRING_CODER_OFFSET;

    static
    {
        long valueOffset = -1;
        long coderOffset = -1;
        try
        {
            if (!OffHeap.unsafeReachable())
            {
                throw new IllegalStateException("no Unsafe: byte[] keys and buffers only; the table names the option");
            }
            final Field value = String.class.getDeclaredField("value");
            final Field coder = String.class.getDeclaredField("coder");
            if (byte[].class == value.getType() && byte.class == coder.getType())
            {
                valueOffset = UnsafeApi.objectFieldOffset(value);
                coderOffset = UnsafeApi.objectFieldOffset(coder);
                // Self-check on a string built at run time: a LATIN1 string must read back as its own bytes.
                final String probe = new String(new char[] {'k', 'e', 'y', '-', '0', '1', '2', '3', '4', '5'});
                if (0 != UnsafeApi.getByte(probe, coderOffset) ||
                    !Arrays.equals(probe.getBytes(StandardCharsets.ISO_8859_1),
                        (byte[])UnsafeApi.getReference(probe, valueOffset)))
                {
                    valueOffset = -1;
                }
            }
        }
        catch (final ReflectiveOperationException | RuntimeException ex)
        {
            valueOffset = -1;
        }
        STRING_VALUE_OFFSET = valueOffset;
        STRING_CODER_OFFSET = valueOffset < 0 ? -1 : coderOffset;
    }

    private KeyHash()
    {
    }

    /**
     * @param random the source.
     * @return a fresh 128-bit secret as two words {@code {k0, k1}} (construction time only: it allocates).
     */
    public static long[] randomSecret(final SecureRandom random)
    {
        return new long[] {random.nextLong(), random.nextLong()};
    }

    /**
     * The seed of the long-key mixer for a table secret: SipHash-2-4 of the 8 bytes "long-key". A PRF output,
     * so publishing it (e.g. {@link SlotTable#seed()}) reveals nothing about {@code (k0, k1)}.
     *
     * @param k0 the secret's first word.
     * @param k1 the secret's second word.
     * @return the seed for {@link #mixLong}.
     */
    public static long longKeySeed(final long k0, final long k1)
    {
        return hashCharSequence(LONG_KEY_DOMAIN, k0, k1);
    }

    /**
     * Bijective seeded mix of a long key.
     *
     * @param key  the key.
     * @param seed the table's long-key seed.
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
     * @param seed the table's long-key seed.
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
     * SipHash-2-4 of {@code length} bytes of an array.
     *
     * @param bytes  the array.
     * @param offset first byte.
     * @param length number of bytes.
     * @param k0     the secret's first word.
     * @param k1     the secret's second word.
     * @return the key word.
     * @throws IndexOutOfBoundsException if {@code [offset, offset + length)} is not inside the array
     *                                   (including a negative length).
     */
    public static long hashBytes(final byte[] bytes, final int offset, final int length, final long k0, final long k1)
    {
        return hashRange(bytes, BufferUtil.ARRAY_BASE_OFFSET, bytes.length, offset, length, k0, k1);
    }

    /**
     * SipHash-2-4 of {@code length} bytes of a buffer (same value as {@link #hashBytes} of the same bytes).
     *
     * @param buffer the buffer.
     * @param offset first byte.
     * @param length number of bytes.
     * @param k0     the secret's first word.
     * @param k1     the secret's second word.
     * @return the key word.
     * @throws IndexOutOfBoundsException if {@code [offset, offset + length)} is not inside
     *                                   {@code [0, capacity)} (including a negative length).
     */
    public static long hashBuffer(
        final DirectBuffer buffer, final int offset, final int length, final long k0, final long k1)
    {
        return hashRange(buffer.byteArray(), buffer.addressOffset(), buffer.capacity(), offset, length, k0, k1);
    }

    /**
     * SipHash-2-4 of bytes {@code [offset, offset + length)} of a memory region of {@code capacity} bytes at
     * {@code address} of {@code base} (a {@code byte[]} with the array base offset, or {@code null} with an
     * off-heap address), the range checked against {@code [0, capacity)} first. Package only: the region comes
     * from a {@code byte[]} or a {@link DirectBuffer}, never from a caller.
     */
    static long hashRange(
        final Object base, final long address, final int capacity, final int offset, final int length,
        final long k0, final long k1)
    {
        Objects.checkFromIndexSize(offset, length, capacity);
        return hash(base, address + offset, length, null, k0, k1);
    }

    /**
     * SipHash-2-4 of {@code length} bytes at {@code address} of {@code base} (a {@code byte[]} with the array
     * base offset, or {@code null} with an off-heap address), the range already checked by the caller. Words
     * are read little-endian as the reference does.
     * <p>
     * With a {@code latin1} string, the bytes are that string's own one-byte-per-char array (read, never written
     * or kept), which is its UTF-8 encoding while it is ASCII: the first word (or tail) with a byte above 0x7F
     * hands the hash over to {@link #hashChars} from that word's first char on, the state so far kept.
     * <p>
     * Kept under C2's inlining limit for a hot method (325 bytecodes, {@code -XX:FreqInlineSize}), so that it
     * inlines into the keyed decision: hence the rounds as a loop the compiler unrolls and the tail apart.
     */
    private static long hash(
        final Object base, final long address, final int length, final CharSequence latin1, final long k0,
        final long k1)
    {
        long v0 = k0 ^ C0;
        long v1 = k1 ^ C1;
        long v2 = k0 ^ C2;
        long v3 = k1 ^ C3;
        final long end = address + length;
        final long wordsEnd = end - (length & 7);
        for (long a = address; a < wordsEnd; a += 8)
        {
            final long m = littleEndian(UnsafeApi.getLong(base, a));
            if (null != latin1 && 0 != (m & HIGH_BITS))
            {
                return hashChars(latin1, (int)(a - address), v0, v1, v2, v3);
            }
            v3 ^= m;
            for (int r = 0; r < 2; r++) // SipRound twice
            {
                v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
                v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
                v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
                v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
            }
            v0 ^= m;
        }
        final long last = tail(base, address, wordsEnd, length);
        if (null != latin1 && 0 != (last & HIGH_BITS))
        {
            return hashChars(latin1, (int)(wordsEnd - address), v0, v1, v2, v3);
        }
        return finish(v0, v1, v2, v3, last | ((long)length << 56));
    }

    /**
     * The 0 to 7 bytes after the last whole word of the bytes at {@code address}, little-endian in the low bytes
     * of a word. Reads only those bytes: after a whole word, the last word of the bytes, overlapping the one
     * before, whose top bytes are the tail.
     */
    private static long tail(final Object base, final long address, final long wordsEnd, final int length)
    {
        final int tail = length & 7;
        if (0 != tail && wordsEnd != address)
        {
            return littleEndian(UnsafeApi.getLong(base, wordsEnd + tail - 8)) >>> (64 - (tail << 3));
        }
        long word = 0;
        for (int b = 0; b < tail; b++)
        {
            word |= (UnsafeApi.getByte(base, wordsEnd + b) & 0xFFL) << (b << 3);
        }
        return word;
    }

    private static long littleEndian(final long nativeWord)
    {
        return NATIVE_LITTLE_ENDIAN ? nativeWord : Long.reverseBytes(nativeWord);
    }

    /**
     * SipHash-2-4 of the UTF-8 encoding of a character sequence (same value as {@link #hashBytes} of
     * {@code key.toString().getBytes(UTF_8)}), without allocating. A {@code String} that the JDK stores one byte
     * per char (compact strings) is hashed from those bytes, a word at a time, for as long as they are ASCII:
     * there they are its UTF-8 encoding, so the value is the same. From the first word holding a byte above 0x7F
     * on, and for any other sequence from its start, the UTF-8 bytes are encoded on the fly from the chars
     * (leading ASCII packed eight chars to a word).
     *
     * @param key the characters.
     * @param k0  the secret's first word.
     * @param k1  the secret's second word.
     * @return the key word.
     */
    public static long hashCharSequence(final CharSequence key, final long k0, final long k1)
    {
        if (STRING_VALUE_OFFSET >= 0 && key instanceof String && 0 == UnsafeApi.getByte(key, STRING_CODER_OFFSET))
        {
            final byte[] latin1 = (byte[])UnsafeApi.getReference(key, STRING_VALUE_OFFSET);
            return hash(latin1, BufferUtil.ARRAY_BASE_OFFSET, latin1.length, key, k0, k1);
        }
        return hashChars(key, 0, k0 ^ C0, k1 ^ C1, k0 ^ C2, k1 ^ C3);
    }

    /**
     * @return whether {@link #hashCharSequence} reads a one-byte-per-char {@code String}'s bytes directly on this
     * JVM (tests: the direct path must be the one they check).
     */
    static boolean stringBytesReadable()
    {
        return STRING_VALUE_OFFSET >= 0;
    }

    /**
     * {@link #hashCharSequence} for any {@link CharSequence}: the UTF-8 encoding computed from its chars, from
     * char {@code from} on, with the SipHash state {@code v0..v3} of the {@code from} ASCII chars before it
     * (whole words: {@code from} is a multiple of 8).
     */
    private static long hashChars(
        final CharSequence key, final int from, long v0, long v1, long v2, long v3)
    {
        final int chars = key.length();
        long word = 0;
        int shift = 0;
        // Only the UTF-8 length mod 256 enters SipHash, so an int that wraps (over 2^31 bytes) is still right.
        int length = from;
        int pending = 0;
        int pendingBytes = 0;
        int i = from;
        while (true)
        {
            if (64 == shift)
            {
                final long m = word;
                v3 ^= m;
                v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
                v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
                v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
                v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
                v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
                v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
                v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
                v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
                v0 ^= m;
                word = 0;
                shift = 0;
            }
            if (0 != pendingBytes)
            {
                // The rest of a multi-byte character that did not fit in the previous word.
                while (0 != pendingBytes && shift < 64)
                {
                    word |= (pending & 0xFFL) << shift;
                    pending >>>= 8;
                    pendingBytes--;
                    shift += 8;
                }
                continue;
            }
            if (i >= chars)
            {
                break;
            }
            if (0 == shift)
            {
                // A run of ASCII, eight chars a word (with constant shifts when eight remain); the char-by-char
                // encoding below takes over for a block holding a char >= 0x80.
                final int n = Math.min(8, chars - i);
                final long packed = 8 == n ? asciiWord(key, i) : asciiWord(key, i, n);
                if (NOT_ASCII != packed)
                {
                    word = packed;
                    shift = n << 3;
                    length += n;
                    i += n;
                    continue;
                }
            }
            final char c = key.charAt(i++);
            if (c < 0x80)
            {
                pending = c;
                pendingBytes = 1;
            }
            else if (c < 0x800)
            {
                pending = (0xC0 | (c >>> 6)) | ((0x80 | (c & 0x3F)) << 8);
                pendingBytes = 2;
            }
            else if (!Character.isSurrogate(c))
            {
                pending = (0xE0 | (c >>> 12)) | ((0x80 | ((c >>> 6) & 0x3F)) << 8) | ((0x80 | (c & 0x3F)) << 16);
                pendingBytes = 3;
            }
            else if (Character.isHighSurrogate(c) && i < chars && Character.isLowSurrogate(key.charAt(i)))
            {
                final int cp = Character.toCodePoint(c, key.charAt(i++));
                pending = (0xF0 | (cp >>> 18)) | ((0x80 | ((cp >>> 12) & 0x3F)) << 8) |
                    ((0x80 | ((cp >>> 6) & 0x3F)) << 16) | ((0x80 | (cp & 0x3F)) << 24);
                pendingBytes = 4;
            }
            else
            {
                pending = '?';
                pendingBytes = 1;
            }
            length += pendingBytes;
        }
        return finish(v0, v1, v2, v3, word | ((long)length << 56));
    }

    /**
     * Eight chars {@code [from, from + 8)} of a sequence as the word of their UTF-8 bytes, little-endian (the first
     * char in the low byte), if all eight are ASCII: then each char is its one UTF-8 byte. Constant shifts, no
     * loop: the fast step of every char-by-char UTF-8 encoder of this engine.
     *
     * @param chars the characters (at least {@code from + 8} of them).
     * @param from  the first char.
     * @return the word, or {@link #NOT_ASCII} if a char is {@code >= 0x80} (an ASCII word never has its top bit set).
     */
    public static long asciiWord(final CharSequence chars, final int from)
    {
        final long c0 = chars.charAt(from);
        final long c1 = chars.charAt(from + 1);
        final long c2 = chars.charAt(from + 2);
        final long c3 = chars.charAt(from + 3);
        final long c4 = chars.charAt(from + 4);
        final long c5 = chars.charAt(from + 5);
        final long c6 = chars.charAt(from + 6);
        final long c7 = chars.charAt(from + 7);
        return (c0 | c1 | c2 | c3 | c4 | c5 | c6 | c7) < 0x80 ?
            c0 | c1 << 8 | c2 << 16 | c3 << 24 | c4 << 32 | c5 << 40 | c6 << 48 | c7 << 56 : NOT_ASCII;
    }

    /**
     * {@link #asciiWord(CharSequence, int)} for {@code n} chars (a tail of fewer than 8): their UTF-8 word in the
     * low {@code n} bytes, the top bytes 0.
     *
     * @param chars the characters (at least {@code from + n} of them).
     * @param from  the first char.
     * @param n     how many chars, in [0, 8].
     * @return the word, or {@link #NOT_ASCII} if a char is {@code >= 0x80}.
     */
    public static long asciiWord(final CharSequence chars, final int from, final int n)
    {
        long packed = 0;
        long or = 0;
        for (int b = 0; b < n; b++)
        {
            final char c = chars.charAt(from + b);
            or |= c;
            packed |= (long)c << (b << 3);
        }
        return or < 0x80 ? packed : NOT_ASCII;
    }

    /**
     * The last block (the 0 to 7 remaining bytes, little-endian, with {@code length mod 256} in the top byte),
     * then the four finalisation rounds.
     */
    private static long finish(long v0, long v1, long v2, long v3, final long last)
    {
        v3 ^= last;
        for (int r = 0; r < 2; r++)
        {
            v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
            v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
            v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
            v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
        }
        v0 ^= last;
        v2 ^= 0xFF;
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
