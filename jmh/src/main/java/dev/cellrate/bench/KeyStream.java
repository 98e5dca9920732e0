package dev.cellrate.bench;

import java.util.SplittableRandom;

/**
 * Pre-generated key streams for the keyed benchmarks and the lab tools: a power-of-two array of key indices in
 * [0, keyCount), read in order with {@code & mask}, so drawing a key costs one sequential array read and no
 * random number generation inside the measured loop.
 * <p>
 * Distributions: {@code uniform}, and {@code zipf} with exponent {@link #ZIPF_EXPONENT} (YCSB's 0.99) over
 * ranks, drawn by binary search in the exact cumulative distribution. Rank r is key index r, and key values
 * are derived from the index by a bijection ({@link #longKey(int)}), so hot keys are not neighbours in any
 * table.
 */
public final class KeyStream
{
    /** The Zipf exponent (YCSB's default). */
    public static final double ZIPF_EXPONENT = 0.99;

    /** The odd multiplier that turns an index into a key value (a bijection on longs). */
    private static final long KEY_MULTIPLIER = 0x9E3779B97F4A7C15L;

    private KeyStream()
    {
    }

    /**
     * @param keyCount     distinct keys, &ge; 1.
     * @param distribution {@code "uniform"} or {@code "zipf"}.
     * @param length       stream length, a power of two.
     * @param seed         the random seed (the stream is a pure function of the arguments).
     * @return key indices in [0, keyCount).
     */
    public static int[] indices(final int keyCount, final String distribution, final int length, final long seed)
    {
        if (Integer.bitCount(length) != 1)
        {
            throw new IllegalArgumentException("length must be a power of two but was " + length);
        }
        final SplittableRandom random = new SplittableRandom(seed);
        final int[] indices = new int[length];
        switch (distribution)
        {
            case "uniform":
                for (int i = 0; i < length; i++)
                {
                    indices[i] = random.nextInt(keyCount);
                }
                break;
            case "zipf":
                final double[] cumulative = zipfCumulative(keyCount);
                for (int i = 0; i < length; i++)
                {
                    indices[i] = firstAtLeast(cumulative, random.nextDouble() * cumulative[keyCount - 1]);
                }
                break;
            default:
                throw new IllegalArgumentException("distribution must be uniform or zipf but was " + distribution);
        }
        return indices;
    }

    /**
     * @param keyCount distinct keys.
     * @return the smallest power of two &ge; max(keyCount, 2<sup>20</sup>): long enough that a uniform stream
     * touches nearly every key, short enough to stay sequential.
     */
    public static int lengthFor(final int keyCount)
    {
        final int atLeast = Math.max(keyCount, 1 << 20);
        return Integer.highestOneBit(atLeast - 1) << 1;
    }

    /**
     * @param index a key index.
     * @return its long key value (distinct indices give distinct values).
     */
    public static long longKey(final int index)
    {
        return (index + 1L) * KEY_MULTIPLIER;
    }

    /**
     * @param index a key index.
     * @return its string key, e.g. {@code "client-000000042"} (16 chars, as an API-key or user-id prefix).
     */
    public static String stringKey(final int index)
    {
        final StringBuilder key = new StringBuilder(16).append("client-");
        final String digits = Integer.toString(index);
        for (int i = digits.length(); i < 9; i++)
        {
            key.append('0');
        }
        return key.append(digits).toString();
    }

    private static double[] zipfCumulative(final int keyCount)
    {
        final double[] cumulative = new double[keyCount];
        double sum = 0;
        for (int rank = 0; rank < keyCount; rank++)
        {
            sum += 1.0 / Math.pow(rank + 1, ZIPF_EXPONENT);
            cumulative[rank] = sum;
        }
        return cumulative;
    }

    private static int firstAtLeast(final double[] sorted, final double value)
    {
        int low = 0;
        int high = sorted.length - 1;
        while (low < high)
        {
            final int mid = (low + high) >>> 1;
            if (sorted[mid] < value)
            {
                low = mid + 1;
            }
            else
            {
                high = mid;
            }
        }
        return low;
    }
}
