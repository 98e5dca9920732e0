package dev.cellrate.bench;

import dev.cellrate.JvmOption;
import dev.cellrate.layout.CellArray;
import dev.cellrate.Limit;
import dev.cellrate.Reservation;
import dev.cellrate.Shaper;
import dev.cellrate.ShaperMode;
import org.agrona.concurrent.SystemNanoClock;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * The shaper's {@code reserve} on one cell, one thread ({@link ShaperTwoThreadsBenchmark}: two threads on the
 * same shaper). Compare with {@link AdmitOneThreadBenchmark}{@code .cellrateCallerTime}: the shaper is the
 * same GCRA CAS plus the release-time arithmetic.
 * <ul>
 *     <li>{@code reserveCallerTime}: delay mode, admitted, caller time;</li>
 *     <li>{@code reserveNanoClock}: delay mode, admitted, {@code System.nanoTime()} per call;</li>
 *     <li>{@code reserveWithReservation}: delay mode, admitted, filling a caller-owned {@link Reservation}
 *     (what {@code cancel} needs);</li>
 *     <li>{@code reserveNoDelay}: nodelay mode (policing), admitted;</li>
 *     <li>{@code reserveRejected}: every call rejected (one permit per hour, taken).</li>
 * </ul>
 * There is no keyed shaper front on main yet; the keyed admit path is {@link KeyedBenchmark}.
 * <p>
 * Run: {@code java -jar jmh/target/benchmarks.jar Shaper -prof gc}
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = JvmOption.ADD_EXPORTS)
@Threads(1)
@State(Scope.Benchmark)
public class ShaperBenchmark
{
    Shaper delay;
    Shaper delayNanoClock;
    Shaper delayWithReservation;
    Shaper noDelay;
    Shaper rejecting;

    /**
     * Per-thread caller time (1 ns per call) and reservation holder.
     */
    @State(Scope.Thread)
    public static class Caller
    {
        long nowNs;
        final Reservation reservation = new Reservation();
    }

    @Setup(Level.Trial)
    public void setUp()
    {
        final Limit admit = SingleLimiterBenchmark.CELLRATE_ADMIT;
        delay = new Shaper(admit, ShaperMode.delay());
        delayNanoClock = new Shaper(admit, ShaperMode.delay());
        delayWithReservation = new Shaper(admit, ShaperMode.delay());
        noDelay = new Shaper(admit, ShaperMode.nodelay());
        rejecting = new Shaper(SingleLimiterBenchmark.CELLRATE_REJECT, ShaperMode.delay());
        rejecting.reserve(1, 0);
        if (SystemNanoClock.INSTANCE != delayNanoClock.clock())
        {
            throw new IllegalStateException("expected the system clock");
        }
    }

    @Benchmark
    public long reserveCallerTime(final Caller caller)
    {
        return delay.reserve(1, caller.nowNs++);
    }

    @Benchmark
    public long reserveNanoClock()
    {
        return delayNanoClock.reserve();
    }

    @Benchmark
    public long reserveWithReservation(final Caller caller)
    {
        return delayWithReservation.reserve(1, caller.nowNs++, caller.reservation);
    }

    @Benchmark
    public long reserveNoDelay(final Caller caller)
    {
        return noDelay.reserve(1, caller.nowNs++);
    }

    @Benchmark
    public long reserveRejected(final Caller caller)
    {
        return rejecting.reserve(1, caller.nowNs++);
    }
}
