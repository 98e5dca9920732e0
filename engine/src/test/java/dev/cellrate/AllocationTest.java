package dev.cellrate;

import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The decision paths allocate nothing: the current thread's allocated-bytes counter
 * ({@code com.sun.management.ThreadMXBean}) does not move across a million decisions on every overload,
 * admitted and rejected, with and without a {@link Decision}, in the quietest of a few rounds after warm-up.
 */
final class AllocationTest
{
    static final int DECISIONS = 1_000_000;
    static final int ROUNDS = 6;

    @Test
    void decisionsAllocateNothing()
    {
        final java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        Assertions.assertTrue(bean instanceof com.sun.management.ThreadMXBean, "this JVM counts allocated bytes per thread");
        final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean)bean;
        Assertions.assertTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled(),
            "this JVM counts allocated bytes per thread");

        final CachedNanoClock clock = new CachedNanoClock();
        final RateLimiter atomic = new RateLimiter(Limit.perSecond(1_000, 10), clock);
        final SingleThreadedRateLimiter single = new SingleThreadedRateLimiter(Limit.perSecond(1_000, 10), clock);
        final Decision decision = new Decision();
        final long threadId = Thread.currentThread().getId();

        // A path that allocates does so on every call (>= 16 MB per round); a round can also pick up a few
        // bytes once from the JIT swapping code under it on a loaded machine. So: the quietest of several
        // rounds must be exactly zero.
        long minBytes = Long.MAX_VALUE;
        final StringBuilder rounds = new StringBuilder();
        for (int round = 0; round < ROUNDS && minBytes != 0; round++)
        {
            final long beforeBytes = threads.getThreadAllocatedBytes(threadId);
            run(atomic, single, clock, decision);
            final long bytes = threads.getThreadAllocatedBytes(threadId) - beforeBytes;
            minBytes = Math.min(minBytes, bytes);
            rounds.append(bytes).append(' ');
        }
        assertEquals(0, minBytes, "bytes allocated per round of " + DECISIONS + " decisions: " + rounds);
    }

    static long run(
        final RateLimiter atomic, final SingleThreadedRateLimiter single, final CachedNanoClock clock,
        final Decision decision)
    {
        long admitted = 0;
        long nowNs = 0;
        for (int i = 0; i < DECISIONS; i++)
        {
            nowNs += 100_000 * (i & 7);
            clock.update(nowNs);
            final long permits = 1 + (i & 15);
            long code;
            switch (i & 7)
            {
                case 0:
                    code = atomic.tryAcquire(1, nowNs) | single.tryAcquire(1, nowNs);
                    break;
                case 1:
                    code = atomic.tryAcquire(permits, nowNs) | single.tryAcquire(permits, nowNs);
                    break;
                case 2:
                    code = atomic.tryAcquire(permits, nowNs, decision) | single.tryAcquire(permits, nowNs, decision);
                    break;
                case 3:
                    code = atomic.tryAcquire() | single.tryAcquire();
                    break;
                case 4:
                    code = atomic.tryAcquire(permits) | single.tryAcquire(permits);
                    break;
                case 5:
                    code = atomic.tryAcquire(permits, decision) | single.tryAcquire(permits, decision);
                    break;
                case 6:
                    code = atomic.tryAcquire(permits, Long.MAX_VALUE) | single.tryAcquire(-permits, nowNs);
                    break;
                default:
                    code = atomic.tryAcquire(permits, Long.MIN_VALUE, decision);
                    break;
            }
            admitted += Result.isAdmitted(code) ? 1 : 0;
        }
        return admitted;
    }
}
