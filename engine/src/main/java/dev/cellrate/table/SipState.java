package dev.cellrate.table;

import java.nio.ByteOrder;
import java.util.Objects;

import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;

/**
 * One SipHash-2-4 computation in progress [1]: the four state words, and the input bytes fed but not yet
 * compressed. The engine's SipHash is written here once: {@link #absorb}, which {@link KeyHash}'s one-shot forms
 * and {@code dev.cellrate.hash.SipHash.Parts} both call, holds the packing of input into words, the UTF-8 encoder
 * and the compression loop; {@link #finish(long, long, long, long, long)} the last block and the final rounds (the
 * round is written in both: a finish that runs through the compression loop costs the one-shot hash about 30%).
 * <p>
 * <b>Allocation.</b> {@link #absorb} keeps the state in local variables: a one-shot hash makes no object at all,
 * whether the code runs interpreted, C1- or C2-compiled. {@code SipHash.Parts} keeps one {@code SipState} across
 * calls, which {@link #absorb} reads and writes back.
 * <p>
 * <b>A call, not inlined.</b> {@link #absorb} is larger than C2 inlines into a hot caller (325 bytecodes), so a
 * keyed decision calls it; with the hash's loop inlined into the decision the keyed string decision costs about
 * 10% more CPU time ({@code tools/lab/ab-cpu.sh}, paired in one JVM).
 * <p>
 * Threading: one thread at a time. References: [1] J.-P. Aumasson, D. J. Bernstein, "SipHash: a fast short-input
 * PRF", INDOCRYPT 2012 (https://eprint.iacr.org/2012/351).
 */
public final class SipState
{
    /** {@link #asciiWord} result when a char is not ASCII. */
    public static final long NOT_ASCII = -1L;

    /** The initialisation constants, "somepseudorandomlygeneratedbytes", xored into the secret. */
    static final long C0 = 0x736f6d6570736575L;
    static final long C1 = 0x646f72616e646f6dL;
    static final long C2 = 0x6c7967656e657261L;
    static final long C3 = 0x7465646279746573L;

    private static final boolean NATIVE_LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;
    /** The high bit of every byte of a word: a word of ASCII bytes has none of them set. */
    private static final long HIGH_BITS = 0x8080808080808080L;

    private long v0;
    private long v1;
    private long v2;
    private long v3;
    /** Bytes fed but not yet compressed: the low {@link #pendingBytes} bytes, little-endian. */
    private long pending;
    private int pendingBytes;
    /** Bytes fed since the start (only the low byte enters the last block). */
    private long total;
    /** {@link #appendCount}'s 4 bytes, made at its first use. */
    private byte[] countBytes;

    /**
     * A state before any input, under the secret {@code (k0, k1)}: the reference key bytes {@code k[0..15]}
     * read as two little-endian words.
     *
     * @param k0 the secret's first word.
     * @param k1 the secret's second word.
     */
    public SipState(final long k0, final long k1)
    {
        reset(k0, k1);
    }

    private void set(
        final long v0, final long v1, final long v2, final long v3, final long pending, final int pendingBytes,
        final long total)
    {
        this.v0 = v0;
        this.v1 = v1;
        this.v2 = v2;
        this.v3 = v3;
        this.pending = pending;
        this.pendingBytes = pendingBytes;
        this.total = total;
    }

    /**
     * Start again, before any input, under the secret {@code (k0, k1)}.
     *
     * @param k0 the secret's first word.
     * @param k1 the secret's second word.
     */
    public void reset(final long k0, final long k1)
    {
        set(k0 ^ C0, k1 ^ C1, k0 ^ C2, k1 ^ C3, 0, 0, 0);
    }

    /**
     * @return bytes fed since the start.
     */
    public long total()
    {
        return total;
    }

    /**
     * Feed bytes {@code [offset, offset + length)} of an array.
     *
     * @param bytes  the array.
     * @param offset first byte.
     * @param length number of bytes.
     * @throws IndexOutOfBoundsException if the range is not inside the array (including a negative length);
     *                                   nothing is fed then.
     */
    public void appendBytes(final byte[] bytes, final int offset, final int length)
    {
        Objects.checkFromIndexSize(offset, length, bytes.length);
        absorb(v0, v1, v2, v3, pending, pendingBytes, total,
            bytes, BufferUtil.ARRAY_BASE_OFFSET + offset, length, false, null, 0, this);
    }

