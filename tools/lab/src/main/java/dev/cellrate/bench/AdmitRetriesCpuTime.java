package dev.cellrate.bench;

import dev.cellrate.gcra.CellLoop;
import dev.cellrate.gcra.Gcra;
import dev.cellrate.layout.CellArray;
import org.agrona.UnsafeApi;

/**
 * How often a contended admit retries its CAS, for the cell loop's latest-TAT form against the lag form it
 * replaces: two threads admit on one shared cell (T = 1 ns, a tolerance no run exhausts, each thread with its own
 * caller time advancing 1 ns a call: the shape of {@code AdmitLatencyBenchmark}), in CPU time of each thread
 * ({@link TwoThreadCpuTime}), the two forms alternated within every round.
 * <ul>
 *     <li>{@code latest-TAT form}: the engine's own loop ({@link CellLoop#chargeWithin}), through a subclass whose
 *     {@code stale} step, called after every read of the word (the first and each lost CAS's witness), counts
 *     the reads;</li>
 *     <li>{@code lag form}: the loop before it (max, then the lag against the ceiling, then the CAS), written out
 *     here with the same count.</li>
 * </ul>
 * For each form it prints, as the median and range over the rounds, the lost CASes per decision, the share of
 * decisions that lost one or more, the most lost by one decision and the CPU ns per decision of each thread. The
 * two threads contend only while they run side by side: on a crowded machine they often run apart, so compare
 * the forms within one run, never across runs. The totals over all rounds (warm-up included) give, for the
 * decisions that lost a CAS, how many each lost: what contention costs a decision once it meets it, which
 * depends little on how often the threads ran side by side.
 * <p>
 * Run: {@code java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp tools/lab/target/lab.jar
 * dev.cellrate.bench.AdmitRetriesCpuTime [rounds]}.
 */
public final class AdmitRetriesCpuTime
{
    private static final int OPS = 20_000_000;
    private static final long INCREMENT_NS = SingleLimiterBenchmark.CELLRATE_ADMIT.emissionIntervalNs();
    private static final long CEILING_NS = SingleLimiterBenchmark.CELLRATE_ADMIT.ceilingNs();
    private static final long SLACK_NS = CEILING_NS - INCREMENT_NS;
    private static final String[] NAMES = {"latest-TAT form", "lag form"};

    /** One thread's caller time and counts, alone on its cache lines. */
    static final class PerThread
    {
        long p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
        long nowNs;
        long reads;
        long retried;
        long mostLost;
        /** Decisions that lost 1, 2, 3-7 and 8 or more CASes. */
        final long[] lostHistogram = new long[4];
        void retried(final long lost)
        {
            retried++;
            mostLost = Math.max(mostLost, lost);
            lostHistogram[lost == 1 ? 0 : lost == 2 ? 1 : lost < 8 ? 2 : 3]++;
        }

        long q01, q02, q03, q04, q05, q06, q07, q08, q09, q10, q11, q12, q13, q14, q15;
    }

    /** The engine's cell loop, counting the reads of the word. */
    static final class Counting extends CellLoop<PerThread>
    {
        @Override
        protected boolean stale(final PerThread holder)
        {
            holder.reads++;
            return false;
        }
    }

    private static final Counting LOOP = new Counting();

    private final CellArray cells = CellArray.allocate(2);
    private final long[] addresses = {
        cells.buffer().addressOffset() + CellArray.tatOffset(0), cells.buffer().addressOffset() + CellArray.tatOffset(1)};
    private final PerThread[][] perThread = {{new PerThread(), new PerThread()}, {new PerThread(), new PerThread()}};

    private AdmitRetriesCpuTime()
    {
    }

