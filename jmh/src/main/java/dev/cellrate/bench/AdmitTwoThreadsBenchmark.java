package dev.cellrate.bench;

import org.openjdk.jmh.annotations.Threads;

/**
 * {@link SingleLimiterBenchmark}: admit path, two threads on one limiter.
 * <p>
 * Run: {@code java -jar jmh/target/benchmarks.jar AdmitTwoThreadsBenchmark -prof gc}
 */
@Threads(2)
public class AdmitTwoThreadsBenchmark extends SingleLimiterBenchmark
{
    @Override
    boolean admitting()
    {
        return true;
    }
}
