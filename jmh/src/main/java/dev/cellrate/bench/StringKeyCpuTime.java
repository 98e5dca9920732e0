package dev.cellrate.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.table.SlotTable;

/**
 * A load-tolerant companion of {@link KeyedBenchmark#stringKey} and {@link KeyHashBenchmark}: the same keyed
 * string decision (1 M uniform keys, {@code expectedKeys(keys)}, the admitting limit) and the hash alone, timed
 * in <em>CPU</em> time of the measuring thread ({@code ThreadMXBean.getCurrentThreadCpuTime}) rather than
 * wall time, so that time the thread spends descheduled on a crowded machine does not count. Uses only API
 * that exists before and after the SipHash change, so one source compiles against both jars.
 * <p>
 * Run: {@code java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp jmh/target/benchmarks.jar
 * dev.cellrate.bench.StringKeyCpuTime [rounds]}. Prints CPU ns per operation for each round.
 */
public final class StringKeyCpuTime
{
    private static final int KEYS = 1_000_000;
    private static final int OPS = 2_000_000;

    private StringKeyCpuTime()
    {
    }

    /**
     * @param args optional round count (default 5).
     */
    public static void main(final String[] args)
    {
        final int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        final KeyedRateLimiter limiter =
            KeyedRateLimiter.builder(Limit.ofGcra(1, 1L << 61)).expectedKeys(KEYS).build();
        final SlotTable table = limiter.table();
        final int[] stream = KeyStream.indices(KEYS, "uniform", KeyStream.lengthFor(KEYS), 20_240_601L);
        final String[] distinct = new String[KEYS];
        for (int i = 0; i < KEYS; i++)
        {
            distinct[i] = KeyStream.stringKey(i);
            limiter.tryAcquire(distinct[i], 1, 0);
        }
        final String[] keys = new String[stream.length];
        for (int i = 0; i < stream.length; i++)
        {
            keys[i] = distinct[stream[i]];
        }
        final String[] hot = new String[1024];
        for (int i = 0; i < hot.length; i++)
        {
            hot[i] = distinct[i];
        }
        final int mask = keys.length - 1;
        long sink = 0;
        long nowNs = 1;
        for (int round = 0; round <= rounds; round++)
        {
            long start = threads.getCurrentThreadCpuTime();
            for (int i = 0; i < OPS; i++)
            {
                sink += limiter.tryAcquire(keys[i & mask], 1, nowNs++);
            }
            final double decideNs = (threads.getCurrentThreadCpuTime() - start) / (double)OPS;
            start = threads.getCurrentThreadCpuTime();
            for (int i = 0; i < OPS; i++)
            {
                sink += table.keyWord(keys[i & mask]);
            }
            final double hashNs = (threads.getCurrentThreadCpuTime() - start) / (double)OPS;
            start = threads.getCurrentThreadCpuTime();
            for (int i = 0; i < OPS; i++)
            {
                sink += table.keyWord(hot[i & 1023]);
            }
            final double hotHashNs = (threads.getCurrentThreadCpuTime() - start) / (double)OPS;
            if (round > 0)
            {
                System.out.printf("round %d: stringKey decision %.1f cpu-ns/op, hash 1M keys %.1f, hash 1024 keys %.1f%n",
                    round, decideNs, hashNs, hotHashNs);
            }
        }
        System.out.println("(sink " + (sink & 1) + ")");
    }
}
