package dev.cellrate.bench;

import org.openjdk.jmh.annotations.Threads;

/**
 * {@link SingleLimiterBenchmark}: admit path, one thread.
 * <p>
 * Run: {@code java -jar jmh/target/benchmarks.jar AdmitOneThreadBenchmark -prof gc}
 */
@Threads(1)
public class AdmitOneThreadBenchmark extends SingleLimiterBenchmark
{
    @Override
    boolean admitting()
    {
        return true;
    }
}
