package dev.cellrate.table;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.TableFullPolicy;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
        final SlotTable table = limiter.table();
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
}
