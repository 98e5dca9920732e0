package dev.cellrate.bench;

import dev.cellrate.Limit;
import dev.cellrate.RateLimiter;
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
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Single-cell admit path with caller-supplied time.
 * <p>
 * Run: {@code java -jar jmh/target/benchmarks.jar RateLimiterBenchmark -prof gc}
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED")
@State(Scope.Benchmark)
public class RateLimiterBenchmark
{
    private RateLimiter limiter;
    private long nowNs;

    @Setup(Level.Trial)
    public void setUp()
    {
        limiter = new RateLimiter(Limit.ofGcra(1, 1_000_000));
    }

    @Benchmark
    public long admitCallerTime()
    {
        // Time advances one T per call so the cell always conforms: the admit path with a CAS each call.
        return limiter.tryAcquire(nowNs++);
    }
}
