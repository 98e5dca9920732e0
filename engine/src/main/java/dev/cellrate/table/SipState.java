package dev.cellrate.table;

import java.nio.ByteOrder;
import java.util.Objects;

import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;

/**
 * One SipHash-2-4 computation in progress [1]: the four state words, and the input bytes fed but not yet
 * compressed. The SipHash round, the finalisation, the packing of input into words and the UTF-8 encoder of the
 * engine exist only here: {@link KeyHash}'s one-shot forms and {@code dev.cellrate.hash.SipHash.Parts} both run on
 * it.
 * <p>
 * <b>Allocation.</b> {@code SipHash.Parts} keeps one state across calls. {@link KeyHash} makes one per hash as a
 * local that never leaves the method making it (the bytes loop hands over to the chars with the four words, not
 * the object): the compiler's escape analysis (C2) then keeps its fields in registers, and the compiled hash
 * allocates nothing. That holds only while every method a local state is passed to is inlined, hence: the methods
 * the bytes path calls on it ({@link #compress}, {@link #finish(long)}, the constructor) stay under 35 bytecodes,
 * which C2 inlines at any call site, and call the larger ones once each; the chars loop ({@link #utf8(long, long,
 * long, long, long, int, long, CharSequence, int, SipState)}) runs on a state of its own, made and finished inside
 * it, and passes it only to {@link #append}, once a block or char. Interpreted and C1-compiled code, during
 * warm-up, allocates one 64-byte state per hash.
 * <p>
 * Input is fed as little-endian words: {@link #compress} a whole word when nothing is pending,
 * {@link #append} 1 to 8 bytes at any point, {@link #appendBytes} a byte range, {@link #appendUtf8} characters as
 * their UTF-8 encoding, exactly as {@code String.getBytes(UTF_8)} encodes them (an unpaired surrogate becomes
 * {@code '?'}). {@link #finish()} pads the last block with the byte count mod 256 and runs the four final rounds.
 * <p>
 * Threading: one thread at a time. References: [1] J.-P. Aumasson, D. J. Bernstein, "SipHash: a fast short-input
 * PRF", INDOCRYPT 2012 (https://eprint.iacr.org/2012/351).
 */
public final class SipState
{
    /** {@link #asciiWord} result when a char is not ASCII. */
    public static final long NOT_ASCII = -1L;

    private static final boolean NATIVE_LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    long v0;
    long v1;
    long v2;
    long v3;
    /** Bytes fed but not yet compressed: the low {@link #pendingBytes} bytes, little-endian. */
    private long pending;
    private int pendingBytes;
    /** Bytes fed since the start (only the low byte enters the last block). */
    private long total;

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

    private SipState(
        final long v0, final long v1, final long v2, final long v3, final long pending, final int pendingBytes,
        final long total)
    {
        set(v0, v1, v2, v3, pending, pendingBytes, total);
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
        v0 = k0 ^ 0x736f6d6570736575L; // "somepseudorandomlygeneratedbytes"
        v1 = k1 ^ 0x646f72616e646f6dL;
        v2 = k0 ^ 0x6c7967656e657261L;
        v3 = k1 ^ 0x7465646279746573L;
        pending = 0;
        pendingBytes = 0;
        total = 0;
    }

    /**
     * @return bytes fed since the start.
     */
    public long total()
    {
        return total;
    }

