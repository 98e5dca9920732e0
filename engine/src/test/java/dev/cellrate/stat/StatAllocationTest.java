package dev.cellrate.stat;

import dev.cellrate.observe.ShadowLimiter;
import dev.cellrate.observe.ObservedReserver;
import dev.cellrate.observe.ObservedMarker;
import dev.cellrate.observe.ObservedConcurrencyLimiter;
import dev.cellrate.Limit;
import dev.cellrate.RateLimiter;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Recording allocates nothing, and neither do the reconfigurable fronts' decisions (as {@code dev.cellrate.AllocationTest}): decisions recorded through every
 * record path, admitted and rejected (feeding the top-keys sketch), dry-run and shadow, plus sampler duty
 * cycles; the quietest of a few rounds of a million must allocate exactly 0 bytes.
 */
final class StatAllocationTest
{
    @Test
    void recordingAllocatesNothing()
    {
        final java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        Assertions.assertTrue(bean instanceof com.sun.management.ThreadMXBean, "this JVM counts allocated bytes per thread");
        final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean)bean;
        Assertions.assertTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled(),
            "this JVM counts allocated bytes per thread");

        final StatFile file = StatFile.inMemory();
        final LimiterStats stats = file.limiter("a");
        final RateLimiter limiter = new RateLimiter(Limit.perSecond(1_000, 10));
        final ShadowLimiter shadow = new ShadowLimiter(
            new RateLimiter(Limit.perSecond(1_000, 10)), file.limiter("b"),
            new RateLimiter(Limit.perSecond(100, 2)), file.limiter("b.shadow"));
        final org.agrona.concurrent.CachedNanoClock clock = new org.agrona.concurrent.CachedNanoClock();
        final StatSampler sampler = new StatSampler(clock, 0)
            .add(dev.cellrate.KeyedRateLimiter.builder(Limit.perSecond(10, 1)).slotCount(64).build(), stats);
        final dev.cellrate.reconfigure.ReconfigurableRateLimiter live =
            new dev.cellrate.reconfigure.ReconfigurableRateLimiter(Limit.perSecond(1_000, 10));
        final dev.cellrate.reconfigure.ReconfigurableShaper liveShaper = new dev.cellrate.reconfigure.ReconfigurableShaper(
            Limit.perSecond(1_000, 10), dev.cellrate.ShaperMode.delay());
        final dev.cellrate.reconfigure.ReconfigurablePayLaterRateLimiter livePayLater =
            new dev.cellrate.reconfigure.ReconfigurablePayLaterRateLimiter(dev.cellrate.translate.Guava.create(100), 0);
        final dev.cellrate.ReconfigurableKeyedRateLimiter liveKeyed =
            dev.cellrate.TestFronts.reconfigurableKeyed(Limit.perSecond(1_000, 10),
                new dev.cellrate.table.SlotTable(4, 64, 64, 1_000_000L, 3L, clock), dev.cellrate.TableFullPolicy.REJECT);
        final dev.cellrate.Shaper shaper = new dev.cellrate.Shaper(Limit.perSecond(1_000, 10), dev.cellrate.ShaperMode.delay());
        final ObservedReserver dryShaper = ObservedReserver.dryRun(shaper, stats);
        // a tight dry-run shaper: most reservations are passes written into the holder
        final ObservedReserver dryTight = ObservedReserver.dryRun(
            new dev.cellrate.Shaper(Limit.ofGcra(1_000_000_000L, 0), dev.cellrate.ShaperMode.nodelay()), stats);
        final dev.cellrate.Reservation reservation = new dev.cellrate.Reservation();
        sampler.add(shaper, file.limiter("queue", 1, 0));
        final ObservedConcurrencyLimiter dryConcurrency =
            ObservedConcurrencyLimiter.dryRun(new dev.cellrate.concurrency.ConcurrencyLimiter(2), stats);
        final ObservedMarker dryMarker = ObservedMarker.dryRun(new dev.cellrate.tcm.SrTcm(1_000_000, 1_500, 3_000), stats);
        final long threadId = Thread.currentThread().getId();
        long minBytes = Long.MAX_VALUE;
        final StringBuilder rounds = new StringBuilder();
        long sink = 0;
        for (int round = 0; round < 6 && minBytes != 0; round++)
        {
            final long beforeBytes = threads.getThreadAllocatedBytes(threadId);
            long nowNs = round * 10_000_000_000L;
            for (int i = 0; i < 1_000_000; i++)
            {
                nowNs += 100_000 * (i & 7);
                final long code = limiter.tryAcquire(1, nowNs);
                sink += stats.record(code) + stats.record(i & 63, code) + stats.dryRun(i & 31, code) +
                    stats.recordReservation(code) + shadow.tryAcquire(1, nowNs) + live.tryAcquire(1, nowNs) +
                    liveShaper.reserve(1, nowNs) + livePayLater.tryAcquire(1, nowNs) +
                    liveKeyed.tryAcquire(i & 127, 1, nowNs) + dryShaper.reserve(1, nowNs) +
                    dryTight.reserve(1, nowNs, reservation) + reservation.releaseNs() +
                    dryMarker.mark(1_000, nowNs) + stats.dryRunReservation(i & 31, code) + stats.recordColour(i & 3);
                final long ticket = dryConcurrency.tryAcquire();
                sink += ticket + ((i & 3) == 0 ? (dryConcurrency.release(ticket) ? 1 : 0) : 0);
                if ((i & 1023) == 0)
                {
                    clock.update(nowNs);
                    sink += sampler.doWork();
                }
            }
            final long bytes = threads.getThreadAllocatedBytes(threadId) - beforeBytes;
            minBytes = Math.min(minBytes, bytes);
            rounds.append(bytes).append(' ');
        }
        assertEquals(0, minBytes, "bytes allocated per round: " + rounds + " (sink " + sink + ")");
    }
}
