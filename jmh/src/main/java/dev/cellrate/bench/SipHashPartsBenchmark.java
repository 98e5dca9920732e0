package dev.cellrate.bench;

import dev.cellrate.hash.SipHash;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The exported keyed hash on a key made of three strings, as the Envoy rate limit service hashes a descriptor
 * (domain, entry key, entry value): {@code parts} feeds them to a reused {@link SipHash.Parts}; {@code joined}
 * hashes one prebuilt string holding the same bytes the parts feed (each part followed by its 4-byte length),
 * the one-shot floor of the same input. Values cycle through 1,024 distinct client addresses.
 * <p>
 * Run: {@code java -jar jmh/target/benchmarks.jar SipHashPartsBenchmark}
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = {"--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED"})
@State(Scope.Thread)
public class SipHashPartsBenchmark
{
    private static final int MASK = 1023;
    private static final String DOMAIN = "edge-proxy";
    private static final String KEY = "remote_address";

    SipHash sip;
    SipHash.Parts parts;
    String[] values;
    String[] joined;
    int next;

    @Setup(Level.Trial)
    public void setUp()
    {
        sip = new SipHash(0x0123456789abcdefL, 0xfedcba9876543210L);
        parts = sip.parts();
        values = new String[MASK + 1];
        joined = new String[MASK + 1];
        for (int i = 0; i <= MASK; i++)
        {
            values[i] = "10." + (i >>> 8) + "." + (i & 0xFF) + ".17";
            joined[i] = framed(DOMAIN) + framed(KEY) + framed(values[i]);
            if (sip.hash(joined[i]) != parts.add(DOMAIN).add(KEY).add(values[i]).finish())
            {
                throw new IllegalStateException("the joined string is not the parts' input");
            }
        }
    }

    /** A part as the hasher frames it: its bytes (ASCII here), then its length as 4 little-endian bytes. */
    private static String framed(final String part)
    {
        final int n = part.getBytes(StandardCharsets.UTF_8).length;
        return part + (char)(n & 0xFF) + (char)((n >>> 8) & 0xFF) + (char)((n >>> 16) & 0xFF) + (char)(n >>> 24);
    }

    @Benchmark
    public long parts()
    {
        return parts.add(DOMAIN).add(KEY).add(values[next++ & MASK]).finish();
    }

    @Benchmark
    public long joined()
    {
        return sip.hash(joined[next++ & MASK]);
    }
}
