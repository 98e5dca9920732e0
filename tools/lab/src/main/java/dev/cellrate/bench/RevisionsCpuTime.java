package dev.cellrate.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.LongUnaryOperator;

/**
 * Before and after in one JVM: the keyed rows of the headline ({@link RevisionWorkload}: long keys, string keys,
 * the batch of 32 and its one-call-per-key row) over the engines of two or more builds at once, each build's
 * classes in a class loader of their own, timed in CPU time of the measuring thread and alternated within every
 * round, with the order of the builds rotated from round to round. A slow patch of a crowded machine then hits
 * every build alike, so a few per cent between builds can be told apart where separate JMH runs drift by more.
 * The same {@link RevisionWorkload} bytecode is defined over each build, so it must use only API every build has.
 * <p>
 * Run: {@code java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp tools/lab/target/lab.jar
 * dev.cellrate.bench.RevisionsCpuTime ROUNDS KEYS KINDS NAME=CLASSPATH NAME=CLASSPATH ...}, e.g. {@code 9 1000000
 * string,batch old=/tmp/a.jar new=engine/target/classes:agrona.jar:jctools.jar} (a classpath holds the engine
 * and its two dependencies; a {@code jmh/target/benchmarks.jar} holds all three; {@code tools/lab/ab-cpu.sh} compiles
 * them by git revision). Prints, per kind, each build's median CPU ns per key with its range and its cost
 * relative to the first build, and the median of the per-round ratios (each round's pair measured minutes apart
 * at most).
 */
public final class RevisionsCpuTime
{
    private static final long OPS = 2_000_000;
    private static final int WARMUPS = 2;

    private RevisionsCpuTime()
    {
    }

    /**
     * @param args rounds, key count, comma-separated kinds, then {@code name=classpath} per build (one or more).
     * @throws Exception if a build cannot be loaded.
     */
    public static void main(final String[] args) throws Exception
    {
        if (args.length < 4)
        {
            System.err.println("usage: RevisionsCpuTime ROUNDS KEYS KINDS NAME=CLASSPATH [NAME=CLASSPATH ...]");
            System.exit(2);
        }
        final int rounds = Integer.parseInt(args[0]);
        final int keyCount = Integer.parseInt(args[1]);
        final String[] kinds = args[2].split(",");
        final int builds = args.length - 3;
        final String[] names = new String[builds];
        final ClassLoader[] loaders = new ClassLoader[builds];
        final byte[] workloadBytes = classBytes(RevisionWorkload.class);
        for (int b = 0; b < builds; b++)
        {
            final String spec = args[3 + b];
            final int eq = spec.indexOf('=');
            names[b] = spec.substring(0, eq);
            loaders[b] = new WorkloadLoader(urls(spec.substring(eq + 1)), workloadBytes);
        }

        final long[] distinctLong = new long[keyCount];
        final String[] distinctText = new String[keyCount];
        for (int i = 0; i < keyCount; i++)
        {
            distinctLong[i] = (i + 1L) * 0x9E3779B97F4A7C15L;
            distinctText[i] = String.format("client-%09d", i);
        }
        final int length = Integer.highestOneBit(Math.max(keyCount, 1 << 20) - 1) << 1;
        final SplittableRandom random = new SplittableRandom(20_240_601L);
        final int[] stream = new int[length];
        for (int i = 0; i < length; i++)
        {
            stream[i] = random.nextInt(keyCount);
        }

        final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long sink = 0;
        for (final String kind : kinds)
        {
            final LongUnaryOperator[] work = new LongUnaryOperator[builds];
            for (int b = 0; b < builds; b++)
            {
                work[b] = (LongUnaryOperator)loaders[b].loadClass(RevisionWorkload.class.getName())
                    .getConstructor(String.class, int.class, long[].class, String[].class, int[].class)
                    .newInstance(kind, keyCount, distinctLong, distinctText, stream);
            }
            final double[][] ns = new double[builds][rounds];
            for (int round = -WARMUPS; round < rounds; round++)
            {
                final int first = Math.floorMod(round, builds);
                for (int k = 0; k < builds; k++)
                {
                    final int b = (first + k) % builds;
                    final long start = threads.getCurrentThreadCpuTime();
                    sink += work[b].applyAsLong(OPS);
                    final double perKey = (threads.getCurrentThreadCpuTime() - start) / (double)OPS;
                    if (round >= 0)
                    {
                        ns[b][round] = perKey;
                    }
                }
            }
            System.out.printf("%s, %d keys, %d rounds (CPU ns per key):%n", kind, keyCount, rounds);
            for (int b = 0; b < builds; b++)
            {
                final double[] sorted = ns[b].clone();
                Arrays.sort(sorted);
                final double[] ratios = new double[rounds];
                for (int r = 0; r < rounds; r++)
                {
                    ratios[r] = ns[b][r] / ns[0][r];
                }
                Arrays.sort(ratios);
                System.out.printf("  %-12s %7.2f (%.2f-%.2f)  cost ÷ %s: medians %.3f, per round %.3f (%.3f-%.3f)%n",
                    names[b], sorted[rounds / 2], sorted[0], sorted[rounds - 1], names[0],
                    sorted[rounds / 2] / median(ns[0]), ratios[rounds / 2], ratios[0], ratios[rounds - 1]);
            }
        }
        System.out.println("(sink " + (sink & 1) + ")");
    }

    private static double median(final double[] values)
    {
        final double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    private static URL[] urls(final String classpath) throws MalformedURLException
    {
        final List<URL> urls = new ArrayList<>();
        for (final String entry : classpath.split(":"))
        {
            if (!entry.isEmpty())
            {
                urls.add(Path.of(entry).toUri().toURL());
            }
        }
        return urls.toArray(new URL[0]);
    }

    private static byte[] classBytes(final Class<?> type)
    {
        final String resource = type.getName().replace('.', '/') + ".class";
        try (InputStream in = type.getClassLoader().getResourceAsStream(resource))
        {
            return in.readAllBytes();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * A build's classes (parent: the platform loader, so nothing of this JVM's class path leaks in) plus the
     * workload's bytecode, defined here over them.
     */
    private static final class WorkloadLoader extends URLClassLoader
    {
        private final byte[] workloadBytes;

        WorkloadLoader(final URL[] urls, final byte[] workloadBytes)
        {
            super(urls, ClassLoader.getPlatformClassLoader());
            this.workloadBytes = workloadBytes;
        }

        @Override
        protected Class<?> loadClass(final String name, final boolean resolve) throws ClassNotFoundException
        {
            synchronized (getClassLoadingLock(name))
            {
                if (RevisionWorkload.class.getName().equals(name))
                {
                    Class<?> found = findLoadedClass(name);
                    if (null == found)
                    {
                        found = defineClass(name, workloadBytes, 0, workloadBytes.length);
                    }
                    return found;
                }
                return super.loadClass(name, resolve);
            }
        }
    }
}
