package dev.cellrate.bench;

import dev.cellrate.JvmOption;
import dev.cellrate.TestFronts;
import dev.cellrate.layout.CellArray;
import dev.cellrate.ClassedKeyedRateLimiter;
import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.KeyedRateLimiterBuilder;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import dev.cellrate.TableFullPolicy;
import dev.cellrate.ReconfigurableKeyedRateLimiter;
import dev.cellrate.table.SlotTable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Keyed limiters with limit classes or a live limit against the plain one, on tables of the same shape
 * ({@code expectedKeys(keys)} slots and shards of the builder's default): one decision for a long key drawn
 * uniformly from a pre-generated stream over {@code keys} keys, all inserted before measuring, every decision
 * admitted (caller time).
 * <ul>
 *     <li>{@code plain}: {@link KeyedRateLimiter} (one limit, a final field);</li>
 *     <li>{@code classed}: {@link ClassedKeyedRateLimiter} with 4 classes (the class in the slot word's shard
 *     bits, masked lookup, the class's limit from an immutable array read once per decision);</li>
 *     <li>{@code reconfigurable}: {@link ReconfigurableKeyedRateLimiter} (one volatile read of the limit).</li>
 * </ul>
 * Run: {@code java -jar jmh/target/benchmarks.jar ClassedKeyedBenchmark -p keys=1000000 -f 1 -wi 2 -i 3 -w 1s -r 1s}
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = {JvmOption.ADD_EXPORTS, "-Xmx2g"})
@State(Scope.Benchmark)
public class ClassedKeyedBenchmark
{
    @Param({"plain", "classed", "reconfigurable"})
    public String target;

    @Param({"1000", "1000000"})
    public int keys;

    static final int STREAM = 1 << 22;
    static final Limit LIMIT = Limit.ofGcra(1, 1L << 40);

    KeyedRateLimiter plain;
    ClassedKeyedRateLimiter classed;
    ReconfigurableKeyedRateLimiter reconfigurable;
    long[] stream;
    int mode;

    /** Per-thread cursor and caller time. */
    @State(Scope.Thread)
    public static class Cursor
    {
        int next;
        long nowNs = 1;
    }

    @Setup(Level.Trial)
    public void setUp()
    {
        final KeyedRateLimiterBuilder builder = KeyedRateLimiter.builder(LIMIT).expectedKeys(keys).seed(7);
        if (keys < 100_000)
        {
            builder.shardCount(8); // a classed table needs at least 4 shards (the default of small tables is fewer)
        }
        plain = builder.build();
        final SlotTable shaped = TestFronts.tableOf(plain);
        final int slotsPerShard = shaped.slotCount() / shaped.shardCount();
        switch (target)
        {
            case "classed":
                classed = TestFronts.classed(new Limit[] {LIMIT, LIMIT, LIMIT, LIMIT}, key -> (int)(key & 3),
                    new SlotTable(shaped.shardCount(), slotsPerShard, shaped.probeBound(), 1_000_000_000L, 7L,
                        () -> Long.MAX_VALUE), TableFullPolicy.REJECT);
                break;
            case "reconfigurable":
                reconfigurable = TestFronts.reconfigurableKeyed(LIMIT,
                    new SlotTable(shaped.shardCount(), slotsPerShard, shaped.probeBound(), 1_000_000_000L, 7L,
                        () -> Long.MAX_VALUE), TableFullPolicy.REJECT);
                break;
            default:
        }
        mode = "classed".equals(target) ? 1 : "reconfigurable".equals(target) ? 2 : 0;
        stream = new long[STREAM];
        final SplittableRandom random = new SplittableRandom(42);
        for (int i = 0; i < STREAM; i++)
        {
            stream[i] = random.nextInt(keys);
        }
        for (long key = 0; key < keys; key++)
        {
            if (Result.ADMITTED != decide(key, 1))
            {
                throw new IllegalStateException(target + " did not insert key " + key);
            }
        }
    }

    long decide(final long key, final long nowNs)
    {
        switch (mode)
        {
            case 1:
                return classed.tryAcquire(key, 1, nowNs);
            case 2:
                return reconfigurable.tryAcquire(key, 1, nowNs);
            default:
                return plain.tryAcquire(key, 1, nowNs);
        }
    }

    @Benchmark
    public long decision(final Cursor cursor)
    {
        final long key = stream[cursor.next++ & (STREAM - 1)];
        return decide(key, cursor.nowNs++);
    }
}
