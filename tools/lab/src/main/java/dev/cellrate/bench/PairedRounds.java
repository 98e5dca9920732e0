package dev.cellrate.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.function.IntToLongFunction;

/**
 * Paired rounds timed in CPU time of the measuring thread: every round runs each workload once, in order, inside
 * one JVM, and records the thread's CPU nanoseconds per operation ({@code ThreadMXBean.getCurrentThreadCpuTime}),
 * so time spent descheduled does not count and a slow patch of the machine hits all workloads of a round alike.
 * Warm-up rounds run first and are not recorded.
 */
final class PairedRounds
{
    /**
     * A program's workloads: {@code run(w)} runs workload {@code w} (a fixed number of operations) and returns a
     * sink value.
     */
    interface Workloads
    {
        long run(int workload);
    }

    private final double[][] ns;
    private final long sink;

    private PairedRounds(final double[][] ns, final long sink)
    {
        this.ns = ns;
        this.sink = sink;
    }

    /**
     * @param workloads how many workloads, run as {@code work.run(0 .. workloads - 1)} in every round.
     * @param warmups rounds run first and not recorded.
     * @param rounds recorded rounds.
     * @param opsOf operations one run of a workload performs (the divisor of its CPU time).
     * @param work the workloads.
     */
    static PairedRounds measure(
        final int workloads, final int warmups, final int rounds, final IntToLongFunction opsOf, final Workloads work)
    {
        final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        final double[][] ns = new double[workloads][rounds];
        long sink = 0;
        for (int round = -warmups; round < rounds; round++)
        {
            for (int w = 0; w < workloads; w++)
            {
                final long start = threads.getCurrentThreadCpuTime();
                sink += work.run(w);
                final double perOp = (threads.getCurrentThreadCpuTime() - start) / (double)opsOf.applyAsLong(w);
                if (round >= 0)
                {
                    ns[w][round] = perOp;
                }
            }
        }
        return new PairedRounds(ns, sink);
    }

    /** CPU ns per operation of a workload, one value a round (the array itself, not a copy). */
    double[] ns(final int workload)
    {
        return ns[workload];
    }

    /** The sum of the workloads' sink values over all rounds. */
    long sink()
    {
        return sink;
    }

    /** The median CPU ns per operation of a workload over the rounds. */
    double median(final int workload)
    {
        return median(ns[workload]);
    }

    /**
     * Prints one line per workload: its name, median CPU ns per operation and range over the rounds, as
     * {@code name median cpu-ns/op (min-max, N rounds)}.
     *
     * @param names the workloads' names, in workload order.
     * @param nameWidth the column width of the names.
     * @param numberWidth the column width of the median.
     */
    void printCpuNs(final String[] names, final int nameWidth, final int numberWidth)
    {
        final String format = "%-" + nameWidth + "s %" + numberWidth + ".1f cpu-ns/op (%.1f-%.1f, %d rounds)%n";
        for (int w = 0; w < names.length; w++)
        {
            final double[] sorted = sorted(ns[w]);
            System.out.printf(format, names[w], sorted[sorted.length / 2], sorted[0], sorted[sorted.length - 1],
                sorted.length);
        }
    }

    /** The middle value of {@code values} once sorted (the upper one of an even count). */
    static double median(final double[] values)
    {
        return sorted(values)[values.length / 2];
    }

    /** A sorted copy. */
    static double[] sorted(final double[] values)
    {
        final double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted;
    }
}
