package dev.cellrate.bench;

import dev.cellrate.RateLimiter;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A load-tolerant companion of {@code AdmitOneThreadBenchmark}'s cost ratio (cellrate caller time against
 * {@code AtomicLong.incrementAndGet()}), for before/after comparisons of the single cell on a crowded machine:
 * the four workloads alternate inside one JVM, each timed in <em>CPU</em> time of the measuring thread
 * ({@code ThreadMXBean.getCurrentThreadCpuTime}), so time spent descheduled does not count; each round gives one
 * ratio, and the medians over many rounds are printed with their range.
 * <ul>
 *     <li>{@code admit cellrate}: {@code tryAcquire(1, nowNs++)} on one {@link RateLimiter} with its own cell,
 *     the work of {@code cellrateCallerTime};</li>
 *     <li>{@code admit cellrate same now}: the same with one caller time for every call, the work of
 *     {@code cellrateCallerTimeSameNow} (no store before the CAS);</li>
 *     <li>{@code AtomicLong}: {@code incrementAndGet()}, the work of {@code baselineAtomicIncrement};</li>
 *     <li>{@code AtomicLong get + CAS}: {@code get()} then {@code compareAndExchange(v, v + 1)} retried on the
 *     witness, with a caller time advanced per call as the cellrate row's, the work of
 *     {@code baselineAtomicGetCompareAndExchange}: the floor of a read-then-CAS design.</li>
 * </ul>
 * Uses only long-standing API ({@code RateLimiter.tryAcquire}), so this one source also runs against an older
 * jar (compile it against that jar and put the class first on the class path).
 * <p>
 * Run: {@code java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp tools/lab/target/lab.jar
 * dev.cellrate.bench.SingleCellCpuTime [rounds]}.
 */
public final class SingleCellCpuTime
{
    private static final int OPS = 5_000_000;
    private static final String[] NAMES = {"admit cellrate", "admit cellrate same now", "AtomicLong",
        "AtomicLong get + CAS"};

    private RateLimiter cell = new RateLimiter(SingleLimiterBenchmark.CELLRATE_ADMIT);
    private RateLimiter sameNowCell = new RateLimiter(SingleLimiterBenchmark.CELLRATE_ADMIT);
    private AtomicLong counter = new AtomicLong();
    private AtomicLong casCounter = new AtomicLong();
    private final CounterFloors.CallerTime floorTime = new CounterFloors.CallerTime();
    private long nowNs = 1;

    private SingleCellCpuTime()
    {
    }

    /**
     * @param args optional round count (default 15).
     */
    public static void main(final String[] args)
    {
        final int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 15;
        final SingleCellCpuTime work = new SingleCellCpuTime();
        final PairedRounds measured = PairedRounds.measure(NAMES.length, 3, rounds, w -> OPS, work::run);
        final double[][] ns = new double[NAMES.length][];
        for (int w = 0; w < NAMES.length; w++)
        {
            ns[w] = measured.ns(w);
        }
        final double[] ratio = new double[rounds];
        final double[] ratioSameNow = new double[rounds];
        final double[] ratioFloor = new double[rounds];
        final double[] floorRatio = new double[rounds];
        for (int r = 0; r < rounds; r++)
        {
            ratio[r] = ns[0][r] / ns[2][r];
            ratioSameNow[r] = ns[1][r] / ns[2][r];
            ratioFloor[r] = ns[0][r] / ns[3][r];
            floorRatio[r] = ns[3][r] / ns[2][r];
        }
        for (int w = 0; w < NAMES.length; w++)
        {
            print(NAMES[w] + " cpu-ns/op", ns[w]);
        }
        print("admit cellrate / AtomicLong", ratio);
        print("admit cellrate same now / AtomicLong", ratioSameNow);
        print("admit cellrate / AtomicLong get + CAS", ratioFloor);
        print("AtomicLong get + CAS / AtomicLong", floorRatio);
        System.out.println("(sink " + (measured.sink() & 1) + ")");
    }

    private static void print(final String name, final double[] values)
    {
        final double[] sorted = PairedRounds.sorted(values);
        System.out.printf("%-40s %7.2f (%.2f-%.2f, %d rounds)%n", name, sorted[sorted.length / 2], sorted[0],
            sorted[sorted.length - 1], sorted.length);
    }

    private long run(final int workload)
    {
        switch (workload)
        {
            case 0:
                return admit();
            case 1:
                return admitSameNow();
            case 2:
                return atomic();
            default:
                return atomicGetCas();
        }
    }

    private long admit()
    {
        long sink = 0;
        for (int i = 0; i < OPS; i++)
        {
            sink += cell.tryAcquire(1, nowNs++);
        }
        return sink;
    }

    private long admitSameNow()
    {
        long sink = 0;
        final long now = nowNs;
        for (int i = 0; i < OPS; i++)
        {
            sink += sameNowCell.tryAcquire(1, now);
        }
        return sink;
    }

    private long atomicGetCas()
    {
        return CounterFloors.getAndCas(casCounter, OPS, floorTime);
    }

    private long atomic()
    {
        return CounterFloors.incrementAndGet(counter, OPS);
    }
}
