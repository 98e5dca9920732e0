package dev.cellrate.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.RateLimiter;

/**
 * A load-tolerant companion of the keyed and admit headline rows, for before/after comparisons on a crowded
 * machine: the same work as {@link KeyedBenchmark#longKey} (1 M uniform long keys, {@code expectedKeys(keys)},
 * the admitting limit, caller time), {@link KeyedBatchBenchmark} (32 keys a call against 32 calls) and
 * {@code AdmitOneThreadBenchmark} (cellrate caller time against {@code AtomicLong.incrementAndGet()}), timed in
 * <em>CPU</em> time of the measuring thread ({@code ThreadMXBean.getCurrentThreadCpuTime}) rather than wall
 * time, so time spent descheduled does not count (what it cannot remove: caches and TLB refilled after another
 * process ran on the core). Uses only long-standing API, so one source compiles against two builds to be
 * compared.
 * <p>
 * Run: {@code java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp tools/lab/target/lab.jar
 * dev.cellrate.bench.KeyedCpuTime [rounds] [keys]} (keys: default 1,000,000; also the key count of the batch rows). Prints the median CPU ns per operation (per key for the batch rows)
 * over the rounds, with the range, and the ratios the headline reports.
 */
public final class KeyedCpuTime
{
    private static final int DEFAULT_KEYS = 1_000_000;
    private static final int OPS = 2_000_000;
    private static final int BATCH = KeyedBatchBenchmark.BATCH;
    private static final String[] NAMES = {
        "keyed cellrate", "keyed randomCas", "keyed hashOnly", "batch single x32", "batch batch32", "admit cellrate",
        "admit AtomicLong"};

    private final CellrateKeyedTarget cellrate;
    private final RandomCasTarget randomCas;
    private final HashOnlyTarget hashOnly = new HashOnlyTarget();
    private final KeyedRateLimiter limiter;
    private final RateLimiter cell = new RateLimiter(SingleLimiterBenchmark.CELLRATE_ADMIT);
    private final AtomicLong counter = new AtomicLong();
    private final long[] keys;
    private final int mask;
    private final long[] batchKeys = new long[BATCH];
    private final long[] codes = new long[BATCH];
    private long nowNs = 1;
    private int next;

    private KeyedCpuTime(final int keyCount)
    {
        cellrate = new CellrateKeyedTarget(keyCount);
        randomCas = new RandomCasTarget(keyCount);
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
     * @param args optional round count (default 5) and key count (default 1,000,000).
     */
    public static void main(final String[] args)
    {
        final int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        final int keyCount = args.length > 1 ? Integer.parseInt(args[1]) : DEFAULT_KEYS;
        final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        final KeyedCpuTime work = new KeyedCpuTime(keyCount);
        final double[][] ns = new double[NAMES.length][rounds];
        long sink = 0;
        for (int round = -1; round < rounds; round++)
        {
            for (int w = 0; w < NAMES.length; w++)
            {
                final long start = threads.getCurrentThreadCpuTime();
                sink += work.run(w);
                final double perOp = (threads.getCurrentThreadCpuTime() - start) / (double)OPS;
                if (round >= 0)
                {
                    ns[w][round] = perOp;
                }
            }
        }
        final double[] median = new double[NAMES.length];
        for (int w = 0; w < NAMES.length; w++)
        {
            final double[] sorted = ns[w].clone();
            Arrays.sort(sorted);
            median[w] = sorted[rounds / 2];
            System.out.printf("%-18s %7.1f cpu-ns/op (%.1f-%.1f, %d rounds)%n",
                NAMES[w], median[w], sorted[0], sorted[rounds - 1], rounds);
        }
        System.out.printf("keyed cellrate / randomCas %.2fx; batch32 speed-up over single calls %.2fx; "
            + "admit cellrate / AtomicLong %.2fx%n", median[0] / median[1], median[3] / median[4], median[5] / median[6]);
        System.out.println("(sink " + (sink & 1) + ")");
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
                return admit();
            default:
                return atomic();
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
        long sink = 0;
        for (int i = 0; i < OPS; i++)
        {
            sink += counter.incrementAndGet();
        }
        return sink;
    }

    private void gather()
    {
        final int from = next & mask & ~(BATCH - 1);
        next = from + BATCH;
        System.arraycopy(keys, from, batchKeys, 0, BATCH);
    }
}
