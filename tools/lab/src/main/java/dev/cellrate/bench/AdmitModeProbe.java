package dev.cellrate.bench;

import dev.cellrate.Limit;
import dev.cellrate.RateLimiter;
import dev.cellrate.ReservingLimiter;
import dev.cellrate.Shaper;
import dev.cellrate.ShaperMode;

import java.lang.management.ManagementFactory;
import java.lang.reflect.Field;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.ObjectName;

import org.agrona.UnsafeApi;

/**
 * One JVM's mode of the single cell's admit against its floor, with the facts that vary from JVM to JVM beside
 * it, for runs of many fresh JVMs (the admit row lands near 1.05x or near 1.4x its floor from one JVM to the
 * next). The two workloads are {@link AdmitShapeCpuTime}'s {@code engine} and {@code get + CAS, store} (JMH's
 * stub shape: state object, per-thread caller time stored before the CAS, volatile stop flag), alternated in
 * paired rounds in CPU time. One line of {@code key=value} facts is printed:
 * <ul>
 *     <li>{@code ratio}, {@code admitNs}, {@code floorNs}: the medians of the rounds;</li>
 *     <li>{@code cell}: the cell word's off-heap address mod 4096;</li>
 *     <li>{@code now}: the address mod 4096 of the caller-time field the loop stores into before the CAS;</li>
 *     <li>{@code floorWord}: the floor's {@code AtomicLong} value field, mod 4096;</li>
 *     <li>{@code limiter}, {@code bench}, {@code stop}: the limiter object, the state object and the stop flag's
 *     field, mod 4096;</li>
 *     <li>{@code admitCode}, {@code floorCode}: the start of each loop's compiled code mod 64 and its level
 *     (from the {@code Compiler.codelist} diagnostic command, {@code %} marking an on-stack-replacement
 *     compilation, which is what a loop called once per round runs in).</li>
 * </ul>
 * With a third argument, other fronts decide through the one cell loop ({@code gcra/CellLoop}) before the admit
 * is first run, so that the loop's branch profile, shared by every front, is theirs when the admit loop is
 * compiled: {@code shapeReject} (a shaper that rejects nearly every call), {@code reserve} (a reserving limiter
 * that admits every call with a wait of any length), {@code both}, or {@code none}.
 * <p>
 * Object addresses come from the compressed reference (shifted by 3; the heap base is page-aligned, so the address
 * mod 4096 is exact) and stay put once warm: the measured loops allocate nothing.
 * <p>
 * Run: {@code java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp tools/lab/target/lab.jar
 * dev.cellrate.bench.AdmitModeProbe [rounds] [warm-up rounds] [none|shapeReject|reserve|both]}; {@code tools/lab/admit-modes.sh} runs it in many
 * JVMs.
 */
public final class AdmitModeProbe
{
    private static final int OPS = 4_000_000;
    private static final Limit LIMIT = SingleLimiterBenchmark.CELLRATE_ADMIT;

    /** The benchmark state object, as JMH's {@code @State(Scope.Benchmark)} instance. */
    static final class Bench
    {
        RateLimiter engine = new RateLimiter(LIMIT);
        AtomicLong casCounter = new AtomicLong();
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

    private final Bench bench = new Bench();
    private final Shaper tightShaper = new Shaper(Limit.ofGcra(1L << 20, 0), ShaperMode.delay());
    private final ReservingLimiter reserving = new ReservingLimiter(LIMIT);
    private final Clock clock = new Clock();
    private final Control control = new Control();

    private AdmitModeProbe()
    {
    }

