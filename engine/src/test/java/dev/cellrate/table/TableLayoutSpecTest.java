package dev.cellrate.table;

import dev.cellrate.Result;
import org.agrona.concurrent.NanoClock;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The table's layout as {@link TableLayout} states it, and as the table's code relies on it: a slot's key word is at
 * the slot's own offset and a shard header's lock word at the header's own offset (the code adds no offset for
 * them), the TAT 8 bytes after the key, 16 bytes a slot.
 */
class TableLayoutSpecTest
{
    private static final NanoClock FAR_CLOCK = () -> Long.MAX_VALUE;

    @Test
    void theKeyWordIsAtTheSlotsOffsetAndTheLockAtTheHeadersOffset()
    {
        assertEquals(0, TableLayout.KEY_OFFSET);
        assertEquals(0, TableLayout.LOCK_OFFSET);
        assertEquals(8, TableLayout.TAT_OFFSET);
        assertEquals(16, TableLayout.SLOT_LENGTH);
    }

    @Test
    void aPresentKeysWordsSitWhereTheLayoutSays()
    {
        final SlotTable table = new SlotTable(2, 8, 8, 1_000, 5, FAR_CLOCK);
        final TestLoop loop = new TestLoop(table, new long[] {100}, new long[] {300});
        for (long key = 0; key < 6; key++)
        {
            final long word = table.keyWord(key);
            assertEquals(1_100, loop.charge(word, 100, 300, 1_000, null));
            final int index = table.slotIndexOf(word);
            final int shard = index / 8;
            final int slot = TableLayout.slotOffset(TableLayout.slotsOffset(2), 8, shard, index % 8);
            assertEquals(word, table.buffer().getLongVolatile(slot + TableLayout.KEY_OFFSET));
            assertEquals(1_100, table.buffer().getLongVolatile(slot + TableLayout.TAT_OFFSET));
        }
        final int header = TableLayout.shardHeaderOffset(1);
        table.writer().lock(header);
        assertEquals(1, table.buffer().getLongVolatile(header + TableLayout.LOCK_OFFSET), "held");
        table.writer().unlock(header);
        assertEquals(0, table.buffer().getLongVolatile(header + TableLayout.LOCK_OFFSET), "free");
    }

    @Test
    void everySlotTheTablesLastIncludedStartsFullAtANegativeTime()
    {
        final SlotTable table = new SlotTable(2, 4, 4, 1_000, 6, FAR_CLOCK);
        final TestLoop loop = new TestLoop(table, new long[] {100}, new long[] {300});
        final long nowNs = -10_000_000_000L;
        boolean lastSlot = false;
        for (long key = 0; table.liveKeys() < table.slotCount(); key++)
        {
            final long word = table.keyWord(key);
            final long code = loop.charge(word, 300, 300, nowNs, null);
            if (Result.TABLE_FULL != code)
            {
                assertEquals(nowNs + 300, code, "key " + key + " in slot " + table.slotIndexOf(word) + ": the whole burst");
                lastSlot |= table.slotIndexOf(word) == table.slotCount() - 1;
            }
        }
        assertTrue(lastSlot, "a key landed in the table's last slot");
    }
}
