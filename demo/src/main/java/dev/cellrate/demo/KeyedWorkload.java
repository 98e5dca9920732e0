package dev.cellrate.demo;

import java.lang.management.ManagementFactory;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;

/**
 * A short multi-threaded keyed workload: each thread draws keys from its own pre-generated Zipf stream, reads
 * {@code System.nanoTime()} and asks the keyed limiter, for a fixed wall time after a warm-up. Counts
 * decisions, admissions and the bytes each thread allocated while deciding
 * ({@code com.sun.management.ThreadMXBean#getCurrentThreadAllocatedBytes}).
 */
final class KeyedWorkload
{
    /**
     * The keyed limiter under test; {@link #decide(long, long)} must be thread-safe.
     */
    interface KeyedDecider
    {
        /**
         * @param key   the key.
         * @param nowNs the time.
         * @return a {@link dev.cellrate.Result} code.
         */
        long decide(long key, long nowNs);
    }

    /** Totals over all threads. */
    record Outcome(long decisions, long admitted, long allocatedBytes, long elapsedNs, int threads)
    {
        double decisionsPerSecond()
        {
            return decisions * 1e9 / elapsedNs;
        }

        double bytesPerDecision()
        {
            return decisions == 0 ? 0 : (double)allocatedBytes / decisions;
        }
    }

    private static final int STREAM_LENGTH = 1 << 16;
    /** The Zipf exponent of the key ranks (YCSB's default). */
    private static final double ZIPF_EXPONENT = 0.99;
    /** The odd multiplier that turns a rank into a key (a bijection on longs): hot keys are not neighbours. */
    private static final long KEY_MULTIPLIER = 0x9E3779B97F4A7C15L;

    private final KeyedDecider decider;
    private final int keyCount;
    private final int threads;
    private volatile boolean measuring;
    private volatile boolean stopped;

    KeyedWorkload(final KeyedDecider decider, final int keyCount, final int threads)
    {
        this.decider = decider;
        this.keyCount = keyCount;
        this.threads = threads;
    }

    Outcome run(final long warmUpNs, final long measureNs) throws InterruptedException
    {
        final long[] decisions = new long[threads];
        final long[] admitted = new long[threads];
        final long[] allocatedBytes = new long[threads];
        final CountDownLatch done = new CountDownLatch(threads);
        for (int t = 0; t < threads; t++)
        {
            final int thread = t;
            final long[] keys = keysFor(thread);
            final Thread worker = new Thread(() ->
            {
                work(keys, thread, decisions, admitted, allocatedBytes);
                done.countDown();
            }, "keyed-worker-" + t);
            worker.setDaemon(true);
            worker.start();
        }
        Thread.sleep(warmUpNs / 1_000_000);
        final long startNs = System.nanoTime();
        measuring = true;
        Thread.sleep(measureNs / 1_000_000);
        stopped = true;
        final long elapsedNs = System.nanoTime() - startNs;
        done.await();
        long totalDecisions = 0;
        long totalAdmitted = 0;
        long totalBytes = 0;
        for (int t = 0; t < threads; t++)
        {
            totalDecisions += decisions[t];
            totalAdmitted += admitted[t];
            totalBytes += allocatedBytes[t];
        }
        return new Outcome(totalDecisions, totalAdmitted, totalBytes, elapsedNs, threads);
    }

    private long[] keysFor(final int thread)
    {
        final SplittableRandom random = new SplittableRandom(42 + thread);
        final double[] cumulative = zipfCumulative(keyCount);
        final long[] keys = new long[STREAM_LENGTH];
        for (int i = 0; i < STREAM_LENGTH; i++)
        {
            final int rank = firstAtLeast(cumulative, random.nextDouble() * cumulative[keyCount - 1]);
            keys[i] = (rank + 1L) * KEY_MULTIPLIER;
        }
        return keys;
    }

    /** Zipf over ranks with YCSB's exponent: entry r is the sum of 1 / (i + 1)^0.99 for i &le; r. */
    private static double[] zipfCumulative(final int keyCount)
    {
        final double[] cumulative = new double[keyCount];
        double sum = 0;
        for (int rank = 0; rank < keyCount; rank++)
        {
            sum += 1.0 / Math.pow(rank + 1, ZIPF_EXPONENT);
            cumulative[rank] = sum;
        }
        return cumulative;
    }

    private static int firstAtLeast(final double[] sorted, final double value)
    {
        int low = 0;
        int high = sorted.length - 1;
        while (low < high)
        {
            final int mid = (low + high) >>> 1;
            if (sorted[mid] < value)
            {
                low = mid + 1;
            }
            else
            {
                high = mid;
            }
        }
        return low;
    }

    private void work(
        final long[] keys, final int thread, final long[] decisions, final long[] admitted, final long[] allocated)
    {
        final KeyedDecider decider = this.decider;
        final int mask = keys.length - 1;
        int cursor = 0;
        while (!measuring)
        {
            decider.decide(keys[cursor++ & mask], System.nanoTime());
        }
        final com.sun.management.ThreadMXBean threadBean =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final long bytesBefore = threadBean.getCurrentThreadAllocatedBytes();
        long count = 0;
        long admits = 0;
        while (!stopped)
        {
            if (0 == decider.decide(keys[cursor++ & mask], System.nanoTime()))
            {
                admits++;
            }
            count++;
        }
        final long bytesAfter = threadBean.getCurrentThreadAllocatedBytes();
        decisions[thread] = count;
        admitted[thread] = admits;
        allocated[thread] = bytesAfter - bytesBefore;
    }
}
