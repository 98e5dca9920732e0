package dev.cellrate.bench;

import dev.cellrate.JvmOption;
import dev.cellrate.layout.CellArray;
import dev.cellrate.Limit;
import dev.cellrate.RateLimiter;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.local.SynchronizationStrategy;
import io.github.resilience4j.ratelimiter.internal.AtomicRateLimiter;
import org.agrona.concurrent.CachedNanoClock;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * One limiter shared by every benchmark thread: cellrate against Guava, Bucket4j (lock-free and synchronized)
 * and Resilience4j, plus two baselines, all in one class so that every ratio comes from one run.
 * <p>
 * Subclasses fix the path and the thread count: {@link AdmitOneThreadBenchmark},
 * {@link AdmitTwoThreadsBenchmark}, {@link RejectOneThreadBenchmark}, {@link RejectTwoThreadsBenchmark},
 * {@link AdmitLatencyBenchmark}. On the <em>admit</em> path every call is admitted and writes the state (for
 * cellrate: one CAS); on the <em>reject</em> path every call is rejected (for cellrate: one read, no write).
 * <p>
 * cellrate is measured three ways, because reading the clock costs more than the decision:
 * <ul>
 *     <li>{@code cellrateCallerTime}: the caller passes {@code nowNs} (a per-thread counter here, as an event
 *     loop passes the time it already read); {@code cellrateCallerTimeSameNow} passes the same time on every call
 *     (no per-call store by the harness; not in the headline);</li>
 *     <li>{@code cellrateNanoClock}: {@code tryAcquire()} reads {@code System.nanoTime()} per call;</li>
 *     <li>{@code cellrateCachedClock}: {@code tryAcquire()} reads an Agrona {@link CachedNanoClock} that a
 *     background thread updates every millisecond.</li>
 * </ul>
 * The peers read their own clocks per call, as their users run them. The baselines bound what one shared
 * word can cost: {@code baselineAtomicIncrement} ({@code AtomicLong.incrementAndGet()}),
 * {@code baselineNanoTimeAtomicIncrement} (the same plus {@code System.nanoTime()}),
 * {@code baselineAtomicGetCompareAndExchange} (a read, then a CAS: the floor of a read-then-CAS design) and
 * {@code baselineAtomicGet} (a volatile read: the floor of a read-only rejection). The two floors take the same
 * per-thread caller time as {@code cellrateCallerTime} and return a long that depends on it, so each goal's pair
 * of rows does the same harness work.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = JvmOption.ADD_EXPORTS)
@State(Scope.Benchmark)
public abstract class SingleLimiterBenchmark
{
    /** T of the admitting cellrate limit (1 ns) with a tolerance no benchmark can exhaust. */
    static final Limit CELLRATE_ADMIT = Limit.ofGcra(1, 1L << 61);

    /** One permit per hour, no burst: after the first permit every call in a benchmark is rejected. */
    static final Limit CELLRATE_REJECT = Limit.ofGcra(TimeUnit.HOURS.toNanos(1), 0);

    private static final long CACHED_CLOCK_PERIOD_NS = TimeUnit.MILLISECONDS.toNanos(1);

    RateLimiter cellrateCallerTime;
    RateLimiter cellrateSameNow;
    RateLimiter cellrateNanoClock;
    RateLimiter cellrateCachedClock;
    CachedNanoClock cachedClock;
    com.google.common.util.concurrent.RateLimiter guava;
    Bucket bucket4jLockFree;
    Bucket bucket4jSynchronized;
    AtomicRateLimiter resilience4j;
    AtomicLong counter;
    AtomicLong casCounter;

    private volatile boolean running;
    private Thread clockUpdater;

    /**
     * The per-thread caller time of {@code cellrateCallerTime}: advances 1 ns per call.
     */
    @State(Scope.Thread)
    public static class CallerClock
    {
        long nowNs;
    }

    /**
     * @return true for the admit path, false for the reject path.
     */
    abstract boolean admitting();

