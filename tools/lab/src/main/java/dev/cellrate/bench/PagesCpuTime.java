package dev.cellrate.bench;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import dev.cellrate.KeyedRateLimiter;

/**
 * Every keyed row of the headline in <em>CPU</em> time of one thread, in one JVM, with the pages each table
 * landed on: long, string and byte keys on cellrate, the random-CAS and hash-only baselines, Bucket4j +
 * {@code ConcurrentHashMap}, and the batch against single calls for long and byte keys at 1 M keys and at 1,000
 * keys (in cache). For the memory-pages question (docs/keyed-table.md, "Huge pages"): run
 * it with and without huge pages and compare, and compare the ratios of one JVM with the next (each JVM
 * allocates its tables anew, so the pages differ from JVM to JVM as they do from JMH fork to fork).
 * <p>
 * Run: {@code java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp tools/lab/target/lab.jar
 * dev.cellrate.bench.PagesCpuTime [rounds]}; huge pages for the off-heap tables:
 * {@code GLIBC_TUNABLES=glibc.malloc.hugetlb=1} in the environment; for the heap: {@code -XX:+UseTransparentHugePages}.
 * Prints the smaps lines of the tables first, then the median CPU ns per operation (per key for the batch rows)
 * with the range over the rounds, then the ratios. 2 M operations a row (500 k for Bucket4j's rows).
 */
public final class PagesCpuTime
{
    private static final int KEYS = 1_000_000;
    private static final int HOT_KEYS = 1_000;
    private static final int OPS = 2_000_000;
    private static final int PEER_OPS = 500_000;
    private static final int BATCH = KeyedBatchBenchmark.BATCH;
    private static final int KEY_BYTES = KeyedBenchmark.KEY_BYTES;
    private static final String[] NAMES = {
        "long cellrate", "long randomCas", "long hashOnly", "long bucket4jMap",
        "string cellrate", "string bucket4jMap",
        "bytes cellrate", "bytes randomCas", "bytes hashOnly", "bytes bucket4jMap",
        "1M long single x32", "1M long batch32", "1M bytes single x32", "1M bytes batch32",
        "1k long single x32", "1k long batch32", "1k bytes single x32", "1k bytes batch32"};

    private final CellrateKeyedTarget longTable = new CellrateKeyedTarget(KEYS);
    private final CellrateKeyedTarget byteTable = new CellrateKeyedTarget(KEYS);
    private final RandomCasTarget randomCas = new RandomCasTarget(KEYS);
    private final HashOnlyTarget hashOnly = new HashOnlyTarget();
    private final Bucket4jMapTarget longPeer = new Bucket4jMapTarget(KEYS);
    private final Bucket4jMapTarget stringPeer = new Bucket4jMapTarget(KEYS);
    private final KeyedRateLimiter longLimiter = longTable.limiter();
    private final KeyedRateLimiter byteLimiter = byteTable.limiter();
    private final KeyedRateLimiter hotLongLimiter =
        KeyedRateLimiter.builder(SingleLimiterBenchmark.CELLRATE_ADMIT).expectedKeys(HOT_KEYS).build();
    private final KeyedRateLimiter hotByteLimiter =
        KeyedRateLimiter.builder(SingleLimiterBenchmark.CELLRATE_ADMIT).expectedKeys(HOT_KEYS).build();
    private final long[] longKeys;
    private final Long[] boxedKeys;
    private final String[] stringKeys;
    private final byte[] keyBytes = new byte[KEYS * KEY_BYTES];
    private final int[] byteOffsets;
    private final long[] hotKeys;
    private final int[] hotOffsets;
    private final int mask;
    private final long[] batchKeys = new long[BATCH];
    private final int[] batchOffsets = new int[BATCH];
    private final int[] batchLengths = new int[BATCH];
    private final long[] codes = new long[BATCH];
    private long nowNs = 1;
    private int next;

