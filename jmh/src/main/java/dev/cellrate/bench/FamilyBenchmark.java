package dev.cellrate.bench;

import dev.cellrate.JvmOption;
import dev.cellrate.layout.CellArray;
import dev.cellrate.PayLaterRateLimiter;
import dev.cellrate.composite.CompositeRateLimiter;
import dev.cellrate.concurrency.ConcurrencyLimiter;
import dev.cellrate.tcm.SrTcm;
import dev.cellrate.tcm.TrTcm;
import dev.cellrate.warmup.WarmingUpRateLimiter;
import dev.cellrate.window.FixedWindowLimiter;
import dev.cellrate.window.SlidingCounterLimiter;
import dev.cellrate.window.SlidingLogLimiter;
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
 * The rest of the family on its admit path, one thread, caller time: what each costs next to
 * {@link AdmitOneThreadBenchmark}{@code .cellrateCallerTime} (one GCRA CAS), and that each allocates nothing.
 * Every limiter is configured so that every call is admitted ({@code FamilyTest} checks); the caller's time
 * advances by {@code *_STEP_NS} per call, enough for the windowed limiters to stay under their limits.
 * <ul>
 *     <li>{@code fixedWindow}, {@code slidingCounter}: one packed word, one CAS;</li>
 *     <li>{@code slidingLog}: a SeqLock-guarded ring of admission times;</li>
 *     <li>{@code payLater}: Guava's next-caller-pays GCRA; {@code warmingUp}: Guava's SmoothWarmingUp;</li>
 *     <li>{@code composite2Legs}: all-or-nothing over two GCRA cells;</li>
 *     <li>{@code concurrencyAcquireRelease}: one {@code tryAcquire} plus one {@code release};</li>
 *     <li>{@code srTcm}, {@code trTcm}: RFC 2697/2698 colour markers (SeqLock cell).</li>
 * </ul>
 * Run: {@code java -jar jmh/target/benchmarks.jar FamilyBenchmark -prof gc}
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = JvmOption.ADD_EXPORTS)
@Threads(1)
@State(Scope.Benchmark)
public class FamilyBenchmark
{
    /** Window of the windowed limiters: 2^40 ns (the fixed window's minimum for its largest limit). */
    static final long WINDOW_NS = 1L << 40;

    /** Sliding counter: 2^21 ns per call is half its limit's rate, so the estimate stays under the limit. */
    static final long SLIDING_COUNTER_STEP_NS = 1L << 21;

    /** Sliding log: 1,024 per 1,024,000 ns; 2,000 ns per call is half that rate. */
    static final long SLIDING_LOG_LIMIT = 1_024;
    static final long SLIDING_LOG_WINDOW_NS = 1_024_000;
    static final long SLIDING_LOG_STEP_NS = 2_000;

    /** Warm-up: stable interval 1 ns, cold interval 3 ns: 4 ns per call always finds a free permit. */
    static final long WARMING_UP_STEP_NS = 4;

    /** Marker rates and bursts: 10^9 bytes/s (1 per ns) with 2^40-byte buckets, so every 1-byte mark is green. */
    static final long MARKER_RATE_PER_SECOND = 1_000_000_000L;
    static final long MARKER_BURST_BYTES = 1L << 40;

    FixedWindowLimiter fixedWindow;
    SlidingCounterLimiter slidingCounter;
    SlidingLogLimiter slidingLog;
    PayLaterRateLimiter payLater;
    WarmingUpRateLimiter warmingUp;
    CompositeRateLimiter composite;
    ConcurrencyLimiter concurrency;
    SrTcm srTcm;
    TrTcm trTcm;

    /**
     * The caller's time (per thread).
     */
    @State(Scope.Thread)
    public static class CallerClock
    {
        long nowNs;
    }

    @Setup(Level.Trial)
    public void setUp()
    {
        fixedWindow = new FixedWindowLimiter(FixedWindowLimiter.MAX_LIMIT, WINDOW_NS);
        slidingCounter = new SlidingCounterLimiter(SlidingCounterLimiter.MAX_LIMIT, WINDOW_NS);
        slidingLog = new SlidingLogLimiter(SLIDING_LOG_LIMIT, SLIDING_LOG_WINDOW_NS);
        payLater = new PayLaterRateLimiter(SingleLimiterBenchmark.CELLRATE_ADMIT, 1);
        warmingUp = new WarmingUpRateLimiter(1, 1_000, 0, SystemNanoClock.INSTANCE);
        composite = CompositeRateLimiter.of(SingleLimiterBenchmark.CELLRATE_ADMIT, SingleLimiterBenchmark.CELLRATE_ADMIT);
        concurrency = new ConcurrencyLimiter(1_024);
        srTcm = new SrTcm(MARKER_RATE_PER_SECOND, MARKER_BURST_BYTES, 0);
        trTcm = new TrTcm(MARKER_RATE_PER_SECOND, MARKER_BURST_BYTES, MARKER_RATE_PER_SECOND, MARKER_BURST_BYTES);
    }

    @Benchmark
    public long fixedWindow(final CallerClock clock)
    {
        return fixedWindow.tryAcquire(1, clock.nowNs++);
    }

    @Benchmark
    public long slidingCounter(final CallerClock clock)
    {
        return slidingCounter.tryAcquire(1, clock.nowNs += SLIDING_COUNTER_STEP_NS);
    }

    @Benchmark
    public long slidingLog(final CallerClock clock)
    {
        return slidingLog.tryAcquire(1, clock.nowNs += SLIDING_LOG_STEP_NS);
    }

    @Benchmark
    public long payLater(final CallerClock clock)
    {
        return payLater.tryAcquire(1, clock.nowNs++);
    }

    @Benchmark
    public long warmingUp(final CallerClock clock)
    {
        return warmingUp.tryAcquire(1, clock.nowNs += WARMING_UP_STEP_NS);
    }

    @Benchmark
    public long composite2Legs(final CallerClock clock)
    {
        return composite.tryAcquire(1, clock.nowNs++);
    }

    @Benchmark
    public boolean concurrencyAcquireRelease()
    {
        return concurrency.release(concurrency.tryAcquire());
    }

    @Benchmark
    public int srTcm(final CallerClock clock)
    {
        return srTcm.mark(1, clock.nowNs++);
    }

    @Benchmark
    public int trTcm(final CallerClock clock)
    {
        return trTcm.mark(1, clock.nowNs++);
    }
}
