package dev.cellrate.window;

import java.math.BigInteger;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Seeded random request traces and the "max admitted in any sliding window" measure (a limiter's
 * worst case as a client sees it).
 */
final class Traces
{
    private Traces()
    {
    }

    /**
     * Times with Poisson-like gaps around {@code meanGapNs}, bursts at one instant, and (if
     * {@code backwardsPercent > 0}) occasional steps back in time.
     */
    static long[] times(final long seed, final int count, final long startNs, final long meanGapNs,
        final int backwardsPercent)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final long[] times = new long[count];
        long t = startNs;
        for (int i = 0; i < count; i++)
        {
            final int kind = random.nextInt(100);
            if (kind < backwardsPercent)
            {
                t -= random.nextLong(1 + 3 * meanGapNs);
            }
            else if (kind < 20)
            {
                t += 0; // same instant: a burst
            }
            else if (kind < 23)
            {
                t += random.nextLong(1 + 40 * meanGapNs); // idle
            }
            else
            {
                t += random.nextLong(1 + 2 * meanGapNs);
            }
            times[i] = t;
        }
        return times;
    }

    /**
     * @return the most entries of {@code times} (a multiset, any order) within any span of
     * {@code windowNs} consecutive ns, i.e. the largest {@code j - i + 1} with {@code t[j] - t[i] < W} sorted.
     */
    static int maxInAnyWindow(final long[] times, final int length, final long windowNs)
    {
        final long[] sorted = Arrays.copyOf(times, length);
        Arrays.sort(sorted);
        int best = 0;
        int i = 0;
        for (int j = 0; j < length; j++)
        {
            while (BigInteger.valueOf(sorted[j]).subtract(BigInteger.valueOf(sorted[i]))
                .compareTo(BigInteger.valueOf(windowNs)) >= 0)
            {
                i++;
            }
            best = Math.max(best, j - i + 1);
        }
        return best;
    }

    /**
     * @return a BigInteger difference saturated to the long range [1, Long.MAX_VALUE] for retry-after codes.
     */
    static long saturatedPositive(final BigInteger value)
    {
        return value.compareTo(BigInteger.valueOf(Long.MAX_VALUE)) > 0 ? Long.MAX_VALUE : value.longValueExact();
    }
}