    /**
     * Feed the low {@code n} bytes of {@code value}, little-endian.
     *
     * @param value the bytes; those above the low {@code n} are zero.
     * @param n     how many, in [1, 8].
     */
    public void append(final long value, final int n)
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
        final long address = BufferUtil.ARRAY_BASE_OFFSET + offset;
        final long wordsEnd = address + length - (length & 7);
        for (long a = address; a < wordsEnd; a += 8)
        {
            append(word(bytes, a), 8);
        }
        if (0 != (length & 7))
        {
            append(tail(bytes, address, wordsEnd, length), length & 7);
        }
    }

    /**
     * Feed chars {@code [from, length)} of a sequence as their UTF-8 encoding (see {@link #utf8}).
     *
     * @param chars the characters.
     * @param from  the first char fed.
     */
    public void appendUtf8(final CharSequence chars, final int from)
    {
        if (from < chars.length())
        {
            utf8(v0, v1, v2, v3, pending, pendingBytes, total, chars, from, this);
        }
    }

    /**
     * Feed chars {@code [from, length)} of a sequence, at least one, as their UTF-8 encoding, to the state given by
     * its fields: blocks of eight ASCII chars as one word, the chars of a block holding a non-ASCII char one at a
     * time (a surrogate pair as one four-byte code point). Then either store the state into {@code into} or, when
     * {@code into} is null, end the hash.
     * <p>
     * The loop runs on a state of its own that never leaves this method (its fields are copied into
     * {@code into}), passed only to {@link #append}, called once a char or block: so compiled code keeps it in
     * registers whether or not this method is inlined into its caller. {@link KeyHash}'s one-shot hash of chars is
     * the {@code null} form; {@link #appendUtf8} the other.
     *
     * @return the hash when {@code into} is null, else 0.
     */
    static long utf8(
        final long v0, final long v1, final long v2, final long v3, final long pending, final int pendingBytes,
        final long total, final CharSequence chars, final int from, final SipState into)
    {
        final SipState sip = new SipState(v0, v1, v2, v3, pending, pendingBytes, total);
        final int length = chars.length();
        int blockEnd = from; // the chars before it belong to a block that holds a non-ASCII char
        for (int i = from; i < length; )
        {
            long bytes = NOT_ASCII;
            int count = 0;
            if (i >= blockEnd)
            {
                count = Math.min(8, length - i);
                bytes = 8 == count ? asciiWord(chars, i) : asciiWord(chars, i, count);
                blockEnd = i + count;
            }
            int next = blockEnd;
            if (NOT_ASCII == bytes)
            {
                final long encoded = utf8(chars, i, length);
                bytes = encoded & 0xFFFF_FFFFL;
                count = (int)(encoded >>> 32);
                next = i + (4 == count ? 2 : 1);
            }
            sip.append(bytes, count);
            i = next;
        }
        if (null == into)
        {
            return sip.finish();
        }
        into.set(sip.v0, sip.v1, sip.v2, sip.v3, sip.pending, sip.pendingBytes, sip.total);
        return 0;
    }

    /**
     * End the hash.
     *
     * @return the SipHash-2-4 of every byte fed; the state is spent (call {@link #reset} to use it again).
     */
    public long finish()
    {
        return finish(pending | (total << 56));
    }

    // compress and finish(long) stay under 35 bytecodes, so that C2 inlines them at any call site (see the class).

    /** Compress one whole word of input; only while no byte is pending. */
    void compress(final long m)
    {
        v3 ^= m;
        round();
        round();
        v0 ^= m;
    }

    /**
     * The last block (the 0 to 7 remaining bytes, little-endian, with the byte count mod 256 in the top byte),
     * then the four finalisation rounds.
     */
    long finish(final long last)
    {
        compress(last);
        return finalRounds();
    }

    private long finalRounds()
    {
        v2 ^= 0xFF;
        for (int r = 0; r < 4; r++)
        {
            round();
        }
        return v0 ^ v1 ^ v2 ^ v3;
    }

    private void round()
    {
        v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
        v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
        v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
        v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
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
    static long word(final Object base, final long address)
    {
        final long nativeWord = UnsafeApi.getLong(base, address);
        return NATIVE_LITTLE_ENDIAN ? nativeWord : Long.reverseBytes(nativeWord);
    }

    /**
     * The 0 to 7 bytes after the last whole word of the {@code length} bytes at {@code address}, little-endian in
     * the low bytes of a word. Reads only those bytes: after a whole word, the last word of the bytes, overlapping
     * the one before, whose top bytes are the tail.
     */
    static long tail(final Object base, final long address, final long wordsEnd, final int length)
    {
        final int tail = length & 7;
        if (0 != tail && wordsEnd != address)
        {
            return word(base, wordsEnd + tail - 8) >>> (64 - (tail << 3));
        }
        long word = 0;
        for (int b = 0; b < tail; b++)
        {
            word |= (UnsafeApi.getByte(base, wordsEnd + b) & 0xFFL) << (b << 3);
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
