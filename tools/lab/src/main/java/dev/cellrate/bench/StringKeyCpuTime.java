package dev.cellrate.bench;

import dev.cellrate.TestFronts;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.table.SlotTable;

/**
 * A load-tolerant companion of {@link KeyedBenchmark#stringKey}: the keyed string decision (1 M uniform keys,
 * {@code expectedKeys(keys)}, the admitting limit), its floor (the same key hash, then one random CAS on an array
 * of the table's footprint: {@code KeyedBenchmark}'s {@code randomCas} target), the hash alone over the same
 * stream and over 1024 hot keys, and Bucket4j + {@code ConcurrentHashMap} ({@code bucket4jMap}), paired in one JVM
 * ({@link PairedRounds}: CPU time of the thread, every workload once a round), so that the string row's ratio to
 * its floor holds on a crowded machine.
 * <p>
 * Run: {@code java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp tools/lab/target/lab.jar
 * dev.cellrate.bench.StringKeyCpuTime [rounds]}. Prints each workload's median CPU ns per operation and the
 * ratios of the medians.
 */
public final class StringKeyCpuTime
{
    private static final int KEYS = 1_000_000;
    private static final int OPS = 2_000_000;
    private static final String[] NAMES = {
        "cellrate string decision", "floor: hash, then random CAS", "hash only, 1 M keys", "hash only, 1024 keys",
        "bucket4j + CHM"};

    private StringKeyCpuTime()
    {
    }

    /**
     * @param args optional round count (default 5).
     */
    public static void main(final String[] args)
    {
        final int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        final KeyedRateLimiter limiter =
            KeyedRateLimiter.builder(Limit.ofGcra(1, 1L << 61)).expectedKeys(KEYS).build();
        final SlotTable table = TestFronts.tableOf(limiter);
        final KeyedTarget floor = KeyedBenchmark.newTarget("randomCas", KEYS);
        final KeyedTarget bucket4j = KeyedBenchmark.newTarget("bucket4jMap", KEYS);
        final int[] stream = KeyStream.indices(KEYS, "uniform", KeyStream.lengthFor(KEYS), 20_240_601L);
        final String[] distinct = new String[KEYS];
        for (int i = 0; i < KEYS; i++)
        {
            distinct[i] = KeyStream.stringKey(i);
            limiter.tryAcquire(distinct[i], 1, 0);
            bucket4j.decideString(distinct[i], 0);
        }
        final String[] keys = new String[stream.length];
        for (int i = 0; i < stream.length; i++)
        {
            keys[i] = distinct[stream[i]];
        }
        final String[] hot = new String[1024];
        System.arraycopy(distinct, 0, hot, 0, hot.length);
        final int mask = keys.length - 1;
        final PairedRounds measured = PairedRounds.measure(NAMES.length, 1, rounds, w -> OPS, w ->
        {
            switch (w)
            {
                case 0: return decide(limiter, keys);
                case 1: return decide(floor, keys);
                case 2: return hash(table, keys);
                case 3: return hash(table, hot);
                default: return decide(bucket4j, keys);
            }
        });
        measured.printCpuNs(NAMES, 30, 7);
        System.out.printf("cellrate ÷ floor, throughput: %.2fx; cellrate - floor: %.1f cpu-ns; "
            + "bucket4j ÷ cellrate, cost: %.2fx%n", measured.median(1) / measured.median(0),
            measured.median(0) - measured.median(1), measured.median(4) / measured.median(0));
        System.out.println("(sink " + (measured.sink() & 1) + ")");
    }

    private static long decide(final KeyedRateLimiter limiter, final String[] keys)
    {
        final int mask = keys.length - 1;
        long sink = 0;
        for (int i = 0; i < OPS; i++)
        {
            sink += limiter.tryAcquire(keys[i & mask], 1, i);
        }
        return sink;
    }

    private static long decide(final KeyedTarget target, final String[] keys)
    {
        final int mask = keys.length - 1;
        long sink = 0;
        for (int i = 0; i < OPS; i++)
        {
            sink += target.decideString(keys[i & mask], i);
        }
        return sink;
    }

    private static long hash(final SlotTable table, final String[] keys)
    {
        final int mask = keys.length - 1;
        long sink = 0;
        for (int i = 0; i < OPS; i++)
        {
            sink += table.keyWord(keys[i & mask]);
        }
        return sink;
    }
}
