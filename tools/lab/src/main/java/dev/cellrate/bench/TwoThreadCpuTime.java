package dev.cellrate.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.CyclicBarrier;

/**
 * Runs a workload on one thread and then on two threads at once, in CPU time of each thread, inside one JVM: both
 * runs execute the same compiled method, so a difference between them is the second thread's effect and nothing
 * the JIT did differently (as two JMH forks may). The two threads start behind a barrier. One thread affects the
 * other only while both are on a core: on a crowded machine they often run apart, which dilutes the effect, so read
 * a two-thread figure beside the machine's load.
 */
final class TwoThreadCpuTime
{
    /**
     * One thread's share of a workload: {@code run(thread, ops)} performs {@code ops} operations as thread
     * {@code thread} (0 or 1) and returns a sink value.
     */
    interface Work
    {
        long run(int thread, int ops);
    }

    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private final double[] cpuNs = new double[2];
    private final long[] sinks = new long[2];
    private long sink;

    /**
     * Runs {@code work} on {@code threadCount} threads at once ({@code ops} each).
     *
     * @return the mean CPU ns per operation of the threads.
     */
    double run(final Work work, final int threadCount, final int ops)
    {
        final CyclicBarrier start = new CyclicBarrier(threadCount);
        final Thread[] workers = new Thread[threadCount];
        for (int t = 0; t < threadCount; t++)
        {
            final int thread = t;
            workers[t] = new Thread(() ->
            {
                try
                {
                    start.await();
                }
                catch (final Exception ex)
                {
                    throw new IllegalStateException(ex);
                }
                final long cpuStart = threads.getCurrentThreadCpuTime();
                sinks[thread] = work.run(thread, ops);
                cpuNs[thread] = threads.getCurrentThreadCpuTime() - cpuStart;
            }, "two-thread-cpu-" + t);
            workers[t].start();
        }
        for (final Thread worker : workers)
        {
            try
            {
                worker.join();
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(ex);
            }
        }
        double cpu = 0;
        for (int t = 0; t < threadCount; t++)
        {
            sink += sinks[t];
            cpu += cpuNs[t];
        }
        return cpu / threadCount / ops;
    }

    /** The sum of every run's sink values. */
    long sink()
    {
        return sink;
    }
}
