package dev.cellrate.bench;

import dev.cellrate.RateLimiter;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The reject flood's scaling, 2 threads ÷ 1, beside its floor's, paired in one JVM: a load-tolerant companion of
 * the headline's reject-scaling goal ({@code RejectTwoThreadsBenchmark} ÷ {@code RejectOneThreadBenchmark}).
 * Each round runs every workload on one thread, then on two threads at once ({@link TwoThreadCpuTime}: the same
 * compiled method both times), in CPU time of each thread. A workload's scaling is 2 × (CPU ns per operation, one
 * thread) ÷ (CPU ns per operation of each of the two threads): 2.0 when the second thread costs the first nothing.
 * <ul>
 *     <li>{@code cellrate reject}: {@code tryAcquire(1, nowNs++)} on one {@link RateLimiter} whose only permit
 *     per hour is taken, each thread with its own caller time (the work of {@code cellrateCallerTime} on the
 *     reject path);</li>
 *     <li>{@code floor read}: {@code AtomicLong.get()} of one shared word minus the thread's caller time
 *     ({@code baselineAtomicGet});</li>
 *     <li>{@code bare read}: {@code AtomicLong.get()} alone, no caller time.</li>
 * </ul>
 * Each thread's caller time sits in an object of its own, padded to two cache lines, as JMH's per-thread state
 * is. The last lines give cellrate's scaling ÷ the floor's (the goal's ratio), computed in each round. One thread
 * slows the other only while both are on a core, so on a crowded machine read it beside the load.
 * <p>
 * Run: {@code java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp tools/lab/target/lab.jar
 * dev.cellrate.bench.RejectScalingCpuTime [rounds]}.
 */
public final class RejectScalingCpuTime
{
    private static final int OPS = 20_000_000;
    private static final String[] NAMES = {"cellrate reject", "floor read", "bare read"};

    /** A thread's caller time, alone on its cache lines. */
    static final class Clock
    {
        long p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
        long nowNs;
        long q01, q02, q03, q04, q05, q06, q07, q08, q09, q10, q11, q12, q13, q14, q15;
    }

    private final RateLimiter limiter = new RateLimiter(SingleLimiterBenchmark.CELLRATE_REJECT);
    private final AtomicLong word = new AtomicLong();
    private final Clock[] clocks = {new Clock(), new Clock()};

    private RejectScalingCpuTime()
    {
        limiter.tryAcquire(1, 0);
    }

    /**
     * @param args optional round count (default 9).
     */
    public static void main(final String[] args)
    {
        final int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 9;
        final RejectScalingCpuTime bench = new RejectScalingCpuTime();
        final TwoThreadCpuTime runner = new TwoThreadCpuTime();
        final TwoThreadCpuTime.Work[] work = {bench::reject, bench::floorRead, bench::bareRead};
        for (int warm = 0; warm < 2; warm++)
        {
            for (final TwoThreadCpuTime.Work w : work)
            {
                runner.run(w, 1, OPS);
                runner.run(w, 2, OPS);
            }
        }
        final double[][] one = new double[work.length][rounds];
        final double[][] two = new double[work.length][rounds];
        final double[][] scaling = new double[work.length][rounds];
        for (int r = 0; r < rounds; r++)
        {
            for (int w = 0; w < work.length; w++)
            {
                one[w][r] = runner.run(work[w], 1, OPS);
                two[w][r] = runner.run(work[w], 2, OPS);
                scaling[w][r] = 2 * one[w][r] / two[w][r];
            }
        }
        for (int w = 0; w < work.length; w++)
        {
            System.out.printf("%-16s 1 thread %5.2f cpu-ns/op, 2 threads %5.2f cpu-ns/op each; scaling %s%n",
                NAMES[w], PairedRounds.median(one[w]), PairedRounds.median(two[w]), stat(scaling[w]));
        }
        final double[] goal = new double[rounds];
        final double[] bare = new double[rounds];
        for (int r = 0; r < rounds; r++)
        {
            goal[r] = scaling[0][r] / scaling[1][r];
            bare[r] = scaling[0][r] / scaling[2][r];
        }
        System.out.printf("cellrate scaling ÷ floor read's  %s%n", stat(goal));
        System.out.printf("cellrate scaling ÷ bare read's   %s%n", stat(bare));
        System.out.println("(sink " + (runner.sink() & 1) + ")");
    }

    private static String stat(final double[] values)
    {
        final double[] sorted = PairedRounds.sorted(values);
        return String.format("%.3f (%.2f-%.2f, %d rounds)", sorted[sorted.length / 2], sorted[0],
            sorted[sorted.length - 1], sorted.length);
    }

    private long reject(final int thread, final int ops)
    {
        final Clock clock = clocks[thread];
        long sink = 0;
        for (int i = 0; i < ops; i++)
        {
            sink += limiter.tryAcquire(1, clock.nowNs++);
        }
        return sink;
    }

    private long floorRead(final int thread, final int ops)
    {
        final Clock clock = clocks[thread];
        long sink = 0;
        for (int i = 0; i < ops; i++)
        {
            sink += word.get() - clock.nowNs++;
        }
        return sink;
    }

    private long bareRead(final int thread, final int ops)
    {
        long sink = 0;
        for (int i = 0; i < ops; i++)
        {
            sink += word.get();
        }
        return sink;
    }
}