    private PagesCpuTime()
    {
        final int[] stream = KeyStream.indices(KEYS, "uniform", KeyStream.lengthFor(KEYS), 20_240_601L);
        final int[] hotStream = KeyStream.indices(HOT_KEYS, "uniform", stream.length, 20_240_601L);
        final Long[] boxes = new Long[KEYS];
        final String[] strings = new String[KEYS];
        for (int i = 0; i < KEYS; i++)
        {
            final long key = KeyStream.longKey(i);
            boxes[i] = key;
            strings[i] = KeyStream.stringKey(i);
            System.arraycopy(strings[i].getBytes(StandardCharsets.US_ASCII), 0, keyBytes, i * KEY_BYTES, KEY_BYTES);
            longTable.decideLong(key, null, 0);
            randomCas.decideLong(key, null, 0);
            longPeer.decideLong(key, boxes[i], 0);
            byteTable.decideString(strings[i], 0); // the string's bytes are the byte key: one table for both rows
            stringPeer.decideString(strings[i], 0);
            if (i < HOT_KEYS)
            {
                hotLongLimiter.tryAcquire(key, 1, 0);
                hotByteLimiter.tryAcquire(keyBytes, i * KEY_BYTES, KEY_BYTES, 1, 0);
            }
        }
        mask = stream.length - 1;
        longKeys = new long[stream.length];
        boxedKeys = new Long[stream.length];
        stringKeys = new String[stream.length];
        byteOffsets = new int[stream.length];
        hotKeys = new long[stream.length];
        hotOffsets = new int[stream.length];
        for (int i = 0; i < stream.length; i++)
        {
            longKeys[i] = KeyStream.longKey(stream[i]);
            boxedKeys[i] = boxes[stream[i]];
            stringKeys[i] = strings[stream[i]];
            byteOffsets[i] = stream[i] * KEY_BYTES;
            hotKeys[i] = KeyStream.longKey(hotStream[i]);
            hotOffsets[i] = hotStream[i] * KEY_BYTES;
        }
        Arrays.fill(batchLengths, KEY_BYTES);
    }

    /**
     * @param args optional round count (default 5).
     */
    public static void main(final String[] args)
    {
        final int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        final PagesCpuTime work = new PagesCpuTime();
        System.out.println(Smaps.report("long-key table", Smaps.tableAddress(work.longLimiter)));
        System.out.println(Smaps.report("byte/string-key table", Smaps.tableAddress(work.byteLimiter)));
        System.out.println(Smaps.report("random-CAS array", work.randomCas.address()));
        System.out.println("process AnonHugePages: " + Smaps.processHugeKb() + " kB");
        final PairedRounds measured = PairedRounds.measure(NAMES.length, 1, rounds, PagesCpuTime::opsOf, work::run);
        final double[] median = new double[NAMES.length];
        for (int w = 0; w < NAMES.length; w++)
        {
            median[w] = measured.median(w);
        }
        measured.printCpuNs(NAMES, 20, 7);
        System.out.printf("ratios: long keyed/randomCas %.2fx, long bucket4j/cellrate %.2fx, string bucket4j/cellrate %.2fx, "
            + "bytes bucket4j/cellrate %.2fx, bytes keyed/randomCas %.2fx%n",
            median[0] / median[1], median[3] / median[0], median[5] / median[4], median[9] / median[6], median[6] / median[7]);
        System.out.printf("batch speed-up: 1M long %.2fx, 1M bytes %.2fx, 1k long %.2fx, 1k bytes %.2fx%n",
            median[10] / median[11], median[12] / median[13], median[14] / median[15], median[16] / median[17]);
        System.out.println("process AnonHugePages at the end: " + Smaps.processHugeKb() + " kB (sink " + (measured.sink() & 1) + ")");
    }

    private static int opsOf(final int workload)
    {
        return workload == 3 || workload == 5 || workload == 9 ? PEER_OPS : OPS;
    }

    private long run(final int workload)
    {
        switch (workload)
        {
            case 0: return longCellrate();
            case 1: return longRandomCas();
            case 2: return longHashOnly();
            case 3: return longBucket4j();
            case 4: return stringCellrate();
            case 5: return stringBucket4j();
            case 6: return bytesCellrate();
            case 7: return bytesRandomCas();
            case 8: return bytesHashOnly();
            case 9: return bytesBucket4j();
            case 10: return single(longLimiter, longKeys);
            case 11: return batch(longLimiter, longKeys);
            case 12: return singleBytes(byteLimiter, byteOffsets);
            case 13: return batchBytes(byteLimiter, byteOffsets);
            case 14: return single(hotLongLimiter, hotKeys);
            case 15: return batch(hotLongLimiter, hotKeys);
            case 16: return singleBytes(hotByteLimiter, hotOffsets);
            default: return batchBytes(hotByteLimiter, hotOffsets);
        }
    }

    // one method per target, each call site bound to one final class (a shared one would be megamorphic)
    private long longCellrate()
    {
        long sink = 0;
        for (int i = 0; i < OPS; i++)
        {
            sink += longTable.decideLong(longKeys[next++ & mask], null, nowNs++);
        }
        return sink;
    }

