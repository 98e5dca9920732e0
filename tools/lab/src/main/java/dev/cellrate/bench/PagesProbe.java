package dev.cellrate.bench;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;

import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Random memory access on two regions of the same size in <em>one</em> JVM, alternating, in CPU time of the
 * thread: an anonymous malloc'd direct buffer (what a cellrate table is; on 2 MB pages when the JVM runs with
 * {@code GLIBC_TUNABLES=glibc.malloc.hugetlb=1}) and a {@code /dev/shm} file mapped into memory (shared memory:
 * 4 KB pages here, {@code shmem_enabled} is {@code never}). Pairing both in one JVM takes the JVM-to-JVM
 * differences (where each region lands, the compilation) out of the comparison of the pages; a run without the
 * tunable is the control (both regions on 4 KB pages). Per region, per round:
 * <ul>
 *     <li>{@code load}: independent random 8-byte loads (the core overlaps their misses: what the batch's touch
 *     pass does);</li>
 *     <li>{@code chase}: random loads whose address depends on the previous load's value (one miss at a time:
 *     the latency of one access, page walk included);</li>
 *     <li>{@code cas}: an acquire load and a CAS of a random word (the random-CAS baseline's access).</li>
 * </ul>
 * Run: {@code GLIBC_TUNABLES=glibc.malloc.hugetlb=1 java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp
 * tools/lab/target/lab.jar dev.cellrate.bench.PagesProbe [rounds] [MB]}. Setup allocates; the loops do not.
 */
public final class PagesProbe
{
    private static final int OPS = 4_000_000;
    private static final int OFFSETS = 1 << 22;

    private PagesProbe()
    {
    }

    /**
     * @param args optional round count (default 8) and region size in MB (default 21, a 1 M-key table).
     * @throws IOException if the /dev/shm file cannot be made.
     */
    public static void main(final String[] args) throws IOException
    {
        final int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 8;
        final int mb = args.length > 1 ? Integer.parseInt(args[1]) : 21;
        final int bytes = mb << 20;
        final UnsafeBuffer anon = new UnsafeBuffer(BufferUtil.allocateDirectAligned(bytes, 64));
        final Path file = Files.createTempFile(Paths.get("/dev/shm"), "cellrate-pages", ".bin");
        final UnsafeBuffer shm;
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw"))
        {
            raf.setLength(bytes);
            final ByteBuffer mapped = raf.getChannel().map(FileChannel.MapMode.READ_WRITE, 0, bytes);
            shm = new UnsafeBuffer(mapped);
        }
        finally
        {
            Files.deleteIfExists(file);
        }
        anon.setMemory(0, bytes, (byte)0);
        shm.setMemory(0, bytes, (byte)0);
        System.out.println(Smaps.report("anon (malloc)", anon.addressOffset()));
        System.out.println(Smaps.report("shm (/dev/shm)", shm.addressOffset()));
        final int[] offsets = new int[OFFSETS];
        long x = 0x9E3779B97F4A7C15L;
        for (int i = 0; i < OFFSETS; i++)
        {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            offsets[i] = (int)(((x >>> 1) % (bytes / 8)) * 8);
        }
        final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        final String[] names = {"anon load", "shm load", "anon chase", "shm chase", "anon cas", "shm cas"};
        final double[][] ns = new double[names.length][rounds];
        long sink = 0;
        for (int round = -1; round < rounds; round++)
        {
            for (int w = 0; w < names.length; w++)
            {
                // alternate the order of the two regions from round to round
                final int v = (round & 1) == 0 ? w : w ^ 1;
                final UnsafeBuffer region = (v & 1) == 0 ? anon : shm;
                final long start = threads.getCurrentThreadCpuTime();
                switch (v >> 1)
                {
                    case 0:
                        sink += load(region, offsets);
                        break;
                    case 1:
                        sink += chase(region, offsets);
                        break;
                    default:
                        sink += cas(region, offsets);
                        break;
                }
                if (round >= 0)
                {
                    ns[v][round] = (threads.getCurrentThreadCpuTime() - start) / (double)OPS;
                }
            }
        }
        for (int w = 0; w < names.length; w++)
        {
            final double[] sorted = ns[w].clone();
            Arrays.sort(sorted);
            System.out.printf("%-11s %6.1f cpu-ns/op (%.1f-%.1f, %d rounds)%n", names[w], sorted[rounds / 2], sorted[0],
                sorted[rounds - 1], rounds);
        }
        final double[] ratio = new double[3];
        for (int k = 0; k < 3; k++)
        {
            final double[] r = new double[rounds];
            for (int i = 0; i < rounds; i++)
            {
                r[i] = ns[2 * k + 1][i] / ns[2 * k][i];
            }
            Arrays.sort(r);
            ratio[k] = r[rounds / 2];
        }
        System.out.printf("shm / anon, per round, median: load %.2fx, chase %.2fx, cas %.2fx (sink %d)%n",
            ratio[0], ratio[1], ratio[2], sink & 1);
    }

    private static long load(final UnsafeBuffer region, final int[] offsets)
    {
        long sum = 0;
        for (int i = 0; i < OPS; i++)
        {
            sum += region.getLong(offsets[i & (OFFSETS - 1)]);
        }
        return sum;
    }

    private static long chase(final UnsafeBuffer region, final int[] offsets)
    {
        long v = 0;
        for (int i = 0; i < OPS; i++)
        {
            // the memory is zero, so the address is offsets[i]; but the core cannot know that before the load
            v = region.getLong(offsets[(i + (int)v) & (OFFSETS - 1)]);
        }
        return v;
    }

    private static long cas(final UnsafeBuffer region, final int[] offsets)
    {
        long sum = 0;
        for (int i = 0; i < OPS; i++)
        {
            final int offset = offsets[i & (OFFSETS - 1)];
            final long old = region.getLongAcquire(offset);
            sum += region.compareAndExchangeLong(offset, old, old + 1) == old ? 0 : 1;
        }
        return sum;
    }
}
