package dev.cellrate.bench;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The one-thread floors the admit rows are divided by: a plain {@code AtomicLong.incrementAndGet()} and a bare
 * read-then-CAS ({@code get()}, then {@code compareAndExchange(v, v + 1)} retried on the witness), the least
 * any read-then-CAS design pays.
 */
final class CounterFloors
{
    private CounterFloors()
    {
    }

    /** {@code ops} calls of {@code counter.incrementAndGet()}; returns the sum of the values. */
    static long incrementAndGet(final AtomicLong counter, final int ops)
    {
        long sink = 0;
        for (int i = 0; i < ops; i++)
        {
            sink += counter.incrementAndGet();
        }
        return sink;
    }

    /** A caller time that a floor advances per operation, as the cellrate row it is the floor of does. */
    static final class CallerTime
    {
        long nowNs = 1;
    }

    /**
     * {@code ops} read-then-CAS increments of {@code word}, each taking the next caller time from {@code time}
     * (a load and a store before the CAS, as {@code cell.tryAcquire(1, nowNs++)} does); returns the sum of the values
     * read minus the times.
     */
    static long getAndCas(final AtomicLong word, final int ops, final CallerTime time)
    {
        long sink = 0;
        for (int i = 0; i < ops; i++)
        {
            final long nowNs = time.nowNs++;
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