    /**
     * @param args optional round count (default 9).
     */
    public static void main(final String[] args)
    {
        final int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 9;
        final AdmitRetriesCpuTime bench = new AdmitRetriesCpuTime();
        final TwoThreadCpuTime runner = new TwoThreadCpuTime();
        final TwoThreadCpuTime.Work[] work = {bench::latest, bench::lag};
        for (int warm = 0; warm < 2; warm++)
        {
            for (final TwoThreadCpuTime.Work w : work)
            {
                runner.run(w, 2, OPS);
            }
        }
        final double[][] lostPerOp = new double[work.length][rounds];
        final double[][] retriedShare = new double[work.length][rounds];
        final double[][] cpuNs = new double[work.length][rounds];
        final double[][] mostLost = new double[work.length][rounds];
        for (int r = 0; r < rounds; r++)
        {
            for (int w = 0; w < work.length; w++)
            {
                final PerThread[] counts = bench.perThread[w];
                counts[0].mostLost = 0;
                counts[1].mostLost = 0;
                final long readsBefore = counts[0].reads + counts[1].reads;
                final long retriedBefore = counts[0].retried + counts[1].retried;
                cpuNs[w][r] = runner.run(work[w], 2, OPS);
                final double decisions = 2.0 * OPS;
                lostPerOp[w][r] = (counts[0].reads + counts[1].reads - readsBefore - decisions) / decisions;
                retriedShare[w][r] = (counts[0].retried + counts[1].retried - retriedBefore) / decisions;
                mostLost[w][r] = Math.max(counts[0].mostLost, counts[1].mostLost);
            }
        }
        for (int w = 0; w < work.length; w++)
        {
            System.out.printf("%-16s lost CASes per decision %s; decisions that lost one or more %s; most lost by "
                + "one decision in a round %s; cpu-ns per decision %s%n", NAMES[w], stat(lostPerOp[w]),
                stat(retriedShare[w]), stat(mostLost[w]), stat(cpuNs[w]));
        }
        for (int w = 0; w < work.length; w++)
        {
            final PerThread[] counts = bench.perThread[w];
            final long retried = counts[0].retried + counts[1].retried;
            final long lost = counts[0].reads + counts[1].reads - 2L * OPS * (rounds + 2);
            final long[] histogram = new long[4];
            for (int b = 0; b < 4; b++)
            {
                histogram[b] = counts[0].lostHistogram[b] + counts[1].lostHistogram[b];
            }
            System.out.printf("%-16s all rounds: %d decisions lost a CAS, %.2f lost CASes each; of them lost 1: %d, "
                + "2: %d, 3-7: %d, 8 or more: %d%n", NAMES[w], retried, lost / Math.max(1.0, retried), histogram[0],
                histogram[1], histogram[2], histogram[3]);
        }
        final double[] ratio = new double[rounds];
        for (int r = 0; r < rounds; r++)
        {
            ratio[r] = lostPerOp[0][r] / Math.max(1e-9, lostPerOp[1][r]);
        }
        System.out.printf("lost CAS per decision, latest-TAT ÷ lag %s%n", stat(ratio));
        System.out.println("(sink " + (runner.sink() & 1) + ")");
    }

    private static String stat(final double[] values)
    {
        final double[] sorted = PairedRounds.sorted(values);
        return String.format("%.4f (%.4f-%.4f, %d rounds)", sorted[sorted.length / 2], sorted[0],
            sorted[sorted.length - 1], sorted.length);
    }

    private long latest(final int thread, final int ops)
    {
        final PerThread counts = perThread[0][thread];
        final long address = addresses[0];
        long sink = 0;
        for (int i = 0; i < ops; i++)
        {
            final long readsBefore = counts.reads;
            sink += LOOP.chargeWithin(null, address, INCREMENT_NS, SLACK_NS, counts.nowNs++, counts);
            final long lost = counts.reads - readsBefore - 1;
            if (lost > 0)
            {
                counts.retried(lost);
            }
        }
        return sink;
    }

    private long lag(final int thread, final int ops)
    {
        final PerThread counts = perThread[1][thread];
        final long address = addresses[1];
        long sink = 0;
        for (int i = 0; i < ops; i++)
        {
            final long readsBefore = counts.reads;
            sink += lagForm(address, INCREMENT_NS, CEILING_NS, counts.nowNs++, counts);
            final long lost = counts.reads - readsBefore - 1;
            if (lost > 0)
            {
                counts.retried(lost);
            }
        }
        return sink;
    }

    /** The lag form of the cell loop: max, the lag after the charge against the ceiling, then the CAS. */
    private static long lagForm(
        final long address, final long incrementNs, final long ceilingNs, final long nowNs, final PerThread counts)
    {
        long tatNs = UnsafeApi.getLongAcquire(null, address);
        while (true)
        {
            counts.reads++;
            final long baseNs = Math.max(tatNs, nowNs);
            final long nextTatNs = baseNs + incrementNs;
            final long dueNs = nextTatNs - nowNs;
            if (nextTatNs <= baseNs || dueNs <= 0)
            {
                return Gcra.retryAfterNs(tatNs, nowNs, incrementNs, ceilingNs);
            }
            else if (dueNs > ceilingNs)
            {
                return dueNs - ceilingNs;
            }
            final long witnessNs = UnsafeApi.compareAndExchangeLong(null, address, tatNs, nextTatNs);
            if (witnessNs == tatNs)
            {
                return 0;
            }
            tatNs = witnessNs;
        }
    }
}
