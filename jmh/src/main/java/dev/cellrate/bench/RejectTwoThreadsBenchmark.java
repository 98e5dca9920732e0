package dev.cellrate.bench;

import org.openjdk.jmh.annotations.Threads;

/**
 * {@link SingleLimiterBenchmark}: reject path (a rejection flood), two threads on one limiter.
 * <p>
 * Run: {@code java -jar jmh/target/benchmarks.jar RejectTwoThreadsBenchmark -prof gc}
 */
@Threads(2)
public class RejectTwoThreadsBenchmark extends SingleLimiterBenchmark
{
    @Override
    boolean admitting()
    {
        return false;
    }
}
