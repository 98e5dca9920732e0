package dev.cellrate.bench;

import dev.cellrate.JvmOption;
import dev.cellrate.layout.CellArray;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

import java.util.concurrent.TimeUnit;

/**
 * Keyed limiters: one decision for a key drawn from a pre-generated stream (uniform or Zipf over
 * {@code keys} distinct keys), long keys ({@link #longKey}), string keys ({@link #stringKey}) and byte keys
 * ({@link #bytesKey}: the string keys' 16 ASCII bytes, side by side in one array, as parsed into a buffer).
 * <p>
 * {@code target}:
 * <ul>
 *     <li>{@code cellrate}: {@link dev.cellrate.KeyedRateLimiter} sized with {@code expectedKeys(keys)}
 *     ({@link CellrateKeyedTarget});</li>
 *     <li>{@code cellrateMapped}: the same limiter with {@code mappedFile}: its table in a file in a temporary
 *     directory, mapped shared ({@link CellrateKeyedTarget#mapped});</li>
 *     <li>{@code cellrateShaper}: {@link dev.cellrate.KeyedShaper} {@code reserve} in delay mode on a table
 *     of the same shape ({@link CellrateKeyedShaperTarget});</li>
 *     <li>{@code randomCas}: the baseline, one random CAS on an off-heap array of a table's footprint
 *     ({@link RandomCasTarget});</li>
 *     <li>{@code bucket4jMap}: Bucket4j buckets in a {@code ConcurrentHashMap} with {@code computeIfAbsent}
 *     ({@link Bucket4jMapTarget});</li>
 *     <li>{@code bucket4jCaffeine}: Bucket4j buckets in a Caffeine cache with {@code expireAfterAccess}
 *     ({@link Bucket4jCaffeineTarget}).</li>
 * </ul>
 * Every key is inserted before measuring; every decision admits (cellrate with caller time, the peers with
 * their own clocks). The stream is read in order with {@code & mask}: drawing a key costs one sequential
 * read. The forks get a 12 GB heap because the peers need about 330 B (Bucket4j + map) to 450 B
 * (+ Caffeine) per key, i.e. several GB at 10 million keys.
 * <p>
 * Run: {@code java -jar jmh/target/benchmarks.jar KeyedBenchmark -p keys=1000000 -p distribution=uniform -prof gc}
 * (add {@code -t 2} for two threads).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = {JvmOption.ADD_EXPORTS, "-Xmx12g"})
@State(Scope.Benchmark)
public class KeyedBenchmark
{
    @Param({"cellrate", "cellrateMapped", "cellrateShaper", "randomCas", "hashOnly", "bucket4jMap", "bucket4jCaffeine"})
    public String target;

    @Param({"1000", "1000000", "10000000"})
    public int keys;

    @Param({"uniform", "zipf"})
    public String distribution;

    /** Bytes of every byte key: the 16 ASCII bytes of the string key of the same index. */
    static final int KEY_BYTES = 16;

    KeyedTarget keyed;
    long[] longKeys;
    Long[] boxedKeys;
    String[] stringKeys;
    byte[] keyBytes;
    int[] byteOffsets;
    int mask;

    /**
     * The per-thread stream cursor and caller time.
     */
    @State(Scope.Thread)
    public static class Cursor
    {
        int next;
        long nowNs;

        @Setup(Level.Trial)
        public void setUp()
        {
            next = (int)(Thread.currentThread().getId() * 0x9E3779B9L);
        }
    }

    @Setup(Level.Trial)
    public void setUp(final BenchmarkParams params)
    {
        keyed = newTarget(target, keys);
        final boolean strings = params.getBenchmark().endsWith("stringKey");
        final boolean bytes = params.getBenchmark().endsWith("bytesKey");
        final int[] stream = KeyStream.indices(keys, distribution, KeyStream.lengthFor(keys), 20_240_601L);
        mask = stream.length - 1;
        if (bytes)
        {
            // every distinct key's 16 bytes side by side in one array (as keys parsed into a buffer); the stream
            // holds offsets into it
            keyBytes = new byte[keys * KEY_BYTES];
            for (int i = 0; i < keys; i++)
            {
                final byte[] key = KeyStream.stringKey(i).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
                System.arraycopy(key, 0, keyBytes, i * KEY_BYTES, KEY_BYTES);
                keyed.decideBytes(keyBytes, i * KEY_BYTES, KEY_BYTES, 0);
            }
            byteOffsets = new int[stream.length];
            for (int i = 0; i < stream.length; i++)
            {
                byteOffsets[i] = stream[i] * KEY_BYTES;
            }
        }
        else if (strings)
        {
            final String[] distinct = new String[keys];
            for (int i = 0; i < keys; i++)
            {
                distinct[i] = KeyStream.stringKey(i);
                keyed.decideString(distinct[i], 0);
            }
            stringKeys = new String[stream.length];
            for (int i = 0; i < stream.length; i++)
            {
                stringKeys[i] = distinct[stream[i]];
            }
        }
        else
        {
            final Long[] distinct = keyed.wantsBoxedKeys() ? new Long[keys] : null;
            for (int i = 0; i < keys; i++)
            {
                final long key = KeyStream.longKey(i);
                if (null != distinct)
                {
                    distinct[i] = key;
                }
                keyed.decideLong(key, null == distinct ? null : distinct[i], 0);
            }
            longKeys = new long[stream.length];
            boxedKeys = null == distinct ? null : new Long[stream.length];
            for (int i = 0; i < stream.length; i++)
            {
                longKeys[i] = KeyStream.longKey(stream[i]);
                if (null != boxedKeys)
                {
                    boxedKeys[i] = distinct[stream[i]];
                }
            }
        }
    }

    /**
     * Read once, when the class loads: the trial teardown runs inside the last measured iteration, where loading
     * {@link Smaps} would count as allocation of the benchmark (0.02 B/op on that iteration, seen in the headline).
     */
    private static final boolean PRINT_PAGES = Smaps.wanted();

    /**
     * With {@code -Dcellrate.bench.smaps=true} (e.g. {@code HUGE_PAGES=1 jmh/headline.sh}): print the smaps line of
     * the target's off-heap memory (AnonHugePages: how much of it is on 2 MB pages) and the process's total.
     */
    @TearDown(Level.Trial)
    public void printPages()
    {
        if (PRINT_PAGES)
        {
            final long address = keyed.offHeapAddress();
            System.out.println();
            System.out.println(address == 0 ? "smaps: " + target + " holds no off-heap memory"
                : Smaps.report("smaps: " + target + " off-heap", address));
            System.out.println("smaps: process AnonHugePages " + Smaps.processHugeKb() + " kB");
        }
    }

    static KeyedTarget newTarget(final String target, final int keys)
    {
        switch (target)
        {
            case "cellrate":
                return new CellrateKeyedTarget(keys);
            case "cellrateMapped":
                return CellrateKeyedTarget.mapped(keys);
            case "cellrateShaper":
                return new CellrateKeyedShaperTarget(keys);
            case "randomCas":
                return new RandomCasTarget(keys);
            case "hashOnly":
                return new HashOnlyTarget();
            case "bucket4jMap":
                return new Bucket4jMapTarget(keys);
            case "bucket4jCaffeine":
                return new Bucket4jCaffeineTarget(keys);
            default:
                throw new IllegalArgumentException("unknown target " + target);
        }
    }

    @Benchmark
    public long longKey(final Cursor cursor)
    {
        final int i = cursor.next++ & mask;
        return keyed.decideLong(longKeys[i], null == boxedKeys ? null : boxedKeys[i], cursor.nowNs++);
    }

    @Benchmark
    public long stringKey(final Cursor cursor)
    {
        return keyed.decideString(stringKeys[cursor.next++ & mask], cursor.nowNs++);
    }

    @Benchmark
    public long bytesKey(final Cursor cursor)
    {
        return keyed.decideBytes(keyBytes, byteOffsets[cursor.next++ & mask], KEY_BYTES, cursor.nowNs++);
    }
}