    private long longRandomCas()
    {
        long sink = 0;
        for (int i = 0; i < OPS; i++)
        {
            sink += randomCas.decideLong(longKeys[next++ & mask], null, nowNs++);
        }
        return sink;
    }

    private long longHashOnly()
    {
        long sink = 0;
        for (int i = 0; i < OPS; i++)
        {
            sink += hashOnly.decideLong(longKeys[next++ & mask], null, nowNs++);
        }
        return sink;
    }

    private long longBucket4j()
    {
        long sink = 0;
        for (int i = 0; i < PEER_OPS; i++)
        {
            final int k = next++ & mask;
            sink += longPeer.decideLong(longKeys[k], boxedKeys[k], nowNs++);
        }
        return sink;
    }

    private long stringCellrate()
    {
        long sink = 0;
        for (int i = 0; i < OPS; i++)
        {
            sink += byteTable.decideString(stringKeys[next++ & mask], nowNs++);
        }
        return sink;
    }

    private long stringBucket4j()
    {
        long sink = 0;
        for (int i = 0; i < PEER_OPS; i++)
        {
            sink += stringPeer.decideString(stringKeys[next++ & mask], nowNs++);
        }
        return sink;
    }

    private long bytesCellrate()
    {
        long sink = 0;
        for (int i = 0; i < OPS; i++)
        {
            sink += byteTable.decideBytes(keyBytes, byteOffsets[next++ & mask], KEY_BYTES, nowNs++);
        }
        return sink;
    }

    private long bytesRandomCas()
    {
        long sink = 0;
        for (int i = 0; i < OPS; i++)
        {
            sink += randomCas.decideBytes(keyBytes, byteOffsets[next++ & mask], KEY_BYTES, nowNs++);
        }
        return sink;
    }

    private long bytesHashOnly()
    {
        long sink = 0;
        for (int i = 0; i < OPS; i++)
        {
            sink += hashOnly.decideBytes(keyBytes, byteOffsets[next++ & mask], KEY_BYTES, nowNs++);
        }
        return sink;
    }

    private long bytesBucket4j()
    {
        long sink = 0;
        for (int i = 0; i < PEER_OPS; i++)
        {
            sink += stringPeer.decideBytes(keyBytes, byteOffsets[next++ & mask], KEY_BYTES, nowNs++);
        }
        return sink;
    }

    private long single(final KeyedRateLimiter limiter, final long[] stream)
    {
        long sink = 0;
        for (int b = 0; b < OPS / BATCH; b++)
        {
            gather(stream);
            final long now = nowNs++;
            for (int i = 0; i < BATCH; i++)
            {
                sink |= limiter.tryAcquire(batchKeys[i], 1, now);
            }
        }
        return sink;
    }

    private long batch(final KeyedRateLimiter limiter, final long[] stream)
    {
        long sink = 0;
        for (int b = 0; b < OPS / BATCH; b++)
        {
            gather(stream);
            limiter.tryAcquire(batchKeys, BATCH, 1, nowNs++, codes);
            sink |= codes[0] | codes[BATCH - 1];
        }
        return sink;
    }

    private long singleBytes(final KeyedRateLimiter limiter, final int[] offsets)
    {
        long sink = 0;
        for (int b = 0; b < OPS / BATCH; b++)
        {
            gatherOffsets(offsets);
            final long now = nowNs++;
            for (int i = 0; i < BATCH; i++)
            {
                sink |= limiter.tryAcquire(keyBytes, batchOffsets[i], KEY_BYTES, 1, now);
            }
        }
        return sink;
    }

    private long batchBytes(final KeyedRateLimiter limiter, final int[] offsets)
    {
        long sink = 0;
        for (int b = 0; b < OPS / BATCH; b++)
        {
            gatherOffsets(offsets);
            limiter.tryAcquire(keyBytes, batchOffsets, batchLengths, BATCH, 1, nowNs++, codes);
            sink |= codes[0] | codes[BATCH - 1];
        }
        return sink;
    }

    private void gather(final long[] stream)
    {
        final int from = next & mask & ~(BATCH - 1);
        next = from + BATCH;
        System.arraycopy(stream, from, batchKeys, 0, BATCH);
    }

    private void gatherOffsets(final int[] offsets)
    {
        final int from = next & mask & ~(BATCH - 1);
        next = from + BATCH;
        System.arraycopy(offsets, from, batchOffsets, 0, BATCH);
    }
}
