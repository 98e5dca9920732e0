package dev.cellrate.testing;

import dev.cellrate.Limit;

import java.math.BigInteger;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * The one seeded request-trace generator of the engine's tests: a stream of requests, each a time
 * ({@link #nextTimeNs()}, in ns) and then a cost ({@link #nextPermits()}), a pure function of the seed and the
 * shape's arguments. Three shapes, for three kinds of limiter:
 * <ul>
 *     <li>{@link #gcraEdges}: aimed at one GCRA limit's edges: simultaneous arrivals, steps of 0..2T, whole
 *     multiples of T, 0..3 ms, idle gaps up to 2(&tau; + T) that refill the bucket, one trace in three on a
 *     1 ms grid; costs mostly 1, often 1..b+1, sometimes b, b+1 and invalid costs; optionally time going
 *     backwards, down to {@code Long.MIN_VALUE}.</li>
 *     <li>{@link #poisson}: gaps uniform in [0, 2 &times; mean], bursts at one instant (20%), idle gaps up to
 *     40 means (3%), and a given percentage of steps back in time; cost 1 (windows).</li>
 *     <li>{@link #millisecondGrid}: on a 1 ms grid from 0: runs of 1..29 requests at one instant, idle gaps up
 *     to 20 means, otherwise exponential gaps around the mean; costs mostly 1, one in four up to
 *     {@code maxCost} (peers that count in ms: Guava, NGINX).</li>
 *     <li>{@link #steps}: in ns: 20% at one instant, 70% a step in [0, 2T], 10% an idle step in [0, idle];
 *     costs mostly 1, one in four in [1, maxCost] (peers that count in ns: Bucket4j, redis-cell, Envoy, Go).</li>
 * </ul>
 * Call {@link #nextTimeNs()} then {@link #nextPermits()} for each request (the cost draw follows the time draw).
 */
public final class Trace
{
    /** One millisecond in ns. */
    public static final long MILLISECOND_NS = 1_000_000L;

    /** Limits covering T = 1, &tau; = 0, T not dividing &tau;, large bursts, rounded-up T, the 2^62 ceiling. */
    public static final Limit[] LIMITS = {
        Limit.ofGcra(1, 0),
        Limit.ofGcra(1, 5),
        Limit.ofGcra(7, 0),
        Limit.ofGcra(3, 10),
        Limit.ofGcra(1_000_003, 2_500_000),
        Limit.perSecond(10, 10),
        Limit.perSecond(10, 1),
        Limit.of(3, 1, TimeUnit.SECONDS, 5),
        Limit.of(1_000_000, 1, TimeUnit.SECONDS, 1_000_000),
        Limit.ofGcra(1, 1_000_000_000),
        Limit.ofGcra(1L << 40, Limit.MAX_CEILING_NS - (1L << 40)),
        Limit.ofGcra(Limit.MAX_CEILING_NS, 0),
    };

    private static final int GCRA_EDGES = 0;
    private static final int POISSON = 1;
    private static final int MILLISECOND_GRID = 2;
    private static final int STEPS = 3;

    private final SplittableRandom random;
    private final int shape;
    private final Limit limit;
    private final boolean onGrid;
    private final long meanGap;
    private final int backwardsPercent;
    private final long maxCost;
    private final long idleNs;
    private long now;
    private int burstLeft;

    private Trace(
        final long seed,
        final int shape,
        final Limit limit,
        final long startNs,
        final long meanGap,
        final int backwardsPercent,
        final long maxCost,
        final long idleNs)
    {
        this.random = new SplittableRandom(seed);
        this.shape = shape;
        this.limit = limit;
        this.onGrid = GCRA_EDGES == shape && random.nextInt(3) == 0;
        this.meanGap = meanGap;
        this.backwardsPercent = backwardsPercent;
        this.maxCost = maxCost;
        this.idleNs = idleNs;
        this.now = onGrid ? startNs - startNs % MILLISECOND_NS : startNs;
    }

    /**
     * @param seed      the seed.
     * @param limit     the limit the trace is aimed at.
     * @param startNs   the first arrival time (rounded down to the ms grid if the trace is on it).
     * @param backwards whether time may go backwards.
     * @return a trace at GCRA's edges.
     */
    public static Trace gcraEdges(final long seed, final Limit limit, final long startNs, final boolean backwards)
    {
        return new Trace(seed, GCRA_EDGES, limit, startNs, 0, backwards ? 1 : 0, 0, 0);
    }

    /**
     * @param seed             the seed.
     * @param startNs          the time before the first step.
     * @param meanGapNs        the mean gap between arrivals outside bursts and idle gaps, &ge; 1.
     * @param backwardsPercent the percentage of steps that go back in time (up to 3 means), 0..19.
     * @return a trace of Poisson-like arrivals, cost 1.
     */
    public static Trace poisson(final long seed, final long startNs, final long meanGapNs, final int backwardsPercent)
    {
        return new Trace(seed, POISSON, null, startNs, meanGapNs, backwardsPercent, 1, 0);
    }

    /**
     * @param seed      the seed.
     * @param meanGapMs mean gap between arrivals outside bursts, &ge; 1.
     * @param maxCost   largest cost, &ge; 1.
     * @return a trace on the millisecond grid, starting at 0.
     */
    public static Trace millisecondGrid(final long seed, final long meanGapMs, final int maxCost)
    {
        return new Trace(seed, MILLISECOND_GRID, null, 0, meanGapMs, 0, maxCost, 0);
    }

    /**
     * As {@link #steps}, starting at a time drawn in [0, startBoundNs) by the trace's own random (its first
     * draw).
     *
     * @param seed         the seed.
     * @param startBoundNs the start's bound, &ge; 1.
     * @param stepNs       the usual step's bound 2T, &ge; 0.
     * @param idleNs       the idle step's bound, &ge; 0.
     * @param maxCost      largest cost, &ge; 1.
     * @return the trace.
     */
    public static Trace stepsFromRandomStart(
        final long seed, final long startBoundNs, final long stepNs, final long idleNs, final long maxCost)
    {
        final Trace trace = new Trace(seed, STEPS, null, 0, stepNs, 0, maxCost, idleNs);
        trace.now = trace.random.nextLong(0, startBoundNs);
        return trace;
    }

    /**
     * @param seed      the seed.
     * @param startNs   the time before the first step.
     * @param stepNs    the usual step's bound 2T, &ge; 0.
     * @param idleNs    the idle step's bound, &ge; 0.
     * @param maxCost   largest cost, &ge; 1.
     * @return a trace of small steps and idle gaps in ns.
     */
    public static Trace steps(
        final long seed, final long startNs, final long stepNs, final long idleNs, final long maxCost)
    {
        return new Trace(seed, STEPS, null, startNs, stepNs, 0, maxCost, idleNs);
    }

    /**
     * @return the time of the last request (the start before the first), without advancing.
     */
    public long nowNs()
    {
        return now;
    }

    /**
     * @param count how many.
     * @return the next {@code count} times, ns (for traces whose costs do not matter: {@link #poisson}).
     */
    public long[] times(final int count)
    {
        final long[] times = new long[count];
        for (int i = 0; i < count; i++)
        {
            times[i] = nextTimeNs();
        }
        return times;
    }

    /**
     * @return the time of the next request, ns (saturating at the long range for {@link #gcraEdges}).
     */
    public long nextTimeNs()
    {
        if (POISSON == shape)
        {
            final int kind = random.nextInt(100);
            if (kind < backwardsPercent)
            {
                now -= random.nextLong(1 + 3 * meanGap);
            }
            else if (kind < 20)
            {
                now += 0; // same instant: a burst
            }
            else if (kind < 23)
            {
                now += random.nextLong(1 + 40 * meanGap); // idle
            }
            else
            {
                now += random.nextLong(1 + 2 * meanGap);
            }
            return now;
        }
        if (STEPS == shape)
        {
            final int kind = random.nextInt(10);
            if (kind >= 2)
            {
                now += kind < 9 ? random.nextLong(0, meanGap + 1) : random.nextLong(0, idleNs + 1);
            }
            return now;
        }
        if (MILLISECOND_GRID == shape)
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
                    now += random.nextLong(1, 20 * meanGap + 2) * MILLISECOND_NS;
                }
                else
                {
                    now += (long)(-Math.log(1.0 - random.nextDouble()) * meanGap) * MILLISECOND_NS;
                }
            }
            return now;
        }
        return nextEdgeTimeNs();
    }

    /**
     * @return the cost of the request whose time {@link #nextTimeNs()} just gave.
     */
    public long nextPermits()
    {
        if (POISSON == shape)
        {
            return 1;
        }
        if (MILLISECOND_GRID == shape)
        {
            return maxCost > 1 && random.nextInt(4) == 0 ? random.nextInt(1, (int)maxCost + 1) : 1;
        }
        if (STEPS == shape)
        {
            return random.nextInt(4) == 0 ? random.nextLong(1, maxCost + 1) : 1;
        }
        return nextEdgePermits();
    }

    private long nextEdgeTimeNs()
    {
        final boolean backwards = backwardsPercent > 0;
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
        now = saturatedAdd(now, stepNs);
        return now;
    }

    private long nextEdgePermits()
    {
        final long burst = limit.burst();
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

    /**
     * @param a a factor.
     * @param b a factor.
     * @return {@code a * b}, saturated to the long range.
     */
    public static long saturatedMultiply(final long a, final long b)
    {
        final long hi = Math.multiplyHigh(a, b);
        final long lo = a * b;
        if ((hi == 0 && lo >= 0) || (hi == -1 && lo < 0))
        {
            return lo;
        }
        return (a < 0) == (b < 0) ? Long.MAX_VALUE : Long.MIN_VALUE;
    }

    /**
     * @param a a term.
     * @param b a term.
     * @return {@code a + b}, saturated to the long range.
     */
    public static long saturatedAdd(final long a, final long b)
    {
        final long sum = a + b;
        if (((a ^ sum) & (b ^ sum)) < 0)
        {
            return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return sum;
    }

    /**
     * @param times  request times (a multiset, any order).
     * @param length how many of them count.
     * @param windowNs the window W.
     * @return the most of them within any span of {@code W} consecutive ns, i.e. the largest {@code j - i + 1}
     * with {@code t[j] - t[i] < W} sorted (a limiter's worst case as a client sees it).
     */
    public static int maxInAnyWindow(final long[] times, final int length, final long windowNs)
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
     * @param value a positive exact difference (a reference model's retry-after).
     * @return it saturated to {@link Long#MAX_VALUE}.
     */
    public static long saturatedPositive(final BigInteger value)
    {
        return value.compareTo(BigInteger.valueOf(Long.MAX_VALUE)) > 0 ? Long.MAX_VALUE : value.longValueExact();
    }
}
