package dev.cellrate.bench;

import java.util.concurrent.atomic.AtomicLong;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.RateLimiter;

/**
 * A load-tolerant companion of the keyed and admit headline rows, for before/after comparisons on a crowded
 * machine: the same work as {@link KeyedBenchmark#longKey} (uniform long keys, {@code expectedKeys(keys)},
 * the admitting limit, caller time) against its random-CAS floor, {@link KeyedBatchBenchmark} (32 keys a call
 * against 32 calls, and the same for the floor: 32 random CASes one by one against the same 32 with every slot
 * touched first) and {@code AdmitOneThreadBenchmark} (cellrate caller time against
 * {@code AtomicLong.incrementAndGet()} and against a bare read-then-CAS that advances a caller time as the
 * cellrate row does), timed in
 * <em>CPU</em> time of the measuring thread ({@code ThreadMXBean.getCurrentThreadCpuTime}) rather than wall
 * time, so time spent descheduled does not count (what it cannot remove: caches and TLB refilled after another
 * process ran on the core). Uses only long-standing API, so one source compiles against two builds to be
 * compared.
 * <p>
 * Run: {@code java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp tools/lab/target/lab.jar
 * dev.cellrate.bench.KeyedCpuTime [rounds] [keys ...]} (keys: default 1,000,000; several key counts are run one
 * after the other in the same JVM, each with fresh tables; the key count is also the batch rows'). Prints, per key
 * count, the median CPU ns per operation (per key for the batch rows) over the rounds, with the range, and one
 * summary line of the ratios the headline reports ({@code jmh/tables.py} reads it). {@code -Dlab.tableScale=S} sizes
 * both keyed tables for S times the keys decided (a lower load, the same footprint on both sides).
 */
public final class KeyedCpuTime
{
    private static final int DEFAULT_KEYS = 1_000_000;
    private static final int OPS = 2_000_000;
    private static final int BATCH = KeyedBatchBenchmark.BATCH;
    private static final String[] NAMES = {
        "keyed cellrate", "keyed randomCas", "keyed hashOnly", "batch single x32", "batch batch32",
        "floor single x32", "floor batch32", "admit cellrate", "admit AtomicLong", "admit get + CAS"};

    private final CellrateKeyedTarget cellrate;
    private final RandomCasTarget randomCas;
    private final HashOnlyTarget hashOnly = new HashOnlyTarget();
    private final KeyedRateLimiter limiter;
    private final RateLimiter cell = new RateLimiter(SingleLimiterBenchmark.CELLRATE_ADMIT);
    private final AtomicLong counter = new AtomicLong();
    private final AtomicLong casCounter = new AtomicLong();
    private final CounterFloors.CallerTime floorTime = new CounterFloors.CallerTime();
    private final long[] keys;
    private final int mask;
    private final long[] batchKeys = new long[BATCH];
    private final long[] codes = new long[BATCH];
    private final long[] addresses = new long[BATCH];
    private long nowNs = 1;
    private int next;

    /**
     * Sizing of the keyed tables ({@code -Dlab.tableScale=S}, default 1): the limiter is built with
     * {@code expectedKeys(S * keys)} and the random CAS's array with as many slots, while the keys decided stay
     * {@code keys}: a table at {@code 1/S} of the designed load against a random CAS over the same footprint.
     */
    private static final int TABLE_SCALE = Integer.getInteger("lab.tableScale", 1);

    private KeyedCpuTime(final int keyCount)
    {
        cellrate = new CellrateKeyedTarget(keyCount * TABLE_SCALE);
        randomCas = new RandomCasTarget(keyCount * TABLE_SCALE);
        limiter = cellrate.limiter();
        final int[] stream = KeyStream.indices(keyCount, "uniform", KeyStream.lengthFor(keyCount), 20_240_601L);
        for (int i = 0; i < keyCount; i++)
        {
            cellrate.decideLong(KeyStream.longKey(i), null, 0);
            randomCas.decideLong(KeyStream.longKey(i), null, 0);
        }
        keys = new long[stream.length];
        for (int i = 0; i < stream.length; i++)
        {
            keys[i] = KeyStream.longKey(stream[i]);
        }
        mask = keys.length - 1;
    }

