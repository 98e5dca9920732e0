package dev.cellrate.table;

import dev.cellrate.layout.OffHeap;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Objects;

import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.UnsafeApi;

/**
 * Keyed functions that turn a user key into the 64-bit <em>key word</em> stored in a {@link SlotTable} slot.
 * Pure and allocation-free (the SipHash computation is {@link SipState#absorb}); the secret is the table's (see
 * {@link SlotTable}, and {@code KeyedRateLimiterBuilder#seed(long, long)} to fix it).
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
    private static final long M1 = 0xbf58476d1ce4e5b9L;
    private static final long M2 = 0x94d049bb133111ebL;

    /** The message whose SipHash under the table secret is the long-key seed (the word 0x79656b2d676e6f6c). */
    private static final String LONG_KEY_DOMAIN = "long-key";

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
        return hash(base, address + offset, length, false, null, k0, k1);
    }

    /**
     * SipHash-2-4 of {@code length} bytes at {@code address} of {@code base} (a {@code byte[]} with the array
     * base offset, or {@code null} with an off-heap address), the range already checked by the caller, then of the
     * UTF-8 encoding of {@code chars}; with {@code latin1}, the bytes are the string {@code chars}' own
     * one-byte-per-char array (see {@link SipState#absorb}).
     */
    private static long hash(
        final Object base, final long address, final int length, final boolean latin1, final CharSequence chars,
        final long k0, final long k1)
    {
        return SipState.absorb(k0 ^ SipState.C0, k1 ^ SipState.C1, k0 ^ SipState.C2, k1 ^ SipState.C3, 0, 0, 0,
            base, address, length, latin1, chars, 0, null);
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
            return hash(latin1, BufferUtil.ARRAY_BASE_OFFSET, latin1.length, true, key, k0, k1);
        }
        return hash(null, 0, 0, false, key, k0, k1);
    }

    /**
     * @return whether {@link #hashCharSequence} reads a one-byte-per-char {@code String}'s bytes directly on this
     * JVM (tests: the direct path must be the one they check).
     */
    static boolean stringBytesReadable()
    {
        return STRING_VALUE_OFFSET >= 0;
    }
}
