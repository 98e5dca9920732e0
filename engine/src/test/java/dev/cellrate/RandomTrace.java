package dev.cellrate;

import java.util.SplittableRandom;

/**
 * A seeded random arrival trace for differential tests: times and costs chosen to hit the edges of GCRA
 * (simultaneous arrivals, exact boundaries on a 1 ms grid and on multiples of T, costs 1..b+1 and invalid
 * costs, idle gaps that refill the bucket) and, when asked, time going backwards.
 */
final class RandomTrace
{
    static final long MILLISECOND_NS = 1_000_000L;

    /** Limits covering T = 1, &tau; = 0, T not dividing &tau;, large bursts, rounded-up T, the 2^62 ceiling. */
    static final Limit[] LIMITS = {
        Limit.ofGcra(1, 0),
        Limit.ofGcra(1, 5),
        Limit.ofGcra(7, 0),
        Limit.ofGcra(3, 10),
        Limit.ofGcra(1_000_003, 2_500_000),
        Limit.perSecond(10, 10),
        Limit.perSecond(10, 1),
        Limit.of(3, 1, java.util.concurrent.TimeUnit.SECONDS, 5),
        Limit.of(1_000_000, 1, java.util.concurrent.TimeUnit.SECONDS, 1_000_000),
        Limit.ofGcra(1, 1_000_000_000),
        Limit.ofGcra(1L << 40, Limit.MAX_CEILING_NS - (1L << 40)),
        Limit.ofGcra(Limit.MAX_CEILING_NS, 0),
    };

    private final SplittableRandom random;
    private final Limit limit;
    private final boolean backwards;
    private final boolean onGrid;
    private final long burst;
    private long nowNs;

    /**
     * @param seed      the seed (the trace is a pure function of it and the other arguments).
     * @param limit     the limit the trace is aimed at.
     * @param startNs   the first arrival time.
     * @param backwards whether time may go backwards.
     */
    RandomTrace(final long seed, final Limit limit, final long startNs, final boolean backwards)
    {
        this.random = new SplittableRandom(seed);
        this.limit = limit;
        this.backwards = backwards;
        this.onGrid = random.nextInt(3) == 0;
        this.burst = limit.burst();
        this.nowNs = onGrid ? startNs - startNs % MILLISECOND_NS : startNs;
    }

    /**
     * @return the time of the next arrival (saturating at the long range).
     */
    long nextTimeNs()
    {
        final long emissionIntervalNs = limit.emissionIntervalNs();
        final int pick = random.nextInt(100);
        long stepNs;
        if (pick < 30)
        {
            stepNs = 0;
        }
        else if (pick < 55)
        {
            stepNs = boundedRandom(saturatedAdd(emissionIntervalNs, emissionIntervalNs));
        }
        else if (pick < 75)
        {
            stepNs = saturatedMultiply(random.nextInt(4), emissionIntervalNs);
        }
        else if (pick < 85)
        {
            stepNs = random.nextInt(4) * MILLISECOND_NS;
        }
        else if (pick < 93)
        {
            stepNs = boundedRandom(saturatedAdd(limit.ceilingNs(), limit.ceilingNs()));
        }
        else if (backwards && pick < 99)
        {
            stepNs = -boundedRandom(saturatedAdd(limit.ceilingNs(), limit.ceilingNs()));
        }
        else if (backwards)
        {
            stepNs = random.nextBoolean() ? Long.MIN_VALUE : -boundedRandom(Long.MAX_VALUE);
        }
        else
        {
            stepNs = emissionIntervalNs;
        }
        if (onGrid)
        {
            stepNs -= stepNs % MILLISECOND_NS;
        }
        nowNs = saturatedAdd(nowNs, stepNs);
        return nowNs;
    }

    /**
     * @return the cost of the next request: mostly 1, often 1..b+1, sometimes b, b+1 and invalid costs.
     */
    long nextPermits()
    {
        final int pick = random.nextInt(100);
        if (pick < 55)
        {
            return 1;
        }
        if (pick < 80)
        {
            return 1 + random.nextLong(Math.min(burst + 1, 64));
        }
        if (pick < 88)
        {
            return 1 + random.nextLong(burst + 1);
        }
        if (pick < 93)
        {
            return burst;
        }
        if (pick < 97)
        {
            return burst + 1;
        }
        final long[] odd = {0, -1, Long.MIN_VALUE, Long.MAX_VALUE, burst + 2};
        return odd[random.nextInt(odd.length)];
    }

    private long boundedRandom(final long boundNs)
    {
        return boundNs <= 0 ? 0 : random.nextLong(boundNs) + (random.nextBoolean() ? 0 : 1);
    }

    static long saturatedMultiply(final long a, final long b)
    {
        final long hi = Math.multiplyHigh(a, b);
        final long lo = a * b;
        if ((hi == 0 && lo >= 0) || (hi == -1 && lo < 0))
        {
            return lo;
        }
        return (a < 0) == (b < 0) ? Long.MAX_VALUE : Long.MIN_VALUE;
    }

    static long saturatedAdd(final long a, final long b)
    {
        final long sum = a + b;
        if (((a ^ sum) & (b ^ sum)) < 0)
        {
            return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return sum;
    }
}
