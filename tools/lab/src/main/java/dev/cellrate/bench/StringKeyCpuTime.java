package dev.cellrate.bench;

import dev.cellrate.TestFronts;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.table.SlotTable;
import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A load-tolerant companion of {@link KeyedBenchmark#stringKey}: the keyed string decision (1 M uniform keys,
 * {@code expectedKeys(keys)}, the admitting limit), its floor (the same key hash, then one random CAS on an array
 * of the table's footprint: {@code KeyedBenchmark}'s {@code randomCas} target), the hash alone over the same
 * stream and over 1024 hot keys, Bucket4j + {@code ConcurrentHashMap} ({@code bucket4jMap}), and the long-key
 * decision and its random CAS over the same key indices and footprint, paired in one JVM ({@link PairedRounds}: CPU
 * time of the thread, every workload once a round), so that the string row's ratio to its floor holds on a crowded
 * machine. The long-key rows split the string decision's cost: what it pays beyond the hash (string decision
 * minus hash only) against what a long-key decision costs, and the same for the two floors. The last row is the
 * string floor with one change: its CAS address is computed from a word read from the slot's line (always the same
 * slot, since the word is never negative), so the CAS waits for the line as a decision's CAS waits for its slot to
 * be selected from the home line. Bucket4j runs 500 k operations a round, the others 2 M.
 * <p>
 * Run: {@code java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp tools/lab/target/lab.jar
 * dev.cellrate.bench.StringKeyCpuTime [rounds]}. Prints each workload's median CPU ns per operation and the
 * ratios of the medians, then the split: string decision and string floor each less the hash, beside the long-key
 * decision and the long-key floor.
 */
public final class StringKeyCpuTime
{
    private static final int KEYS = 1_000_000;
    private static final int OPS = 2_000_000;
    private static final String[] NAMES = {
        "cellrate string decision", "floor: hash, then random CAS", "hash only, 1 M keys", "hash only, 1024 keys",
        "bucket4j + CHM", "cellrate long decision", "floor: long random CAS",
        "floor, CAS address after the line"};
    private static final int PEER_OPS = 500_000;

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
        final KeyedRateLimiter longLimiter =
            KeyedRateLimiter.builder(Limit.ofGcra(1, 1L << 61)).expectedKeys(KEYS).build();
        final KeyedTarget longFloor = KeyedBenchmark.newTarget("randomCas", KEYS);
        final DependentFloor dependentFloor = new DependentFloor(table, RandomCasTarget.slotsFor(KEYS));
        final int[] stream = KeyStream.indices(KEYS, "uniform", KeyStream.lengthFor(KEYS), 20_240_601L);
        final String[] distinct = new String[KEYS];
        for (int i = 0; i < KEYS; i++)
        {
            distinct[i] = KeyStream.stringKey(i);
            limiter.tryAcquire(distinct[i], 1, 0);
            bucket4j.decideString(distinct[i], 0);
            longLimiter.tryAcquire(KeyStream.longKey(i), 1, 0);
        }
        final String[] keys = new String[stream.length];
        final long[] longKeys = new long[stream.length];
        for (int i = 0; i < stream.length; i++)
        {
            keys[i] = distinct[stream[i]];
            longKeys[i] = KeyStream.longKey(stream[i]);
        }
        final String[] hot = new String[1024];
        System.arraycopy(distinct, 0, hot, 0, hot.length);
        final int mask = keys.length - 1;
        final PairedRounds measured = PairedRounds.measure(NAMES.length, 1, rounds, w -> 4 == w ? PEER_OPS : OPS, w ->
        {
            switch (w)
            {
                case 0: return decide(limiter, keys);
                case 1: return decide(floor, keys);
                case 2: return hash(table, keys);
                case 3: return hash(table, hot);
                case 4: return decidePeer(bucket4j, keys);
                case 5: return decide(longLimiter, longKeys);
                case 6: return decideLong(longFloor, longKeys);
                default: return decide(dependentFloor, keys);
            }
        });
        measured.printCpuNs(NAMES, 30, 7);
        System.out.printf("cellrate ÷ floor, throughput: %.2fx; cellrate - floor: %.1f cpu-ns; "
            + "bucket4j ÷ cellrate, cost: %.2fx%n", measured.median(1) / measured.median(0),
            measured.median(0) - measured.median(1), measured.median(4) / measured.median(0));
        System.out.printf("beyond the hash (1 M keys): string decision %.1f cpu-ns, long decision %.1f; "
            + "string floor %.1f, long floor %.1f%n", measured.median(0) - measured.median(2), measured.median(5),
            measured.median(1) - measured.median(2), measured.median(6));
        System.out.printf("floor with its CAS address after the line ÷ floor, cost: %.2fx; cellrate ÷ that floor, "
            + "throughput: %.2fx%n", measured.median(7) / measured.median(1), measured.median(7) / measured.median(0));
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

    private static long decidePeer(final KeyedTarget target, final String[] keys)
    {
        final int mask = keys.length - 1;
        long sink = 0;
        for (int i = 0; i < PEER_OPS; i++)
        {
            sink += target.decideString(keys[i & mask], i);
        }
        return sink;
    }

    private static long decide(final DependentFloor floor, final String[] keys)
    {
        final int mask = keys.length - 1;
        long sink = 0;
        for (int i = 0; i < OPS; i++)
        {
            sink += floor.decide(keys[i & mask], i);
        }
        return sink;
    }

    /**
     * The string floor (hash, then read-then-CAS on a random slot of the same footprint) whose CAS address is
     * computed from a word of the slot's line, as a decision's is selected from its home line.
     */
    private static final class DependentFloor
    {
        private final SlotTable hasher;
        /** Held so that the memory lives as long as this floor. */
        private final UnsafeBuffer buffer;
        private final long address;
        private final long slots;

        DependentFloor(final SlotTable hasher, final int slots)
        {
            this.hasher = hasher;
            this.buffer = new UnsafeBuffer(BufferUtil.allocateDirectAligned(slots * 16, 64));
            this.address = buffer.addressOffset();
            this.slots = slots;
        }

        long decide(final String key, final long nowNs)
        {
            final long word = hasher.keyWord(key);
            final long at = address + ((((word & 0xFFFF_FFFFL) * slots) >>> 32) << 4) + 8;
            // the TATs here are never negative, so this is always `at`, known only once the line has arrived
            final long tatAt = at + ((UnsafeApi.getLong(null, at) >> 63) & 8);
            final long tatNs = UnsafeApi.getLongAcquire(null, tatAt);
            return UnsafeApi.compareAndExchangeLong(null, tatAt, tatNs, Math.max(tatNs, nowNs) + 1) == tatNs ? 0 : 1;
        }
    }

    private static long decide(final KeyedRateLimiter limiter, final long[] keys)
    {
        final int mask = keys.length - 1;
        long sink = 0;
        for (int i = 0; i < OPS; i++)
        {
            sink += limiter.tryAcquire(keys[i & mask], 1, i);
        }
        return sink;
    }

    private static long decideLong(final KeyedTarget target, final long[] keys)
    {
        final int mask = keys.length - 1;
        long sink = 0;
        for (int i = 0; i < OPS; i++)
        {
            sink += target.decideLong(keys[i & mask], null, i);
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
