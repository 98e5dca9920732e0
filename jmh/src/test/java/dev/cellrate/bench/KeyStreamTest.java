package dev.cellrate.bench;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

final class KeyStreamTest
{
    @Test
    void uniformTouchesNearlyEveryKeyAndIsDeterministic()
    {
        final int keys = 1_000;
        final int[] stream = KeyStream.indices(keys, "uniform", 1 << 16, 7);
        final Set<Integer> seen = new HashSet<>();
        for (final int index : stream)
        {
            assertTrue(index >= 0 && index < keys);
            seen.add(index);
        }
        assertEquals(keys, seen.size());
        assertArrayEquals(stream, KeyStream.indices(keys, "uniform", 1 << 16, 7));
    }

    @Test
    void zipfMakesRankZeroHottest()
    {
        final int keys = 1_000;
        final int[] stream = KeyStream.indices(keys, "zipf", 1 << 16, 7);
        final int[] counts = new int[keys];
        for (final int index : stream)
        {
            counts[index]++;
        }
        // P(rank 0) = 1 / H(1000, 0.99), about 0.13; P(rank 9) about a tenth of that.
        final double top = counts[0] / (double)stream.length;
        assertTrue(top > 0.11 && top < 0.15, "rank 0 share " + top);
        assertTrue(counts[0] > 5 * counts[9], "rank 0 vs rank 9");
    }

    @Test
    void lengthIsAPowerOfTwoCoveringTheKeys()
    {
        assertEquals(1 << 20, KeyStream.lengthFor(1_000));
        assertEquals(1 << 20, KeyStream.lengthFor(1_000_000));
        assertEquals(1 << 24, KeyStream.lengthFor(10_000_000));
        assertThrows(IllegalArgumentException.class, () -> KeyStream.indices(10, "uniform", 1000, 1));
        assertThrows(IllegalArgumentException.class, () -> KeyStream.indices(10, "pareto", 1024, 1));
    }

    @Test
    void keysAreDistinct()
    {
        final Set<Long> longs = new HashSet<>();
        final Set<String> strings = new HashSet<>();
        for (int i = 0; i < 10_000; i++)
        {
            longs.add(KeyStream.longKey(i));
            strings.add(KeyStream.stringKey(i));
        }
        assertEquals(10_000, longs.size());
        assertEquals(10_000, strings.size());
        assertEquals("client-000000042", KeyStream.stringKey(42));
    }
}
