package dev.cellrate.table;

import dev.cellrate.TestFronts;
import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import dev.cellrate.TableFullPolicy;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The table's internal slot steps (package-private since issue 9, item 5): the validated load and the CAS
 * re-validate the key.
 */
class SlotTableTest
{
    static final Limit BURST_3 = Limit.ofGcra(100, 200);

    private static KeyedRateLimiter tiny()
    {
        return KeyedRateLimiter.builder(BURST_3)
            .shardCount(1).slotCount(4).probeBound(4).idleGraceNs(10).seed(0x5eed)
            .tableFullPolicy(TableFullPolicy.REJECT).build();
    }

    @Test
    void slotApiRevalidatesTheKey()
    {
        final KeyedRateLimiter limiter = tiny();
        final SlotTable table = TestFronts.tableOf(limiter);
        final long a = table.keyWord(1L);
        final int offset = table.claimSlot(a, 1_000);
        final long tatNs = table.loadTat(offset, a);
        assertEquals(tatNs, table.compareAndExchangeTat(offset, tatNs, 1_100));
        assertEquals(1_100, table.compareAndExchangeTat(offset, tatNs, 1_200), "stale expected value fails");
        assertEquals(1, limiter.casRetries());
        assertEquals(SlotTable.STALE, table.loadTat(offset, table.keyWord(2L)));
        // Key 1 goes idle; key 2's insert may reclaim it: the old offset is then stale for key 1.
        for (long key = 2; key <= 5; key++)
        {
            assertTrue(table.claimSlot(table.keyWord(key), 5_000) >= 0);
        }
        assertEquals(SlotTable.STALE, table.loadTat(offset, a));
        assertEquals(SlotTable.FULL, table.claimSlot(a, 5_000) < 0 ? SlotTable.FULL : 0);
    }

    @Test
    void aDeciderThatFindsItsSlotMidReclaimWaitsThenDecides() throws InterruptedException
    {
        final KeyedRateLimiter limiter = tiny();
        final SlotTable table = TestFronts.tableOf(limiter);
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1L, 1, 1_000));
        final long word = table.keyWord(1L);
        final int offset = table.findSlot(word);
        final long tatNs = table.buffer().getLongVolatile(offset);
        // A reclaimer holds the slot mid-reclaim (its CAS to RECLAIMING done, its mark check pending).
        table.buffer().putLongVolatile(offset, TableLayout.RECLAIMING);
        final AtomicLong code = new AtomicLong(Long.MIN_VALUE);
        final Thread decider = new Thread(() -> code.set(limiter.tryAcquire(1L, 1, 1_100)));
        decider.start();
        decider.join(200);
        assertTrue(decider.isAlive(), "the decider waits (spin hint, yield every 64th) while the slot is mid-reclaim");
        // The reclaim gives up (the slot's high-water mark was not idle) and restores the word.
        table.buffer().putLongVolatile(offset, tatNs);
        decider.join(30_000);
        assertFalse(decider.isAlive());
        assertEquals(Result.ADMITTED, code.get());
        assertEquals(1, table.countSlots(word));
    }
}
