package dev.cellrate;

import java.lang.management.ManagementFactory;

import org.junit.jupiter.api.Assertions;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Asserts that a piece of code allocates nothing, as {@link AllocationTest} does: the current thread's
 * allocated-bytes counter across a round of calls, the quietest of a few rounds after warm-up must be zero (a
 * path that allocates does so on every call; a loaded JIT can add a few bytes once).
 */
public final class ZeroAllocation
{
    private ZeroAllocation()
    {
    }

    /**
     * @param what  names the path in the failure message.
     * @param round one round of calls; returns a value so the JIT cannot drop the work.
     */
    public static void assertAllocatesNothing(final String what, final java.util.function.LongSupplier round)
    {
        final java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        Assertions.assertTrue(bean instanceof com.sun.management.ThreadMXBean, "this JVM counts allocated bytes per thread");
        final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean)bean;
        Assertions.assertTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled(),
            "this JVM counts allocated bytes per thread");
        final long threadId = Thread.currentThread().getId();
        long sink = 0;
        long minBytes = Long.MAX_VALUE;
        final StringBuilder rounds = new StringBuilder();
        for (int r = 0; r < 8 && minBytes != 0; r++)
        {
            final long before = threads.getThreadAllocatedBytes(threadId);
            sink += round.getAsLong();
            final long bytes = threads.getThreadAllocatedBytes(threadId) - before;
            minBytes = Math.min(minBytes, bytes);
            rounds.append(bytes).append(' ');
        }
        assertEquals(0, minBytes, what + ": bytes allocated per round: " + rounds + "(sink " + (sink & 1) + ")");
    }
}