    /**
     * Feed chars {@code [from, length)} of a sequence as their UTF-8 encoding.
     *
     * @param chars the characters.
     * @param from  the first char fed.
     */
    public void appendUtf8(final CharSequence chars, final int from)
    {
        absorb(v0, v1, v2, v3, pending, pendingBytes, total, null, 0, 0, false, chars, from, this);
    }

    /**
     * Feed the low 32 bits of a count as 4 little-endian bytes.
     *
     * @param count the count.
     */
    public void appendCount(final long count)
    {
        if (null == countBytes)
        {
            countBytes = new byte[4];
        }
        for (int b = 0; b < 4; b++)
        {
            countBytes[b] = (byte)(count >>> (b << 3));
        }
        appendBytes(countBytes, 0, 4);
    }

    /**
     * Feed input to the state {@code v0..v3, pending, pendingBytes, total}, then store the state into {@code into},
     * or, when {@code into} is null, end the hash. The input: bytes {@code [address, address + length)} of
     * {@code base} (a {@code byte[]} with the array base offset, or {@code null} with an off-heap address; the
     * range already checked), then chars {@code [from, chars.length())} of {@code chars} as UTF-8, exactly as
     * {@code String.getBytes(UTF_8)} encodes them (an unpaired surrogate becomes {@code '?'}).
     * <p>
     * With {@code latin1}, the bytes are the one-byte-per-char array of the string {@code chars} (read, never
     * written or kept), which is its UTF-8 encoding while it is ASCII: from the first word (or tail) holding a
     * byte above 0x7F on, the chars are encoded instead, from that word's first char.
     * <p>
     * Whole words of bytes, while nothing is pending, are read and compressed directly; the rest is packed into
     * the pending word a piece at a time: up to 8 bytes, 8 ASCII chars, or one char's UTF-8 encoding.
     *
     * @return the hash when {@code into} is null, else 0.
     */
    static long absorb(
        long v0, long v1, long v2, long v3, long pending, int pendingBytes, long total,
        final Object base, final long address, final int length, final boolean latin1,
        final CharSequence chars, final int from, final SipState into)
    {
        long a = address;
        long end = address + length;
        final int charsEnd = null == chars ? 0 : chars.length();
        int i = latin1 ? Integer.MAX_VALUE : from; // latin1: the chars are fed only from a hand-over on
        int blockEnd = i; // the chars before it belong to a block that holds a non-ASCII char
        while (true)
        {
            final long m;
            if (0 == pendingBytes && end - a >= 8)
            {
                // A whole word of bytes while nothing is pending: read and compressed directly.
                m = word(base, a);
                if (latin1 && 0 != (m & HIGH_BITS))
                {
                    i = blockEnd = (int)(a - address);
                    end = a;
                    continue;
                }
                a += 8;
                total += 8;
            }
            else if (a < end || i < charsEnd)
            {
                long value;
                int n;
                boolean last = false;
                if (a < end)
                {
                    n = (int)Math.min(8, end - a);
                    value = 8 == n ? word(base, a) : tail(base, address, end, n);
                    if (latin1 && 0 != (value & HIGH_BITS))
                    {
                        i = blockEnd = (int)(a - address);
                        end = a;
                        continue;
                    }
                    a += n;
                    // The tail of a one-shot hash of bytes (or of an ASCII string's bytes) is its last block.
                    last = n < 8 && 0 == pendingBytes && null == into && i >= charsEnd;
                }
                else
                {
                    value = NOT_ASCII;
                    n = 0;
                    if (i >= blockEnd)
                    {
                        n = Math.min(8, charsEnd - i);
                        value = 8 == n ? asciiWord(chars, i) : asciiWord(chars, i, n);
                        blockEnd = i + n;
                    }
                    int next = blockEnd;
                    if (NOT_ASCII == value)
                    {
                        final long encoded = utf8(chars, i, charsEnd);
                        value = encoded & 0xFFFF_FFFFL;
                        n = (int)(encoded >>> 32);
                        next = i + (4 == n ? 2 : 1);
                    }
                    i = next;
                }
                total += n;
                if (last)
                {
                    return finish(v0, v1, v2, v3, value | total << 56);
                }
                else
                {
                    final long word = pending | value << (pendingBytes << 3);
                    final int filled = pendingBytes + n;
                    if (filled < 8)
                    {
                        pending = word;
                        pendingBytes = filled;
                        continue;
                    }
                    // The bytes of value that did not fit: none when it ended the word exactly.
                    pending = 8 == filled ? 0 : value >>> ((8 - pendingBytes) << 3);
                    pendingBytes = filled - 8;
                    m = word;
                }
            }
            else if (null != into)
            {
                into.set(v0, v1, v2, v3, pending, pendingBytes, total);
                return 0;
            }
            else
            {
                return finish(v0, v1, v2, v3, pending | total << 56);
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
    }

    /** The last block, then v2 ^= 0xFF and the four final rounds. */
    private static long finish(long v0, long v1, long v2, long v3, final long last)
    {
        v3 ^= last;
        for (int r = 0; r < 6; r++)
        {
            if (2 == r)
            {
                v0 ^= last;
                v2 ^= 0xFF;
            }
            v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
            v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
            v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
            v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
        }
        return v0 ^ v1 ^ v2 ^ v3;
    }

    /**
     * End the hash.
     *
     * @return the SipHash-2-4 of every byte fed; the state is then spent (call {@link #reset} to use it again).
     */
    public long finish()
    {
        return absorb(v0, v1, v2, v3, pending, pendingBytes, total, null, 0, 0, false, null, 0, null);
    }

    /**
     * The UTF-8 encoding of the char at {@code i} (with the next one, if they are a surrogate pair), exactly as
     * {@code String.getBytes(UTF_8)} gives it: an unpaired surrogate is {@code '?'}.
     *
     * @return the bytes, little-endian in the low 4 bytes, and their count (1 to 4, 4 for a pair) in the bits above.
     */
    static long utf8(final CharSequence chars, final int i, final int length)
    {
        final char c = chars.charAt(i);
        if (c < 0x80)
        {
            return c | 1L << 32;
        }
        if (c < 0x800)
        {
            return (0xC0 | (c >>> 6)) | ((0x80 | (c & 0x3F)) << 8) | 2L << 32;
        }
        if (!Character.isSurrogate(c))
        {
            return (0xE0 | (c >>> 12)) | ((0x80 | ((c >>> 6) & 0x3F)) << 8) | ((0x80 | (c & 0x3F)) << 16) | 3L << 32;
        }
        if (Character.isHighSurrogate(c) && i + 1 < length && Character.isLowSurrogate(chars.charAt(i + 1)))
        {
            final int cp = Character.toCodePoint(c, chars.charAt(i + 1));
            return (0xF0 | (cp >>> 18)) | ((0x80 | ((cp >>> 12) & 0x3F)) << 8) |
                ((0x80 | ((cp >>> 6) & 0x3F)) << 16) | ((long)(0x80 | (cp & 0x3F)) << 24) | 4L << 32;
        }
        return '?' | 1L << 32;
    }

    /**
     * The 8 bytes at {@code address} of {@code base} (a {@code byte[]} with the array base offset, or
     * {@code null} with an off-heap address) as a little-endian word, as the reference reads its input.
     */
    private static long word(final Object base, final long address)
    {
        final long nativeWord = UnsafeApi.getLong(base, address);
        return NATIVE_LITTLE_ENDIAN ? nativeWord : Long.reverseBytes(nativeWord);
    }

    /**
     * The last {@code n} bytes (1 to 7) before {@code end} of a range starting at {@code start}, little-endian in the
     * low bytes of a word. Reads only the range's bytes: the range's last word, whose top bytes they are, when the
     * range holds 8 bytes; else byte by byte.
     */
    private static long tail(final Object base, final long start, final long end, final int n)
    {
        if (end - start >= 8)
        {
            return word(base, end - 8) >>> (64 - (n << 3));
        }
        long word = 0;
        for (int b = 0; b < n; b++)
        {
            word |= (UnsafeApi.getByte(base, end - n + b) & 0xFFL) << (b << 3);
        }
        return word;
    }

    /**
     * Eight chars {@code [from, from + 8)} of a sequence as the word of their UTF-8 bytes, little-endian (the first
     * char in the low byte), if all eight are ASCII: then each char is its one UTF-8 byte. Constant shifts, no
     * loop: the fast step of the UTF-8 encoder.
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
}
