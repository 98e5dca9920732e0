package dev.cellrate.bench;

import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Threads;

import java.util.concurrent.TimeUnit;

/**
 * {@link SingleLimiterBenchmark}, admit path, two threads on one limiter, in {@code SampleTime} mode: the
 * latency distribution (p99, p99.9, p99.99) of one decision under contention. JMH's own timer reads
 * {@code System.nanoTime()} around sampled calls, so its ~26 ns cost is inside every sample.
 * <p>
 * Run: {@code java -jar jmh/target/benchmarks.jar AdmitLatencyBenchmark -prof gc}
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Threads(2)
public class AdmitLatencyBenchmark extends SingleLimiterBenchmark
{
    @Override
    boolean admitting()
    {
        return true;
    }
}
