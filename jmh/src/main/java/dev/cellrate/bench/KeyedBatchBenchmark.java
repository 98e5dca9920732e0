package dev.cellrate.bench;

import dev.cellrate.KeyedRateLimiter;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

import java.util.concurrent.TimeUnit;

/**
 * Batched keyed decisions against one call per key, same limiter shape as {@link KeyedBenchmark}'s
 * {@code cellrate} target ({@code expectedKeys(keys)}, every key present, every decision admits): each
 * invocation decides the next {@link #BATCH} keys of the stream at one caller time, either with
 * {@code BATCH} calls of {@code tryAcquire(key, 1, now)} ({@link #single}) or with one
 * {@code tryAcquire(keys, BATCH, 1, now, codes)} ({@link #batch}). Scores are keys decided per µs
 * ({@code @OperationsPerInvocation(BATCH)}), so the two methods compare directly. Both copy the batch's keys
 * out of the stream first (a sequential copy), as a gateway gathers the keys of the requests it read.
 * {@link #singleBytes} and {@link #batchBytes} do the same with byte keys: {@code KeyedBenchmark}'s 16-byte keys
 * side by side in one array (cold at 1 M keys), a batch being 32 offsets into it.
 * <p>
 * The floor of the speed-up a batch can give: {@link #floorSingle} and {@link #floorBatch} do the same 32 keys
 * as 32 random CASes on an off-heap array of the table's footprint ({@link RandomCasTarget}), one key after the
 * other, or with every slot touched by a plain load first and then CASed ({@link RandomCasTarget#casBatch}: the
 * memory-level-parallelism floor). {@code floorBatch ÷ floorSingle} is the speed-up that overlapping the misses
 * gives on this host; {@code batch ÷ single} is cellrate's share of it. A floor fork builds only the array, a
 * cellrate fork only the limiter.
 * <p>
 * Run: {@code java -jar jmh/target/benchmarks.jar KeyedBatchBenchmark -p keys=1000000 -p distribution=uniform -prof gc}
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = {"--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED", "-Xmx4g"})
@State(Scope.Benchmark)
public class KeyedBatchBenchmark
{
    /** Keys per batch: about what an event loop reads in one wake-up under load. */
    public static final int BATCH = 32;

    @Param({"1000", "1000000", "10000000"})
    public int keys;

    @Param({"uniform", "zipf"})
    public String distribution;

    KeyedRateLimiter limiter;
    RandomCasTarget floor;
    long[] stream;
    int mask;
    byte[] keyBytes;
    int[] byteOffsets;

    /**
     * The per-thread cursor, caller time and the batch's key and code arrays.
     */
    @State(Scope.Thread)
    public static class Cursor
    {
        int next;
        long nowNs;
        final long[] batchKeys = new long[BATCH];
        final long[] codes = new long[BATCH];
        final long[] addresses = new long[BATCH];
        final int[] batchOffsets = new int[BATCH];
        final int[] batchLengths = new int[BATCH];

        @Setup(Level.Trial)
        public void setUp()
        {
            next = (int)(Thread.currentThread().getId() * 0x9E3779B9L) & ~(BATCH - 1);
            java.util.Arrays.fill(batchLengths, KeyedBenchmark.KEY_BYTES);
        }
    }

    @Setup(Level.Trial)
    public void setUp(final BenchmarkParams params)
    {
        final int[] indices = KeyStream.indices(keys, distribution, KeyStream.lengthFor(keys), 20_240_601L);
        mask = indices.length - 1;
        if (params.getBenchmark().contains(".floor"))
        {
            floor = new RandomCasTarget(keys);
            stream = new long[indices.length];
            for (int i = 0; i < keys; i++)
            {
                floor.decideLong(KeyStream.longKey(i), null, 0);
            }
            for (int i = 0; i < indices.length; i++)
            {
                stream[i] = KeyStream.longKey(indices[i]);
            }
            return;
        }
        limiter = KeyedRateLimiter.builder(SingleLimiterBenchmark.CELLRATE_ADMIT).expectedKeys(keys).build();
        if (params.getBenchmark().endsWith("Bytes"))
        {
            final int length = KeyedBenchmark.KEY_BYTES;
            keyBytes = new byte[keys * length];
            for (int i = 0; i < keys; i++)
            {
                final byte[] key = KeyStream.stringKey(i).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
                System.arraycopy(key, 0, keyBytes, i * length, length);
                limiter.tryAcquire(keyBytes, i * length, length, 1, 0);
            }
            byteOffsets = new int[indices.length];
            for (int i = 0; i < indices.length; i++)
            {
                byteOffsets[i] = indices[i] * length;
            }
            return;
        }
        for (int i = 0; i < keys; i++)
        {
            limiter.tryAcquire(KeyStream.longKey(i), 1, 0);
        }
        stream = new long[indices.length];
        for (int i = 0; i < indices.length; i++)
        {
            stream[i] = KeyStream.longKey(indices[i]);
        }
    }

    /**
     * Read once, when the class loads: the trial teardown runs inside the last measured iteration, where loading
     * {@link Smaps} would count as allocation of the benchmark (0.02 B/op on that iteration, seen in the headline).
     */
    private static final boolean PRINT_PAGES = Smaps.wanted();

    /**
     * With {@code -Dcellrate.bench.smaps=true}: print the smaps line of the table (see {@link KeyedBenchmark}).
     */
    @TearDown(Level.Trial)
    public void printPages()
    {
        if (PRINT_PAGES)
        {
            System.out.println();
            System.out.println(null == floor ? Smaps.report("smaps: cellrate table", Smaps.tableAddress(limiter))
                : Smaps.report("smaps: random-CAS floor", floor.address()));
            System.out.println("smaps: process AnonHugePages " + Smaps.processHugeKb() + " kB");
        }
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long single(final Cursor cursor)
    {
        final long[] batchKeys = gather(cursor);
        final long nowNs = cursor.nowNs++;
        long codes = 0;
        for (int i = 0; i < BATCH; i++)
        {
            codes |= limiter.tryAcquire(batchKeys[i], 1, nowNs);
        }
        return codes;
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long batch(final Cursor cursor)
    {
        final long[] batchKeys = gather(cursor);
        final long[] codes = cursor.codes;
        limiter.tryAcquire(batchKeys, BATCH, 1, cursor.nowNs++, codes);
        return codes[0] | codes[BATCH - 1];
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long singleBytes(final Cursor cursor)
    {
        final int[] offsets = gatherOffsets(cursor);
        final long nowNs = cursor.nowNs++;
        long codes = 0;
        for (int i = 0; i < BATCH; i++)
        {
            codes |= limiter.tryAcquire(keyBytes, offsets[i], KeyedBenchmark.KEY_BYTES, 1, nowNs);
        }
        return codes;
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long batchBytes(final Cursor cursor)
    {
        final int[] offsets = gatherOffsets(cursor);
        final long[] codes = cursor.codes;
        limiter.tryAcquire(keyBytes, offsets, cursor.batchLengths, BATCH, 1, cursor.nowNs++, codes);
        return codes[0] | codes[BATCH - 1];
    }

    /**
     * The floor of {@link #single}: the same keys, one random CAS each, one after the other.
     */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long floorSingle(final Cursor cursor)
    {
        return floor.casEach(gather(cursor), BATCH, cursor.nowNs++);
    }

    /**
     * The floor of {@link #batch}: the same random CASes, every slot touched first ({@link RandomCasTarget#casBatch}).
     */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long floorBatch(final Cursor cursor)
    {
        return floor.casBatch(gather(cursor), BATCH, cursor.nowNs++, cursor.addresses);
    }

    private int[] gatherOffsets(final Cursor cursor)
    {
        final int from = cursor.next & mask;
        cursor.next = from + BATCH;
        System.arraycopy(byteOffsets, from, cursor.batchOffsets, 0, BATCH);
        return cursor.batchOffsets;
    }

    private long[] gather(final Cursor cursor)
    {
        final int from = cursor.next & mask;
        cursor.next = from + BATCH;
        System.arraycopy(stream, from, cursor.batchKeys, 0, BATCH);
        return cursor.batchKeys;
    }
}