    @Setup(Level.Trial)
    public void setUp(final BenchmarkParams params)
    {
        final boolean admitting = admitting();
        final Limit limit = admitting ? CELLRATE_ADMIT : CELLRATE_REJECT;
        cachedClock = new CachedNanoClock();
        cachedClock.update(System.nanoTime());
        cellrateCallerTime = new RateLimiter(limit, SystemNanoClock.INSTANCE);
        cellrateSameNow = new RateLimiter(limit, SystemNanoClock.INSTANCE);
        cellrateNanoClock = new RateLimiter(limit, SystemNanoClock.INSTANCE);
        cellrateCachedClock = new RateLimiter(limit, cachedClock);
        if (!admitting)
        {
            cellrateCallerTime.tryAcquire(1, 0);
            cellrateSameNow.tryAcquire(1, 0);
            cellrateNanoClock.tryAcquire();
            cellrateCachedClock.tryAcquire();
        }
        guava = Peers.guava(admitting);
        bucket4jLockFree = Peers.bucket4j(admitting, SynchronizationStrategy.LOCK_FREE);
        bucket4jSynchronized = Peers.bucket4j(admitting, SynchronizationStrategy.SYNCHRONIZED);
        resilience4j = Peers.resilience4j(admitting);
        counter = new AtomicLong();
        casCounter = new AtomicLong();

        if (params.getBenchmark().endsWith("cellrateCachedClock"))
        {
            running = true;
            clockUpdater = new Thread(this::updateCachedClock, "cached-clock-updater");
            clockUpdater.setDaemon(true);
            clockUpdater.start();
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException
    {
        running = false;
        if (null != clockUpdater)
        {
            clockUpdater.join();
        }
    }

    private void updateCachedClock()
    {
        while (running)
        {
            cachedClock.update(System.nanoTime());
            LockSupport.parkNanos(CACHED_CLOCK_PERIOD_NS);
        }
    }

    @Benchmark
    public long cellrateCallerTime(final CallerClock clock)
    {
        return cellrateCallerTime.tryAcquire(1, clock.nowNs++);
    }

    /**
     * Not a headline row: {@link #cellrateCallerTime} without the harness's own per-call store
     * ({@code clock.nowNs++} writes the thread's state before every CAS, and a locked instruction waits for the
     * store buffer to drain). Every call passes the same caller time, as an event loop does for the requests it
     * decides in one wake-up; on the admit path every call is still admitted (one CAS; the admitting limit's
     * tolerance outlasts any run), on the reject path every call is rejected. Compare it with
     * {@link #baselineAtomicIncrement}, which has no such store either.
     */
    @Benchmark
    public long cellrateCallerTimeSameNow(final CallerClock clock)
    {
        return cellrateSameNow.tryAcquire(1, clock.nowNs);
    }

    @Benchmark
    public long cellrateNanoClock()
    {
        return cellrateNanoClock.tryAcquire();
    }

    @Benchmark
    public long cellrateCachedClock()
    {
        return cellrateCachedClock.tryAcquire();
    }

    @Benchmark
    public boolean guava()
    {
        return guava.tryAcquire();
    }

    @Benchmark
    public boolean bucket4jLockFree()
    {
        return bucket4jLockFree.tryConsume(1);
    }

    @Benchmark
    public boolean bucket4jSynchronized()
    {
        return bucket4jSynchronized.tryConsume(1);
    }

    @Benchmark
    public boolean resilience4j()
    {
        return resilience4j.acquirePermission();
    }

    @Benchmark
    public long baselineAtomicIncrement()
    {
        return counter.incrementAndGet();
    }

    /**
     * The floor of any read-then-CAS design, which a GCRA cell is (the new TAT depends on the one read, so it cannot
     * be a {@code lock xadd}): {@code AtomicLong.get()}, then {@code compareAndExchange} to the value + 1, retried
     * on the witness as cellrate's loop does. It does the harness work of {@link #cellrateCallerTime}, no more and
     * no less: it takes the same per-thread caller time ({@code clock.nowNs++}, a load and a store to the thread's
     * state before the CAS, which a locked instruction waits for) and returns one long that depends on it, so the
     * two rows differ only by what the limiter does. {@link #baselineAtomicIncrement} is one {@code lock xadd} with
     * no read before it and no caller time.
     */
    @Benchmark
    public long baselineAtomicGetCompareAndExchange(final CallerClock clock)
    {
        final long nowNs = clock.nowNs++;
        final AtomicLong word = casCounter;
        long value = word.get();
        while (true)
        {
            final long witness = word.compareAndExchange(value, value + 1);
            if (witness == value)
            {
                return value - nowNs;
            }
            value = witness;
        }
    }

    @Benchmark
    public long baselineNanoTimeAtomicIncrement()
    {
        return System.nanoTime() + counter.incrementAndGet();
    }

    /**
     * The floor of a read-only rejection: a volatile read of one shared word ({@code AtomicLong.get()}), with the
     * harness work of {@link #cellrateCallerTime} (the same per-thread caller time, {@code clock.nowNs++}) and a
     * result that depends on both, as a rejection's retry-after does. Without the caller time the row is a loop of
     * about two cycles (six loads, the loop's own among them), bound by the core's load ports rather than by the
     * read, and its 2-thread ÷ 1-thread ratio moves between about 2.0 and 2.6 from run to run, past the 2.0 that two
     * cores reading one shared line can give.
     */
    @Benchmark
    public long baselineAtomicGet(final CallerClock clock)
    {
        final long nowNs = clock.nowNs++;
        return counter.get() - nowNs;
    }
}
