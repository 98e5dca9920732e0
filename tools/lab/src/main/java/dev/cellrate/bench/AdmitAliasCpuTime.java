package dev.cellrate.bench;

import dev.cellrate.Limit;
import dev.cellrate.RateLimiter;

import java.lang.reflect.Field;
import java.util.concurrent.atomic.AtomicLong;

import org.agrona.UnsafeApi;

/**
 * Whether the place of the caller's time relative to the word the decision loads changes the admit's cost: the
 * store of the caller time ({@code nowNs++}) comes just before the load of the cell, and a core that matches a load
 * against earlier stores on the low 12 address bits (4K aliasing) holds the load back when both words share them.
 * The caller time lives in a {@code long[]} of 4 pages; each workload stores into the element whose address lies
 * {@code d} bytes after the loaded word's address mod 4096, the same compiled loop for every {@code d} (the index
 * is an argument), alternated in paired rounds in CPU time:
 * <ul>
 *     <li>{@code engine d}: {@code RateLimiter.tryAcquire(1, times[i]++)}, the word loaded being the off-heap
 *     cell;</li>
 *     <li>{@code floor d}: {@code times[i]++}, then {@code AtomicLong.get()} and {@code compareAndExchange(v, v +
 *     1)}, the word loaded being the {@code AtomicLong}'s value.</li>
 * </ul>
 * Each line gives the median CPU ns per decision and its ratio to the same side's {@code d = 2048} (the farthest
 * placement) in the same rounds.
 * <p>
 * Run: {@code java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp tools/lab/target/lab.jar
 * dev.cellrate.bench.AdmitAliasCpuTime [rounds]}.
 */
public final class AdmitAliasCpuTime
{
    private static final int OPS = 4_000_000;
    private static final Limit LIMIT = SingleLimiterBenchmark.CELLRATE_ADMIT;
    /** Bytes from the loaded word (mod 4096) to the stored caller time; the last is the reference. */
    private static final int[] DISTANCES = {0, 8, 64, 256, 2048};

    private final RateLimiter engine = new RateLimiter(LIMIT);
    private final AtomicLong counter = new AtomicLong();
    private final long[] times = new long[4 * 4096 / 8];
    private final int[] engineIndex = new int[DISTANCES.length];
    private final int[] floorIndex = new int[DISTANCES.length];

    private AdmitAliasCpuTime()
    {
    }

    /**
     * @param args optional round count (default 11).
     * @throws ReflectiveOperationException if the cell's address cannot be read.
     */
    public static void main(final String[] args) throws ReflectiveOperationException
    {
        final int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 11;
        final AdmitAliasCpuTime work = new AdmitAliasCpuTime();
        final Field tat = RateLimiter.class.getDeclaredField("tatAddress");
        tat.setAccessible(true);
        final long cell = (long)tat.get(work.engine);
        final int n = DISTANCES.length;
        final PairedRounds measured = PairedRounds.measure(2 * n, 3, rounds, w -> OPS, w ->
        {
            // placed again before every run: nothing here allocates, but a collection may move the array
            work.place(cell);
            return w < n ? work.engine(work.engineIndex[w]) : work.floor(work.floorIndex[w - n]);
        });
        for (int w = 0; w < 2 * n; w++)
        {
            final int reference = w < n ? n - 1 : 2 * n - 1;
            final double[] ratio = new double[rounds];
            for (int r = 0; r < rounds; r++)
            {
                ratio[r] = measured.ns(w)[r] / measured.ns(reference)[r];
            }
            final double[] sorted = PairedRounds.sorted(ratio);
            System.out.printf("%-6s d=%4d  %5.2f cpu-ns/op; ÷ d=2048 %.3fx (%.3f-%.3f), %d rounds%n",
                w < n ? "engine" : "floor", DISTANCES[w % n], measured.median(w), sorted[rounds / 2], sorted[0],
                sorted[rounds - 1], rounds);
        }
        System.out.printf("cell mod 4096 = %d, counter mod 4096 = %d (sink %d)%n", cell & 4095,
            work.counterAddress() & 4095, measured.sink() & 1);
    }

    private void place(final long cell)
    {
        final long counterWord = counterAddress();
        for (int i = 0; i < DISTANCES.length; i++)
        {
            engineIndex[i] = indexAt(cell + DISTANCES[i]);
            floorIndex[i] = indexAt(counterWord + DISTANCES[i]);
        }
    }

    /** An index of {@link #times} in its second or third page whose element's address mod 4096 is that of {@code target}. */
    private int indexAt(final long target)
    {
        final long first = address(times) + UnsafeApi.arrayBaseOffset(long[].class);
        final long wanted = target & 4095;
        long at = (first & ~4095L) + 4096 + wanted;
        if (at < first + 4096)
        {
            at += 4096;
        }
        return (int)((at - first) / 8);
    }

    private long counterAddress()
    {
        try
        {
            return address(counter) + UnsafeApi.objectFieldOffset(AtomicLong.class.getDeclaredField("value"));
        }
        catch (final NoSuchFieldException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    /** The object's address, from its compressed reference (mod 4096 exact: the heap base is page-aligned). */
    private static long address(final Object object)
    {
        final Object[] holder = {object};
        return (UnsafeApi.getInt(holder, UnsafeApi.arrayBaseOffset(Object[].class)) & 0xFFFF_FFFFL) << 3;
    }

    private long engine(final int index)
    {
        final RateLimiter cell = engine;
        final long[] clock = times;
        long sink = 0;
        for (int i = 0; i < OPS; i++)
        {
            sink += cell.tryAcquire(1, clock[index]++);
        }
        return sink;
    }

    private long floor(final int index)
    {
        final AtomicLong word = counter;
        final long[] clock = times;
        long sink = 0;
        for (int i = 0; i < OPS; i++)
        {
            final long nowNs = clock[index]++;
            long value = word.get();
            while (true)
            {
                final long witness = word.compareAndExchange(value, value + 1);
                if (witness == value)
                {
                    break;
                }
                value = witness;
            }
            sink += value - nowNs;
        }
        return sink;
    }
}
