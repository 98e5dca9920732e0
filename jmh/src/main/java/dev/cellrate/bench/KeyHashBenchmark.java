package dev.cellrate.bench;

import dev.cellrate.TestFronts;
import java.util.concurrent.TimeUnit;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
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

/**
 * The hash-only baseline of {@link KeyedBenchmark#stringKey}: the key word of a string key
 * ({@link SlotTable#keyWord(CharSequence)}, as the keyed limiter computes it) drawn from the same key stream,
 * without the table access. The difference between the two is the table's share of a keyed decision.
 * <p>
 * Run: {@code java -jar jmh/target/benchmarks.jar KeyHashBenchmark -p keys=1000000}
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = {"--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED"})
@State(Scope.Benchmark)
public class KeyHashBenchmark
{
    @Param({"1000000"})
    public int keys;

    @Param({"uniform"})
    public String distribution;

    SlotTable table;
    String[] stringKeys;
    int mask;

    /**
     * The per-thread stream cursor.
     */
    @State(Scope.Thread)
    public static class Cursor
    {
        int next;

        @Setup(Level.Trial)
        public void setUp()
        {
            next = (int)(Thread.currentThread().getId() * 0x9E3779B9L);
        }
    }

    @Setup(Level.Trial)
    public void setUp()
    {
        table = TestFronts.tableOf(KeyedRateLimiter.builder(Limit.ofGcra(1, 1)).slotCount(1 << 10).shardCount(1).build());
        final int[] stream = KeyStream.indices(keys, distribution, KeyStream.lengthFor(keys), 20_240_601L);
        mask = stream.length - 1;
        final String[] distinct = new String[keys];
        for (int i = 0; i < keys; i++)
        {
            distinct[i] = KeyStream.stringKey(i);
        }
        stringKeys = new String[stream.length];
        for (int i = 0; i < stream.length; i++)
        {
            stringKeys[i] = distinct[stream[i]];
        }
    }

    @Benchmark
    public long stringKeyWord(final Cursor cursor)
    {
        return table.keyWord(stringKeys[cursor.next++ & mask]);
    }
}
