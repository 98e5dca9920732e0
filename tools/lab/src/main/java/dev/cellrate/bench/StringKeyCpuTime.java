package dev.cellrate.bench;

import dev.cellrate.TestFronts;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.table.SlotTable;

/**
 * A load-tolerant companion of {@link KeyedBenchmark#stringKey} and {@link KeyHashBenchmark}: the same keyed
 * string decision (1 M uniform keys, {@code expectedKeys(keys)}, the admitting limit) and the hash alone, timed
 * in <em>CPU</em> time of the measuring thread ({@code ThreadMXBean.getCurrentThreadCpuTime}) rather than
 * wall time, so that time the thread spends descheduled on a crowded machine does not count; and the same
 * decision on Bucket4j + {@code ConcurrentHashMap} ({@code KeyedBenchmark}'s {@code bucket4jMap} target), so the
 * ratio of the headline row is taken in CPU time too. Uses only API that exists before and after the SipHash
 * change and the string fast path, so one source compiles against every jar (compile it against an older jar
 * with {@code javac -cp OLD.jar -d DIR} and put {@code DIR} first on the class path).
 * <p>
 * Run: {@code java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp tools/lab/target/lab.jar
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
        final SlotTable table = TestFronts.tableOf(limiter);
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
        final KeyedTarget bucket4j = KeyedBenchmark.newTarget("bucket4jMap", KEYS);
        for (int i = 0; i < KEYS; i++)
        {
            bucket4j.decideString(distinct[i], 0);
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
            start = threads.getCurrentThreadCpuTime();
            for (int i = 0; i < OPS; i++)
            {
                sink += bucket4j.decideString(keys[i & mask], nowNs);
            }
            final double bucket4jNs = (threads.getCurrentThreadCpuTime() - start) / (double)OPS;
            if (round > 0)
            {
                System.out.printf("round %d: stringKey decision %.1f cpu-ns/op, hash 1M keys %.1f, hash 1024 keys %.1f, "
                    + "bucket4j+CHM %.1f, bucket4j / cellrate %.2fx%n",
                    round, decideNs, hashNs, hotHashNs, bucket4jNs, bucket4jNs / decideNs);
            }
        }
        System.out.println("(sink " + (sink & 1) + ")");
    }
}
