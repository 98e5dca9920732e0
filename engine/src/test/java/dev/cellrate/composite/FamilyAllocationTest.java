package dev.cellrate.composite;

import dev.cellrate.KeyedCompositeRateLimiter;
import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.PayLaterRateLimiter;
import dev.cellrate.translate.Guava;
import dev.cellrate.warmup.WarmingUpRateLimiter;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The decision paths of the pay-later, warm-up and composite fronts allocate nothing (measured with the
 * JVM's per-thread allocation counter over 200,000 decisions per front after warm-up, admissions and
 * rejections mixed, minus the counter's own constant overhead).
 */
class FamilyAllocationTest
{
    static long allocatedBytes()
    {
        return ((com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean())
            .getThreadAllocatedBytes(Thread.currentThread().getId());
    }

    @Test
    void decisionsAllocateNothing()
    {
        final PayLaterRateLimiter payLater = Guava.create(1000).newRateLimiter(0, SystemNanoClock.INSTANCE);
        final WarmingUpRateLimiter warmup =
            WarmingUpRateLimiter.guava(1000, 5, TimeUnit.SECONDS, 0, SystemNanoClock.INSTANCE);
        final CompositeRateLimiter composite = CompositeRateLimiter.of(Limit.perSecond(1000, 10), Limit.perSecond(500, 5));
        final KeyedCompositeRateLimiter keyed = new KeyedCompositeRateLimiter(
            KeyedRateLimiter.builder(Limit.perSecond(1000, 10)).slotCount(64).shardCount(1).build(),
            KeyedRateLimiter.builder(Limit.perSecond(500, 5)).slotCount(16).shardCount(1).build());
        final long[] keys = {3, 4};
        final long[] bytes = new long[4];
        long sink = 0;
        for (int round = 0; round < 4; round++)
        {
            for (int front = 0; front < 4; front++)
            {
                final long before = allocatedBytes();
                for (int i = 0; i < 200_000; i++)
                {
                    final long nowNs = (round * 200_000L + i) * 300_000L;
                    switch (front)
                    {
                        case 0:
                            sink += payLater.tryAcquire(1 + (i & 3), nowNs);
                            break;
                        case 1:
                            sink += warmup.tryAcquire(1 + (i & 1), nowNs);
                            break;
                        case 2:
                            sink += composite.tryAcquire(1, nowNs);
                            break;
                        default:
                            keys[0] = i & 7;
                            sink += keyed.tryAcquire(keys, 1, nowNs);
                    }
                }
                bytes[front] = allocatedBytes() - before;
            }
        }
        // the counter read itself allocates a constant amount: measure it on an empty region and subtract
        final long before = allocatedBytes();
        final long overhead = allocatedBytes() - before;
        for (int front = 0; front < 4; front++)
        {
            bytes[front] -= overhead;
        }
        assertEquals("[0, 0, 0, 0]", java.util.Arrays.toString(bytes),
            "bytes allocated by 200,000 decisions of pay-later, warm-up, composite, keyed composite (sink " + sink + ")");
    }
}
