package dev.cellrate;

import dev.cellrate.KeyedShaper;
import dev.cellrate.Reservation;
import dev.cellrate.ShaperMode;
import dev.cellrate.table.SlotTable;
import dev.cellrate.table.TableLayout;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The keyed fronts' slot loop allocates nothing: a million requests on {@link KeyedRateLimiter} (long and
 * string keys, with and without a {@link Decision}, new keys evicting idle ones, table full) and on
 * {@link KeyedShaper} (reserve, cancel: the refund path with its high-water mark), quietest of a few rounds
 * after warm-up (the marks are allocated once, at the table's first refund, during the first round).
 */
final class KeyedAllocationTest
{
    static final int REQUESTS = 1_000_000;
    static final int ROUNDS = 6;
    static final String[] NAMES = {"user:a", "user:b", "user:c", "user:d"};

    @Test
    void keyedDecisionsAndRefundsAllocateNothing()
    {
        final java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        Assertions.assertTrue(bean instanceof com.sun.management.ThreadMXBean, "this JVM counts allocated bytes per thread");
        final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean)bean;
        Assertions.assertTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled(),
            "this JVM counts allocated bytes per thread");

        final CachedNanoClock clock = new CachedNanoClock();
        final Limit limit = Limit.perSecond(1_000, 10);
        final KeyedRateLimiter keyed = KeyedRateLimiter.builder(limit).shardCount(1).slotCount(64).probeBound(64)
            .idleGraceNs(1_000_000L).tableFullPolicy(TableFullPolicy.OVERFLOW).seed(3).clock(clock).build();
        final KeyedShaper shaper = TestFronts.keyedShaper(limit, ShaperMode.delay(),
            new SlotTable(1, 64, 64, 1_000_000L, 4, clock), clock);
        final Decision decision = new Decision();
        final Reservation reservation = new Reservation();
        final long threadId = Thread.currentThread().getId();
        long minBytes = Long.MAX_VALUE;
        final StringBuilder rounds = new StringBuilder();
        long nowNs = 0;
        for (int round = 0; round < ROUNDS && minBytes != 0; round++)
        {
            final long beforeBytes = threads.getThreadAllocatedBytes(threadId);
            nowNs = run(keyed, shaper, clock, decision, reservation, nowNs);
            final long bytes = threads.getThreadAllocatedBytes(threadId) - beforeBytes;
            minBytes = Math.min(minBytes, bytes);
            rounds.append(bytes).append(' ');
        }
        assertEquals(0, minBytes, "bytes allocated per round of " + REQUESTS + " keyed requests: " + rounds);
        assertEquals(TableLayout.length(1, 64) + 64L * Long.BYTES, shaper.table().capacityBytes(),
            "the cancels went through the refund path (high-water marks allocated once)");
        assertEquals(TableLayout.length(1, 64), keyed.table().capacityBytes(), "no refund, no marks");
    }

    static long run(
        final KeyedRateLimiter keyed, final KeyedShaper shaper, final CachedNanoClock clock, final Decision decision,
        final Reservation reservation, final long startNs)
    {
        long nowNs = startNs;
        long sink = 0;
        for (int i = 0; i < REQUESTS; i++)
        {
            nowNs += 10_000 * (i & 7);
            clock.update(nowNs);
            final long key = i % 100;
            switch (i & 3)
            {
                case 0:
                    sink += keyed.tryAcquire(key, 1 + (i & 1), nowNs);
                    break;
                case 1:
                    sink += keyed.tryAcquire(NAMES[i & 3], 1, nowNs, decision);
                    break;
                case 2:
                    sink += shaper.reserve(key, 1, nowNs, reservation);
                    break;
                default:
                    sink += shaper.cancel(key - 1, reservation, nowNs) ? 1 : 0;
                    sink += shaper.cancel(key, reservation, nowNs) ? 1 : 0;
            }
        }
        return nowNs + (sink & 1);
    }
}
