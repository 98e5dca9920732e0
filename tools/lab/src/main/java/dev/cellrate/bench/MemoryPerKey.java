package dev.cellrate.bench;

import org.openjdk.jol.info.GraphLayout;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.Locale;

/**
 * Measures (does not estimate) the bytes per key of each keyed target holding {@code keys} long keys
 * (default 1,000,000): heap used after full collections before and after building it (MemoryMXBean), plus the
 * direct (off-heap) bytes it allocated (the "direct" BufferPoolMXBean). Keys are boxed at insertion, as a
 * caller of a map-based limiter does, so the map's key objects count. With {@code --jol} it also walks the
 * heap graph with JOL's {@code GraphLayout} as a cross-check (slow for the peers).
 * <p>
 * Run: {@code java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp tools/lab/target/lab.jar
 * dev.cellrate.bench.MemoryPerKey [keys] [target ...] [--jol]} (targets: cellrate, randomCas, bucket4jMap,
 * bucket4jCaffeine; default all), e.g. {@code MemoryPerKey 100000000 cellrate}.
 */
public final class MemoryPerKey
{
    private static final String[] TARGETS = {"cellrate", "randomCas", "bucket4jMap", "bucket4jCaffeine"};

    private MemoryPerKey()
    {
    }

    public static void main(final String[] args)
    {
        int keys = 1_000_000;
        boolean jol = false;
        final java.util.List<String> only = new java.util.ArrayList<>();
        for (final String arg : args)
        {
            if ("--jol".equals(arg))
            {
                jol = true;
            }
            else if (java.util.Arrays.asList(TARGETS).contains(arg))
            {
                only.add(arg);
            }
            else
            {
                keys = Integer.parseInt(arg.replace("_", "").replace(",", ""));
            }
        }
        System.out.printf(Locale.ROOT, "Memory per key, %,d long keys, every key inserted once%n", keys);
        final String format = "  %-18s %14s %14s %12s %12s%n";
        System.out.printf(format, "target", "heap bytes", "off-heap bytes", "bytes/key", jol ? "JOL B/key" : "");
        // One throw-away instance of each target first: class initialisation (SecureRandom's providers, the
        // peers' classes) leaves static heap behind once per JVM, which is not memory per key.
        for (final String target : TARGETS)
        {
            KeyedBenchmark.newTarget(target, 1).decideLong(KeyStream.longKey(0), KeyStream.longKey(0), 0);
        }
        // and one silent pass of the measurement itself (10,000 keys, printed nowhere): one-time JVM costs
        // (class loading, the MXBean look-ups, JIT) leave ~25-30 KB of heap behind in the first target measured
        final java.io.PrintStream out = System.out;
        System.setOut(new java.io.PrintStream(java.io.OutputStream.nullOutputStream()));
        final java.util.List<KeyedTarget> warmUp = new java.util.ArrayList<>(); // kept reachable: a freed warm-up
        for (final String target : TARGETS)                                  // buffer would lower a later delta
        {
            warmUp.add(measure(target, Math.min(keys, 10_000), false, format));
        }
        System.setOut(out);
        final java.util.List<KeyedTarget> alive = new java.util.ArrayList<>();
        for (final String target : only.isEmpty() ? java.util.Arrays.asList(TARGETS) : only)
        {
            alive.add(measure(target, keys, jol, format));
        }
        java.lang.ref.Reference.reachabilityFence(warmUp);
        System.out.println("  (cellrate: KeyedRateLimiter with expectedKeys(keys); randomCas: the benchmark's baseline array of the");
        System.out.println("   same slot count; the peers hold one Bucket4j bucket and one boxed Long key per key)");
    }

    /**
     * Build one target and print its footprint. The caller keeps every measured target reachable until the
     * end, so no earlier target's memory is freed (and subtracted) while a later one is measured.
     */
    private static KeyedTarget measure(final String target, final int keys, final boolean jol, final String format)
    {
        final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        final long heapBefore = settledHeapUsed(memory);
        final long directBefore = directUsed();
        final KeyedTarget keyed = KeyedBenchmark.newTarget(target, keys);
        for (int i = 0; i < keys; i++)
        {
            final long key = KeyStream.longKey(i);
            keyed.decideLong(key, keyed.wantsBoxedKeys() ? Long.valueOf(key) : null, 0);
        }
        final long heapBytes = settledHeapUsed(memory) - heapBefore;
        final long offHeapBytes = directUsed() - directBefore;
        final String jolPerKey = jol ? jolPerKey(keyed, offHeapBytes, keys) : "";
        System.out.printf(Locale.ROOT, format, target, String.format(Locale.ROOT, "%,d", heapBytes),
            String.format(Locale.ROOT, "%,d", offHeapBytes),
            String.format(Locale.ROOT, "%.1f", (heapBytes + offHeapBytes) / (double)keys), jolPerKey);
        return keyed;
    }

    private static String jolPerKey(final KeyedTarget keyed, final long offHeapBytes, final int keys)
    {
        try
        {
            return String.format(Locale.ROOT, "%.1f",
                (GraphLayout.parseInstance(keyed).totalSize() + offHeapBytes) / (double)keys);
        }
        catch (final RuntimeException ex)
        {
            return "n/a"; // e.g. Caffeine's hidden-class lambdas, whose field offsets JOL cannot read
        }
    }

    private static long settledHeapUsed(final MemoryMXBean memory)
    {
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 4; i++)
        {
            System.gc();
            used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
        }
        return used;
    }

    private static long directUsed()
    {
        for (final BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class))
        {
            if ("direct".equals(pool.getName()))
            {
                return pool.getMemoryUsed();
            }
        }
        return 0;
    }
}
