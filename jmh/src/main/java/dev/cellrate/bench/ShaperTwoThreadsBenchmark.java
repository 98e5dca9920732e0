package dev.cellrate.bench;

import org.openjdk.jmh.annotations.Threads;

/**
 * {@link ShaperBenchmark} with two threads on each shaper (aggregate throughput).
 * <p>
 * Run: {@code java -jar jmh/target/benchmarks.jar ShaperTwoThreadsBenchmark -prof gc}
 */
@Threads(2)
public class ShaperTwoThreadsBenchmark extends ShaperBenchmark
{
}