    /**
     * @param args optional round count (default 5), then key counts (default 1,000,000).
     */
    public static void main(final String[] args)
    {
        final int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        if (args.length <= 1)
        {
            measure(rounds, DEFAULT_KEYS);
        }
        for (int a = 1; a < args.length; a++)
        {
            measure(rounds, Integer.parseInt(args[a]));
            System.gc(); // the last key count's tables go before the next's are allocated
        }
    }

    private static void measure(final int rounds, final int keyCount)
    {
        final KeyedCpuTime work = new KeyedCpuTime(keyCount);
        final PairedRounds measured = PairedRounds.measure(NAMES.length, 1, rounds, w -> OPS, work::run);
        final double[] median = new double[NAMES.length];
        for (int w = 0; w < NAMES.length; w++)
        {
            median[w] = measured.median(w);
        }
        System.out.printf("%,d keys%s%n", keyCount, 1 == TABLE_SCALE ? "" :
            ", tables sized for " + TABLE_SCALE + "x as many keys (load " + 0.75 / TABLE_SCALE + ")");
        measured.printCpuNs(NAMES, 18, 7);
        System.out.printf("keys %d: keyed cellrate / randomCas %.2fx; batch32 speed-up over single calls %.2fx, "
            + "the floor's %.2fx; admit cellrate / AtomicLong %.2fx, / get + CAS %.2fx%n", keyCount,
            median[0] / median[1], median[3] / median[4], median[5] / median[6], median[7] / median[8],
            median[7] / median[9]);
        System.out.println("(sink " + (measured.sink() & 1) + ")");
    }

    private long run(final int workload)
    {
        switch (workload)
        {
            case 0:
                return keyedCellrate();
            case 1:
                return keyedRandomCas();
            case 2:
                return keyedHashOnly();
            case 3:
                return single();
            case 4:
                return batch();
            case 5:
                return floorSingle();
            case 6:
                return floorBatch();
            case 7:
                return admit();
            case 8:
                return atomic();
            default:
                return getAndCas();
        }
    }

    // one method per target, each call site bound to one final class (a shared one would be megamorphic)
    private long keyedCellrate()
    {
        long sink = 0;
        for (int i = 0; i < OPS; i++)
        {
            sink += cellrate.decideLong(keys[next++ & mask], null, nowNs++);
        }
        return sink;
    }

    private long keyedRandomCas()
    {
        long sink = 0;
        for (int i = 0; i < OPS; i++)
        {
            sink += randomCas.decideLong(keys[next++ & mask], null, nowNs++);
        }
        return sink;
    }

    private long keyedHashOnly()
    {
        long sink = 0;
        for (int i = 0; i < OPS; i++)
        {
            sink += hashOnly.decideLong(keys[next++ & mask], null, nowNs++);
        }
        return sink;
    }

    private long single()
    {
        long sink = 0;
        for (int b = 0; b < OPS / BATCH; b++)
        {
            gather();
            final long now = nowNs++;
            for (int i = 0; i < BATCH; i++)
            {
                sink |= limiter.tryAcquire(batchKeys[i], 1, now);
            }
        }
        return sink;
    }

    private long batch()
    {
        long sink = 0;
        for (int b = 0; b < OPS / BATCH; b++)
        {
            gather();
            limiter.tryAcquire(batchKeys, BATCH, 1, nowNs++, codes);
            sink |= codes[0] | codes[BATCH - 1];
        }
        return sink;
    }

    private long floorSingle()
    {
        long sink = 0;
        for (int b = 0; b < OPS / BATCH; b++)
        {
            gather();
            sink |= randomCas.casEach(batchKeys, BATCH, nowNs++);
        }
        return sink;
    }

    private long floorBatch()
    {
        long sink = 0;
        for (int b = 0; b < OPS / BATCH; b++)
        {
            gather();
            sink |= randomCas.casBatch(batchKeys, BATCH, nowNs++, addresses);
        }
        return sink;
    }

    private long admit()
    {
        long sink = 0;
        for (int i = 0; i < OPS; i++)
        {
            sink += cell.tryAcquire(1, nowNs++);
        }
        return sink;
    }

    private long atomic()
    {
        return CounterFloors.incrementAndGet(counter, OPS);
    }

    private long getAndCas()
    {
        return CounterFloors.getAndCas(casCounter, OPS, floorTime);
    }

    private void gather()
    {
        final int from = next & mask & ~(BATCH - 1);
        next = from + BATCH;
        System.arraycopy(keys, from, batchKeys, 0, BATCH);
    }
}
