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

    /** {@code ops} read-then-CAS increments of {@code word}; returns the sum of the values read. */
    static long getAndCas(final AtomicLong word, final int ops)
    {
        long sink = 0;
        for (int i = 0; i < ops; i++)
        {
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
            sink += value;
        }
        return sink;
    }
}
