package dev.cellrate.bench;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.RateLimiter;
import dev.cellrate.stat.LimiterStats;
import dev.cellrate.stat.StatFile;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Decision cost with counters off and on, in one run: a shared {@link RateLimiter} on the admit path (one CAS)
 * and on the reject path (one read), and an in-cache {@link KeyedRateLimiter}; "on" records every code into a
 * {@link LimiterStats} over a memory-mapped {@link StatFile} (striped counters; on a rejection with a key, the
 * top-keys sketch too). Run with {@code -t 1} and {@code -t 2} (threads share the limiter and the counters).
 * <pre>
 * java -jar jmh/target/benchmarks.jar CountersBenchmark -f 1 -wi 2 -i 3 -w 1s -r 1s -t 1 -prof gc
 * </pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED")
@State(Scope.Benchmark)
public class CountersBenchmark
{
    private static final int KEY_MASK = 1023;

    RateLimiter admitting;
    RateLimiter rejecting;
    KeyedRateLimiter keyed;
    LimiterStats stats;
    StatFile file;
    Path dir;

    /** Per-thread caller time and key index. */
    @State(Scope.Thread)
    public static class ThreadState
    {
        long nowNs = 1;
        int keyIndex;
    }

    @Setup
    public void setUp() throws java.io.IOException
    {
        admitting = new RateLimiter(SingleLimiterBenchmark.CELLRATE_ADMIT);
        rejecting = new RateLimiter(SingleLimiterBenchmark.CELLRATE_REJECT);
        rejecting.tryAcquire(1, 0);
        keyed = KeyedRateLimiter.builder(Limit.ofGcra(1, 1L << 40)).expectedKeys(KEY_MASK + 1).build();
        dir = Files.createTempDirectory("cellrate-counters-bench");
        file = StatFile.create(dir);
        stats = file.limiter("bench");
    }

    @TearDown
    public void tearDown() throws java.io.IOException
    {
        file.close();
        Files.deleteIfExists(dir.resolve(dev.cellrate.stat.StatLayout.FILE_NAME));
        Files.deleteIfExists(dir);
    }

    @Benchmark
    public long admitCountersOff(final ThreadState thread)
    {
        return admitting.tryAcquire(1, thread.nowNs++);
    }

    @Benchmark
    public long admitCountersOn(final ThreadState thread)
    {
        return stats.record(admitting.tryAcquire(1, thread.nowNs++));
    }

    @Benchmark
    public long rejectCountersOff(final ThreadState thread)
    {
        return rejecting.tryAcquire(1, thread.nowNs++);
    }

    @Benchmark
    public long rejectCountersOn(final ThreadState thread)
    {
        return stats.record(rejecting.tryAcquire(1, thread.nowNs++));
    }

    @Benchmark
    public long rejectCountersAndTopKeysOn(final ThreadState thread)
    {
        final long key = thread.keyIndex++ & 15;
        return stats.record(key, rejecting.tryAcquire(1, thread.nowNs++));
    }

    @Benchmark
    public long keyedCountersOff(final ThreadState thread)
    {
        return keyed.tryAcquire(thread.keyIndex++ & KEY_MASK, 1, thread.nowNs++);
    }

    @Benchmark
    public long keyedCountersOn(final ThreadState thread)
    {
        final long key = thread.keyIndex++ & KEY_MASK;
        return stats.record(key, keyed.tryAcquire(key, 1, thread.nowNs++));
    }
}
