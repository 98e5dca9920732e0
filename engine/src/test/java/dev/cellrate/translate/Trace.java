package dev.cellrate.translate;

import java.util.SplittableRandom;

/**
 * A seeded random arrival trace on a millisecond grid: runs of idle gaps, Poisson-like arrivals around a
 * mean gap, and bursts at one instant; costs mostly 1, sometimes up to {@code maxCost}.
 */
final class Trace
{
    final long[] timesMs;
    final int[] costs;

    private Trace(final int length)
    {
        timesMs = new long[length];
        costs = new int[length];
    }

    /**
     * @param seed      the seed.
     * @param length    number of requests.
     * @param meanGapMs mean gap between arrivals outside bursts, &ge; 1.
     * @param maxCost   largest cost, &ge; 1.
     * @return the trace, starting at 0 ms.
     */
    static Trace random(final long seed, final int length, final long meanGapMs, final int maxCost)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final Trace trace = new Trace(length);
        long nowMs = 0;
        int burstLeft = 0;
        for (int i = 0; i < length; i++)
        {
            if (burstLeft > 0)
            {
                burstLeft--;
            }
            else
            {
                final int kind = random.nextInt(100);
                if (kind < 8)
                {
                    burstLeft = random.nextInt(1, 30);
                }
                else if (kind < 10)
                {
                    nowMs += random.nextLong(1, 20 * meanGapMs + 2);
                }
                else
                {
                    // exponential gap, rounded to the ms grid
                    nowMs += (long)(-Math.log(1.0 - random.nextDouble()) * meanGapMs);
                }
            }
            trace.timesMs[i] = nowMs;
            trace.costs[i] = maxCost > 1 && random.nextInt(4) == 0 ? random.nextInt(1, maxCost + 1) : 1;
        }
        return trace;
    }

    int length()
    {
        return timesMs.length;
    }
}
