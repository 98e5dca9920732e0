package dev.cellrate.table;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class KeyHashTest
{
    private static final long OLD_P1 = 0x9e3779b97f4a7c15L;

    @Test
    void longMixerIsInvertibleHenceBijective()
    {
        final SplittableRandom random = new SplittableRandom(1);
        for (int i = 0; i < 200_000; i++)
        {
            final long key = i < 1000 ? i - 500 : random.nextLong();
            final long seed = random.nextLong();
            assertEquals(key, KeyHash.unmixLong(KeyHash.mixLong(key, seed), seed));
        }
        assertEquals(Long.MIN_VALUE, KeyHash.unmixLong(KeyHash.mixLong(Long.MIN_VALUE, 7), 7));
        assertEquals(Long.MAX_VALUE, KeyHash.unmixLong(KeyHash.mixLong(Long.MAX_VALUE, 7), 7));
    }

    @Test
    void exactlyOneLongKeyMapsToEachReservedWord()
    {
        final long seed = 0x1234_5678_9abcL;
        final long emptyOwner = KeyHash.unmixLong(TableLayout.EMPTY_KEY, seed);
        final long tombstoneOwner = KeyHash.unmixLong(TableLayout.TOMBSTONE_KEY, seed);
        assertEquals(TableLayout.EMPTY_KEY, KeyHash.mixLong(emptyOwner, seed));
        assertEquals(TableLayout.TOMBSTONE_KEY, KeyHash.mixLong(tombstoneOwner, seed));
        assertNotEquals(emptyOwner, tombstoneOwner);
    }

    @Test
    void longKeySeedDependsOnBothSecretWords()
    {
        final long s = KeyHash.longKeySeed(1, 2);
        assertNotEquals(s, KeyHash.longKeySeed(1, 3));
        assertNotEquals(s, KeyHash.longKeySeed(0, 2));
        assertNotEquals(1, s);
        assertNotEquals(2, s);
    }

    @Test
    void charSequenceHashesAsItsUtf8Bytes()
    {
        final SplittableRandom random = new SplittableRandom(2);
        final String[] fixed = {"", "a", "abcdefg", "abcdefgh", "abcdefghi", "é", "€uro", "日本語のキー",
            "\uD83D\uDE00 emoji", "lone \uD800 high", "lone \uDC00 low", "end\uD800", "192.168.0.1", "user:42/route",
            "1234567é", "123456é", "1234567\uD83D\uDE00x", "abcdefghijklmnopq€", "\uD83D\uDE00\uD83D\uDE00\uD83D\uDE00"};
        for (final String s : fixed)
        {
            assertSameAcrossTypes(s, 99L, 98L);
        }
        for (int i = 0; i < 20_000; i++)
        {
            final int length = random.nextInt(40);
            final StringBuilder sb = new StringBuilder(length);
            for (int c = 0; c < length; c++)
            {
                final int kind = random.nextInt(6);
                sb.append((char)(kind <= 1 ? random.nextInt(0x80) : kind == 2 ? random.nextInt(0x800) :
                    kind == 3 ? random.nextInt(0x10000) : kind == 4 ? 0xD800 + random.nextInt(0x400) :
                    0xDC00 + random.nextInt(0x400)));
            }
            final long k0 = random.nextLong();
            final long k1 = random.nextLong();
            assertSameAcrossTypes(sb.toString(), k0, k1);
            assertEquals(KeyHash.hashCharSequence(sb.toString(), k0, k1), KeyHash.hashCharSequence(sb, k0, k1));
        }
    }

    /**
     * The String paths (bytes read directly for compact ASCII strings, chars otherwise) against the bytes path
     * over random strings of every length 0..64 and every kind of char: ASCII, LATIN1 above 0x7F (one byte in the
     * String, two in UTF-8), two- and three-byte chars, pairs and unpaired surrogates, and ASCII strings with one
     * char changed at a random place (so every block and tail position falls back once).
     */
    @Test
    void stringPathsEqualTheBytesOfGetBytesUtf8()
    {
        assertTrue(KeyHash.stringBytesReadable(), "this JDK's String bytes are not read: the fast path is untested");
        final SplittableRandom random = new SplittableRandom(14);
        for (int round = 0; round < 4_000; round++)
        {
            final int length = round % 65;
            final int kind = random.nextInt(4);
            final StringBuilder sb = new StringBuilder(length);
            for (int c = 0; c < length; c++)
            {
                sb.append(randomChar(random, kind));
            }
            if (kind == 0 && length > 0 && random.nextBoolean())
            {
                sb.setCharAt(random.nextInt(length), randomChar(random, 1 + random.nextInt(3)));
            }
            final String s = sb.toString();
            final long k0 = random.nextLong();
            final long k1 = random.nextLong();
            final byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
            final long expected = KeyHash.hashBytes(utf8, 0, utf8.length, k0, k1);
            assertEquals(expected, KeyHash.hashCharSequence(s, k0, k1), s);
            assertEquals(expected, KeyHash.hashCharSequence(sb, k0, k1), s);
            assertEquals(expected, KeyHash.hashCharSequence(java.nio.CharBuffer.wrap(s), k0, k1), s);
            final UnsafeBuffer buffer = new UnsafeBuffer(new byte[utf8.length + 9]);
            buffer.putBytes(4, utf8);
            assertEquals(expected, KeyHash.hashBuffer(buffer, 4, utf8.length, k0, k1), s);
        }
        // A substring and a string made from a char[]: other constructors, same layout rules.
        final String base = "prefix-client-000000042-suffix";
        assertSameAcrossTypes(base.substring(7, 23), 5, 6);
        assertSameAcrossTypes(new String("client-é".toCharArray()), 5, 6);
        assertSameAcrossTypes(new String("client-\u20ac".toCharArray()), 5, 6);
    }

    private static char randomChar(final SplittableRandom random, final int kind)
    {
        switch (kind)
        {
            case 0: return (char)random.nextInt(0x80);
            case 1: return (char)(0x80 + random.nextInt(0x80));
            case 2: return (char)random.nextInt(0x800);
            default:
                final int r = random.nextInt(4);
                return (char)(r == 0 ? 0xD800 + random.nextInt(0x400) : r == 1 ? 0xDC00 + random.nextInt(0x400) :
                    random.nextInt(0x10000));
        }
    }

    private static void assertSameAcrossTypes(final String s, final long k0, final long k1)
    {
        final byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        final long expected = KeyHash.hashBytes(utf8, 0, utf8.length, k0, k1);
        assertEquals(expected, KeyHash.hashCharSequence(s, k0, k1), s);
        final byte[] padded = new byte[utf8.length + 11];
        Arrays.fill(padded, (byte)0x5A);
        System.arraycopy(utf8, 0, padded, 5, utf8.length);
        assertEquals(expected, KeyHash.hashBytes(padded, 5, utf8.length, k0, k1), s);
        assertEquals(expected, KeyHash.hashBuffer(new UnsafeBuffer(padded), 5, utf8.length, k0, k1), s);
    }

    @Test
    void noByteAfterTheKeyIsRead()
    {
        final SplittableRandom random = new SplittableRandom(3);
        for (int length = 0; length <= 40; length++)
        {
            final byte[] key = new byte[length];
            for (int i = 0; i < length; i++)
            {
                key[i] = (byte)random.nextInt();
            }
            final long expected = KeyHash.hashBytes(key, 0, length, 5, 6);
            for (int pad = 1; pad <= 9; pad++)
            {
                final byte[] padded = Arrays.copyOf(key, length + pad);
                for (int p = length; p < padded.length; p++)
                {
                    padded[p] = (byte)(0x80 | random.nextInt());
                }
                assertEquals(expected, KeyHash.hashBytes(padded, 0, length, 5, 6), "array, length " + length);
                assertEquals(expected, KeyHash.hashBuffer(new UnsafeBuffer(padded), 0, length, 5, 6),
                    "buffer, length " + length);
            }
        }
    }

    @Test
    void rangesOutsideTheKeyAreRejectedBeforeAnyRead()
    {
        final byte[] bytes = new byte[8];
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[8]);
        final int[][] bad = {{0, 9}, {0, -1}, {0, Integer.MIN_VALUE}, {4, -8}, {-1, 1}, {8, 1},
            {Integer.MAX_VALUE, 2}, {1, Integer.MAX_VALUE}};
        for (final int[] range : bad)
        {
            assertThrows(IndexOutOfBoundsException.class, () -> KeyHash.hashBytes(bytes, range[0], range[1], 1, 2),
                Arrays.toString(range));
            assertThrows(IndexOutOfBoundsException.class, () -> KeyHash.hashBuffer(buffer, range[0], range[1], 1, 2),
                Arrays.toString(range));
        }
        assertEquals(KeyHash.hashBytes(bytes, 8, 0, 1, 2), KeyHash.hashBuffer(buffer, 8, 0, 1, 2));
    }

    /**
     * The ASCII step the char encoders share: eight (or fewer) chars as the little-endian word of their UTF-8 bytes,
     * exactly the bytes {@code getBytes(UTF_8)} gives; any char from 0x80 up makes it NOT_ASCII, which no ASCII word
     * equals.
     */
    @Test
    void asciiWordIsTheLittleEndianWordOfTheUtf8Bytes()
    {
        final String text = "xclient-0\u007f1234567";
        for (int from = 0; from + 8 <= text.length(); from++)
        {
            assertEquals(littleEndian(text.substring(from, from + 8).getBytes(StandardCharsets.UTF_8)),
                SipState.asciiWord(text, from), "from " + from);
            assertEquals(SipState.asciiWord(text, from), SipState.asciiWord(new StringBuilder(text), from, 8));
        }
        for (int n = 0; n <= 8; n++)
        {
            assertEquals(littleEndian("abcdefgh".substring(0, n).getBytes(StandardCharsets.UTF_8)),
                SipState.asciiWord("abcdefgh", 0, n), "n " + n);
        }
        for (final String base : new String[] {"abcdefgh", "\0\0\0\0\0\0\0\0"})
        for (final char c : new char[] {'\u0080', '\u00e9', '\u20ac', '\ud83d', '\uffff'})
        {
            for (int at = 0; at < 8; at++)
            {
                final StringBuilder key = new StringBuilder(base);
                key.setCharAt(at, c);
                assertEquals(SipState.NOT_ASCII, SipState.asciiWord(key, 0), c + " at " + at);
                assertEquals(SipState.NOT_ASCII, SipState.asciiWord(key, 0, at + 1), c + " at " + at);
                assertEquals(littleEndian(key.substring(0, at).getBytes(StandardCharsets.UTF_8)),
                    SipState.asciiWord(key, 0, at), "before " + at);
            }
        }
    }

    private static long littleEndian(final byte[] bytes)
    {
        long word = 0;
        for (int i = 0; i < bytes.length; i++)
        {
            word |= (bytes[i] & 0xFFL) << (8 * i);
        }
        return word;
    }

    @Test
    void lengthAndTrailingZerosAreDistinguished()
    {
        final byte[] zeros = new byte[24];
        final Set<Long> words = new HashSet<>();
        for (int length = 0; length <= 24; length++)
        {
            assertTrue(words.add(KeyHash.hashBytes(zeros, 0, length, 3, 4)), "length " + length);
        }
    }

    /**
     * The construction (xor 2^34 into {@code P1 * block i}, flip bit 63 of block i + 1) collided
     * under the old hash for every seed; under SipHash with random secrets the two words differ, also when
     * the construction is applied to several block pairs at once.
     */
    @Test
    void theOldCollisionConstructionGivesDifferentWordsForRandomSecrets()
    {
        final SecureRandom random = new SecureRandom();
        final byte[] victim = new byte[48];
        random.nextBytes(victim);
        final byte[] twin = forge(forge(victim, 0), 2);
        int equal = 0;
        for (int i = 0; i < 1000; i++)
        {
            final long k0 = random.nextLong();
            final long k1 = random.nextLong();
            equal += KeyHash.hashBytes(victim, 0, 48, k0, k1) == KeyHash.hashBytes(twin, 0, 48, k0, k1) ? 1 : 0;
            final byte[] twin16 = forge(victim, 1);
            equal += KeyHash.hashBytes(victim, 8, 16, k0, k1) == KeyHash.hashBytes(twin16, 8, 16, k0, k1) ? 1 : 0;
        }
        assertEquals(0, equal);
    }

    private static byte[] forge(final byte[] key, final int block)
    {
        final UnsafeBuffer view = new UnsafeBuffer(key.clone());
        final long w = view.getLong(8 * block, java.nio.ByteOrder.LITTLE_ENDIAN);
        long inverse = OLD_P1;
        for (int i = 0; i < 6; i++)
        {
            inverse *= 2 - OLD_P1 * inverse;
        }
        assertEquals(1, OLD_P1 * inverse);
        view.putLong(8 * block, inverse * ((OLD_P1 * w) ^ (1L << 34)), java.nio.ByteOrder.LITTLE_ENDIAN);
        view.putByte(8 * block + 15, (byte)(view.getByte(8 * block + 15) ^ 0x80));
        return view.byteArray();
    }

    /**
     * Spread: 2^20 sequential, similar string keys ("client-N") into 4096 buckets by the low 12 bits (the home
     * slot) and by bits 48..59 (the shard bits): chi-square with 4095 degrees of freedom has mean 4095 and
     * standard deviation 90.5; allow 6 sd. Every output bit is set in half the words within 6 sd, and one input
     * bit flipped flips about half the output bits (avalanche).
     */
    @Test
    void statisticalSpread()
    {
        final int n = 1 << 20;
        final int buckets = 4096;
        final long[] low = new long[buckets];
        final long[] high = new long[buckets];
        final long[] bitCounts = new long[64];
        final long k0 = 0x0123456789abcdefL;
        final long k1 = 0x7edcba9876543210L;
        final StringBuilder key = new StringBuilder(20);
        final Set<Long> words = new HashSet<>(2 * n);
        for (int i = 0; i < n; i++)
        {
            key.setLength(0);
            key.append("client-").append(i);
            final long word = KeyHash.hashCharSequence(key, k0, k1);
            assertTrue(words.add(word), "64-bit collision among " + n + " keys");
            low[(int)word & (buckets - 1)]++;
            high[(int)(word >>> 48) & (buckets - 1)]++;
            for (int b = 0; b < 64; b++)
            {
                bitCounts[b] += (word >>> b) & 1;
            }
        }
        final double expected = (double)n / buckets;
        assertChiSquare(low, expected, "low bits");
        assertChiSquare(high, expected, "shard bits");
        final double bitSd = Math.sqrt(n * 0.25);
        for (int b = 0; b < 64; b++)
        {
            assertTrue(Math.abs(bitCounts[b] - n / 2.0) < 6 * bitSd, "bit " + b + " set " + bitCounts[b]);
        }
        final SplittableRandom random = new SplittableRandom(4);
        final byte[] bytes = new byte[16];
        long flipped = 0;
        final int trials = 20_000;
        for (int t = 0; t < trials; t++)
        {
            for (int i = 0; i < bytes.length; i++)
            {
                bytes[i] = (byte)random.nextInt();
            }
            final long before = KeyHash.hashBytes(bytes, 0, 16, k0, k1);
            final int bit = random.nextInt(128);
            bytes[bit >>> 3] ^= (byte)(1 << (bit & 7));
            flipped += Long.bitCount(before ^ KeyHash.hashBytes(bytes, 0, 16, k0, k1));
        }
        final double meanFlipped = (double)flipped / trials;
        assertTrue(Math.abs(meanFlipped - 32) < 0.3, "mean output bits flipped " + meanFlipped);
    }

    private static void assertChiSquare(final long[] counts, final double expected, final String what)
    {
        double chi = 0;
        for (final long count : counts)
        {
            chi += (count - expected) * (count - expected) / expected;
        }
        final int df = counts.length - 1;
        assertTrue(Math.abs(chi - df) < 6 * Math.sqrt(2.0 * df), what + ": chi-square " + chi + ", df " + df);
    }
}