    /**
     * @param args optional round count (default 9), warm-up rounds (default 3) and fronts run first (default
     *             none).
     * @throws Exception if the facts cannot be read.
     */
    public static void main(final String[] args) throws Exception
    {
        final int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 9;
        final int warmups = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        final String first = args.length > 2 ? args[2] : "none";
        final AdmitModeProbe work = new AdmitModeProbe();
        long firstSink = 0;
        for (int r = 0; r < 5; r++)
        {
            firstSink += "shapeReject".equals(first) || "both".equals(first) ? work.shapeReject() : 0;
            firstSink += "reserve".equals(first) || "both".equals(first) ? work.reserveAny() : 0;
        }
        final PairedRounds measured = PairedRounds.measure(2, warmups, rounds, w -> OPS,
            w -> 0 == w ? work.engine() : work.getAndCasStore());
        final double[] ratio = new double[rounds];
        for (int r = 0; r < rounds; r++)
        {
            ratio[r] = measured.ns(0)[r] / measured.ns(1)[r];
        }
        final long cell = (long)field(RateLimiter.class, "tatAddress").get(work.bench.engine);
        System.out.printf("ratio=%.3f admitNs=%.2f floorNs=%.2f cell=%d now=%d floorWord=%d limiter=%d bench=%d "
                + "stop=%d admitCode=%s floorCode=%s first=%s sink=%d%n",
            PairedRounds.median(ratio), measured.median(0), measured.median(1), cell & 4095,
            fieldAddress(work.clock, Clock.class, "nowNs") & 4095,
            fieldAddress(work.bench.casCounter, AtomicLong.class, "value") & 4095,
            address(work.bench.engine) & 4095, address(work.bench) & 4095,
            fieldAddress(work.control, Control.class, "isDone") & 4095,
            code("AdmitModeProbe.engine"), code("AdmitModeProbe.getAndCasStore"), first, (measured.sink() + firstSink) & 1);
    }

    private static Field field(final Class<?> type, final String name) throws NoSuchFieldException
    {
        final Field field = type.getDeclaredField(name);
        field.setAccessible(true);
        return field;
    }

    /** The object's address, from its compressed reference (mod 4096 exact: the heap base is page-aligned). */
    private static long address(final Object object)
    {
        final Object[] holder = {object};
        return (UnsafeApi.getInt(holder, UnsafeApi.arrayBaseOffset(Object[].class)) & 0xFFFF_FFFFL) << 3;
    }

    private static long fieldAddress(final Object object, final Class<?> type, final String name)
        throws NoSuchFieldException
    {
        return address(object) + UnsafeApi.objectFieldOffset(type.getDeclaredField(name));
    }

    /**
     * Each compilation of the method whose name ends with {@code method} that is in use:
     * {@code id:level:start mod 64+size}, joined by {@code /} (the id matches {@code -XX:+PrintCompilation}'s, which
     * marks an on-stack-replacement compilation with {@code %}).
     */
    private static String code(final String method) throws Exception
    {
        final String list = (String)ManagementFactory.getPlatformMBeanServer().invoke(
            new ObjectName("com.sun.management:type=DiagnosticCommand"), "compilerCodelist", new Object[0],
            new String[0]);
        final StringBuilder out = new StringBuilder();
        for (final String line : list.split("\n"))
        {
            // "id level state name()J [0xheader, 0xcode - 0xend]", state 0: in use
            final String[] parts = line.trim().split("[\\s,\\[\\]-]+");
            if (parts.length == 7 && parts[3].endsWith(method + "()J") && "0".equals(parts[2]))
            {
                final long code = Long.decode(parts[5]);
                final long end = Long.decode(parts[6]);
                out.append(out.length() == 0 ? "" : "/").append(parts[0]).append(':').append(parts[1]).append(':')
                    .append(code & 63).append('+').append(end - code);
            }
        }
        return out.length() == 0 ? "none" : out.toString();
    }

    private long shapeReject()
    {
        final Shaper shaper = tightShaper;
        final Clock time = clock;
        long sink = 0;
        for (int i = 0; i < OPS; i++)
        {
            sink += shaper.reserve(1, time.nowNs++);
        }
        return sink;
    }

    private long reserveAny()
    {
        final ReservingLimiter limiter = reserving;
        final Clock time = clock;
        long sink = 0;
        for (int i = 0; i < OPS; i++)
        {
            sink += limiter.reserve(1, time.nowNs++);
        }
        return sink;
    }

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

    private long getAndCasStore()
    {
        final Bench state = bench;
        final Clock time = clock;
        final Control stop = control;
        long sink = 0;
        long ops = 0;
        do
        {
            final long nowNs = time.nowNs++;
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
            sink += value - nowNs;
            ops++;
        }
        while (!stop.isDone && ops != OPS);
        return sink + ops;
    }
}
