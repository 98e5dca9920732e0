package dev.cellrate.bench;

import dev.cellrate.Limit;
import dev.cellrate.RateLimiter;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The single cell's admit against its floor in the loop shape of JMH's generated stub, in CPU time of the thread
 * (as {@link SingleCellCpuTime}): each workload runs {@code do { sink += state.x.op(clock.nowNs++); ops++; }
 * while (!control.isDone)} with the limiter reached through a state object's field, the caller time through a
 * per-thread clock object and a volatile stop flag read per call, so that the compiled loop carries what
 * {@code AdmitOneThreadBenchmark.cellrateCallerTime} carries (the harness's store before the CAS, the registers of
 * the stub) and the floor {@code baselineAtomicGetCompareAndExchange} what it carries.
 * <ul>
 *     <li>{@code engine}: {@code RateLimiter.tryAcquire(1, nowNs++)};</li>
 *     <li>{@code engine same now}: the same with one caller time (no store by the harness);</li>
 *     <li>{@code heap word}: the latest-TAT decision on a TAT held in a field of the limiter object itself (no
 *     load of an address between the limiter and its word);</li>
 *     <li>{@code get + CAS}: the JMH floor, {@code AtomicLong.get()} then {@code compareAndExchange(v, v + 1)},
 *     with no store by the harness;</li>
 *     <li>{@code get + CAS, store}: the floor with the caller-time store of the admit rows before its CAS.</li>
 * </ul>
 * Each line gives the median ratio of the rounds and the ratio of the fastest rounds, which a crowded machine
 * disturbs less (time-sharing only adds to a round's CPU time).
 * <p>
 * Run: {@code java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp tools/lab/target/lab.jar
 * dev.cellrate.bench.AdmitShapeCpuTime [rounds]}.
 */
public final class AdmitShapeCpuTime
{
    private static final int OPS = 4_000_000;
    private static final Limit LIMIT = SingleLimiterBenchmark.CELLRATE_ADMIT;
    private static final String[] NAMES = {"engine", "engine same now", "heap word", "get + CAS",
        "get + CAS, store"};

    /** The benchmark state object, as JMH's {@code @State(Scope.Benchmark)} instance. */
    static final class Bench
    {
        RateLimiter engine = new RateLimiter(LIMIT);
        RateLimiter engineSameNow = new RateLimiter(LIMIT);
        HeapCell heap = new HeapCell(LIMIT);
        AtomicLong casCounter = new AtomicLong();
        AtomicLong casCounterStore = new AtomicLong();
    }

    /** The per-thread caller time, as {@code SingleLimiterBenchmark.CallerClock}. */
    static final class Clock
    {
        long nowNs = 1;
    }

    /** The stop flag, as JMH's {@code InfraControl.isDone}. */
    static final class Control
    {
        volatile boolean isDone;
    }

    /** The engine's one-permit decision (latest-TAT form) on a word held in this object's own field. */
    static final class HeapCell
    {
        private static final VarHandle TAT;

        static
        {
            try
            {
                TAT = MethodHandles.lookup().findVarHandle(HeapCell.class, "tatNs", long.class);
            }
            catch (final ReflectiveOperationException ex)
            {
                throw new ExceptionInInitializerError(ex);
            }
        }

        private final long incrementNs;
        private final long slackNs;
        private volatile long tatNs = Long.MIN_VALUE;

        HeapCell(final Limit limit)
        {
            incrementNs = limit.emissionIntervalNs();
            slackNs = limit.toleranceNs();
        }

        long tryAcquire(final long permits, final long nowNs)
        {
            if (1 == permits)
            {
                long tat = (long)TAT.getAcquire(this);
                final long latestNs = nowNs + slackNs;
                if (nowNs <= Long.MAX_VALUE - incrementNs - slackNs)
                {
                    while (tat <= latestNs)
                    {
                        final long witness = (long)TAT.compareAndExchange(this, tat, Math.max(tat, nowNs) + incrementNs);
                        if (witness == tat)
                        {
                            return 0;
                        }
                        tat = witness;
                    }
                    final long retryAfterNs = tat - latestNs;
                    return retryAfterNs > 0 ? retryAfterNs : Long.MAX_VALUE;
                }
                return -1; // not measured: the lag form
            }
            throw new UnsupportedOperationException();
        }
    }

    private final Bench bench = new Bench();
    private final Clock clock = new Clock();
    private final Control control = new Control();

    private AdmitShapeCpuTime()
    {
    }

    /**
     * @param args optional round count (default 15).
     */
    public static void main(final String[] args)
    {
        final int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 15;
        final AdmitShapeCpuTime work = new AdmitShapeCpuTime();
        final PairedRounds measured = PairedRounds.measure(NAMES.length, 3, rounds, w -> OPS, work::run);
        final int floorIndex = 3;
        final double[] floor = measured.ns(floorIndex);
        for (int w = 0; w < NAMES.length; w++)
        {
            final double[] ratio = new double[rounds];
            for (int r = 0; r < rounds; r++)
            {
                ratio[r] = measured.ns(w)[r] / floor[r];
            }
            final double[] sorted = PairedRounds.sorted(measured.ns(w));
            final double[] sortedRatio = PairedRounds.sorted(ratio);
            System.out.printf("%-18s %5.2f cpu-ns/op (%.2f-%.2f); / get + CAS %.3fx (%.2f-%.2f), %d rounds; "
                    + "fastest ÷ fastest %.3fx%n", NAMES[w], sorted[rounds / 2], sorted[0], sorted[rounds - 1],
                sortedRatio[rounds / 2], sortedRatio[0], sortedRatio[rounds - 1], rounds,
                sorted[0] / PairedRounds.sorted(floor)[0]);
        }
        System.out.println("(sink " + (measured.sink() & 1) + ")");
    }

    private long run(final int workload)
    {
        switch (workload)
        {
            case 0:
                return engine();
            case 1:
                return engineSameNow();
            case 2:
                return heap();
            case 3:
                return getAndCas();
            default:
                return getAndCasStore();
        }
    }

    // one method per workload, so each loop is compiled on its own

    private long engine()
    {
        final Bench state = bench;
        final Clock time = clock;
        final Control stop = control;
        long sink = 0;
        long ops = 0;
        do
        {
            sink += state.engine.tryAcquire(1, time.nowNs++);
            ops++;
        }
        while (!stop.isDone && ops != OPS);
        return sink + ops;
    }

    private long engineSameNow()
    {
        final Bench state = bench;
        final Clock time = clock;
        final Control stop = control;
        long sink = 0;
        long ops = 0;
        do
        {
            sink += state.engineSameNow.tryAcquire(1, time.nowNs);
            ops++;
        }
        while (!stop.isDone && ops != OPS);
        return sink + ops;
    }

    private long heap()
    {
        final Bench state = bench;
        final Clock time = clock;
        final Control stop = control;
        long sink = 0;
        long ops = 0;
        do
        {
            sink += state.heap.tryAcquire(1, time.nowNs++);
            ops++;
        }
        while (!stop.isDone && ops != OPS);
        return sink + ops;
    }

    private long getAndCas()
    {
        final Bench state = bench;
        final Control stop = control;
        long sink = 0;
        long ops = 0;
        do
        {
            final AtomicLong word = state.casCounter;
            long value = word.get();
            while (true)
            {
                final long witness = word.compareAndExchange(value, value + 1);
                if (witness == value)
                {
                    break;
                }
                value = witness;
            }
            sink += value;
            ops++;
        }
        while (!stop.isDone && ops != OPS);
        return sink + ops;
    }

    private long getAndCasStore()
    {
        final Bench state = bench;
        final Clock time = clock;
        final Control stop = control;
        long sink = 0;
        long ops = 0;
        do
        {
            time.nowNs++;
            final AtomicLong word = state.casCounterStore;
            long value = word.get();
            while (true)
            {
                final long witness = word.compareAndExchange(value, value + 1);
                if (witness == value)
                {
                    break;
                }
                value = witness;
            }
            sink += value;
            ops++;
        }
        while (!stop.isDone && ops != OPS);
        return sink + ops;
    }
}
