package dev.cellrate.bench;

import org.openjdk.jmh.annotations.Threads;

/**
 * {@link SingleLimiterBenchmark}: reject path, one thread.
 * <p>
 * Run: {@code java -jar jmh/target/benchmarks.jar RejectOneThreadBenchmark -prof gc}
 */
@Threads(1)
public class RejectOneThreadBenchmark extends SingleLimiterBenchmark
{
    @Override
    boolean admitting()
    {
        return false;
    }
}
