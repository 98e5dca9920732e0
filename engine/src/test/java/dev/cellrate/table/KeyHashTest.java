package dev.cellrate.table;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class KeyHashTest
{
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
    void charSequenceHashesAsItsUtf8Bytes()
    {
        final SplittableRandom random = new SplittableRandom(2);
        final String[] fixed = {"", "a", "abcdefg", "abcdefgh", "abcdefghi", "é", "€uro", "日本語のキー",
            "\uD83D\uDE00 emoji", "lone \uD800 high", "lone \uDC00 low", "end\uD800", "192.168.0.1", "user:42/route"};
        for (final String s : fixed)
        {
            assertSameAcrossTypes(s, 99L);
        }
        for (int i = 0; i < 20_000; i++)
        {
            final int length = random.nextInt(40);
            final StringBuilder sb = new StringBuilder(length);
            for (int c = 0; c < length; c++)
            {
                final int kind = random.nextInt(5);
                sb.append((char)(kind == 0 ? random.nextInt(0x80) : kind == 1 ? random.nextInt(0x800) :
                    kind == 2 ? random.nextInt(0x10000) : kind == 3 ? 0xD800 + random.nextInt(0x400) :
                    0xDC00 + random.nextInt(0x400)));
            }
            assertSameAcrossTypes(sb.toString(), random.nextLong());
            assertEquals(KeyHash.hashCharSequence(sb.toString(), 5), KeyHash.hashCharSequence(sb, 5));
        }
    }

    private static void assertSameAcrossTypes(final String s, final long seed)
    {
        final byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        final long expected = KeyHash.hashBytes(utf8, 0, utf8.length, seed);
        assertEquals(expected, KeyHash.hashCharSequence(s, seed), s);
        final byte[] padded = new byte[utf8.length + 11];
        System.arraycopy(utf8, 0, padded, 5, utf8.length);
        assertEquals(expected, KeyHash.hashBytes(padded, 5, utf8.length, seed), s);
        assertEquals(expected, KeyHash.hashBuffer(new UnsafeBuffer(padded), 5, utf8.length, seed), s);
    }

    @Test
    void lengthAndTrailingZerosAreDistinguished()
    {
        final byte[] zeros = new byte[24];
        final Set<Long> words = new HashSet<>();
        for (int length = 0; length <= 24; length++)
        {
            assertTrue(words.add(KeyHash.hashBytes(zeros, 0, length, 3)), "length " + length);
        }
    }

    @Test
    void noCollisionsAmongManySimilarKeysAndSeedsMatter()
    {
        final Set<Long> words = new HashSet<>();
        int sameUnderOtherSeed = 0;
        for (int i = 0; i < 300_000; i++)
        {
            final String key = "10.0." + (i >>> 8) + "." + (i & 0xFF);
            final long word = KeyHash.hashCharSequence(key, 42);
            assertTrue(words.add(word), key);
            sameUnderOtherSeed += word == KeyHash.hashCharSequence(key, 43) ? 1 : 0;
        }
        assertEquals(0, sameUnderOtherSeed);
    }
}
