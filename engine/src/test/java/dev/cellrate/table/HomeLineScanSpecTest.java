package dev.cellrate.table;

import org.junit.jupiter.api.Test;

import static dev.cellrate.table.TableLayout.SLOT_LENGTH;
import static dev.cellrate.table.TableLayout.TAT_OFFSET;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The two home-line scans of the decision path, {@link SlotIndex#slotIn} (a predicted branch per slot) and
 * {@link SlotIndex#slotSelected} (no branch), against the general lookup {@link SlotIndex#find}: on a table filled
 * to the designed load, plain and classed, both return exactly the key's slot when the key is in its home line
 * (at any of the four slots), and 0 for a key that spilled past it, an absent key and the two reserved words.
 */
class HomeLineScanSpecTest
{
    private static final int SLOTS_PER_SHARD = 1_024;
    private static final long GRACE_NS = 1_000_000_000L;

    @Test
    void plainScansFindExactlyTheKeysInTheirHomeLine()
    {
        for (final int shards : new int[] {1, 4})
        {
            final SlotTable table = new SlotTable(shards, SLOTS_PER_SHARD, SLOTS_PER_SHARD, GRACE_NS, 7L);
            final long[] words = new long[shards * SLOTS_PER_SHARD * 3 / 4];
            for (int i = 0; i < words.length; i++)
            {
                words[i] = table.keyWord(i + 1L);
                assertTrue(table.insertSlot(words[i], 0) >= 0, "inserted");
            }
            checkScans(table, words, -1L);
        }
    }

    @Test
    void classedScansFindExactlyTheKeysInTheirHomeLine()
    {
        final SlotTable table = new SlotTable(8, SLOTS_PER_SHARD, SLOTS_PER_SHARD, GRACE_NS, 11L);
        final long[] words = new long[8 * SLOTS_PER_SHARD * 3 / 4];
        for (int i = 0; i < words.length; i++)
        {
            words[i] = table.keyWord("user-" + i);
            assertTrue(table.insertClassedSlot(words[i], i % table.classCapacity(), 0) >= 0, "inserted");
        }
        checkScans(table, words, table.index().matchMask(true));
    }

    @Test
    void reservedWordsAreNeverFoundByAScan()
    {
        final SlotTable table = new SlotTable(1, SLOTS_PER_SHARD, SLOTS_PER_SHARD, GRACE_NS, 3L);
        final SlotIndex index = table.index();
        for (final long reserved : new long[] {TableLayout.EMPTY_KEY, TableLayout.TOMBSTONE_KEY})
        {
            assertEquals(0, index.slotIn(reserved, -1L), "EMPTY slots hold word 0: never a key's cell");
            assertEquals(0, index.slotSelected(reserved, -1L));
        }
    }

    private static void checkScans(final SlotTable table, final long[] words, final long matchMask)
    {
        final SlotIndex index = table.index();
        final int[] atSlot = new int[5]; // in-line position 0..3 of a home-line key, 4 for a spilled key
        for (final long word : words)
        {
            final int tatOffset = index.find(word, matchMask);
            assertTrue(tatOffset >= 0, "present");
            final long slot = index.address + tatOffset - TAT_OFFSET;
            final long line = index.homeLine(word);
            final boolean home = slot >= line && slot < line + TableGeometry.BUCKET_SLOTS * SLOT_LENGTH;
            final long expected = home ? slot : 0;
            assertEquals(expected, index.slotIn(word, matchMask), "predicted scan");
            assertEquals(expected, index.slotSelected(word, matchMask), "branchless scan");
            atSlot[home ? (int)((slot - line) / SLOT_LENGTH) : 4]++;
        }
        for (int position = 0; position < atSlot.length; position++)
        {
            assertTrue(atSlot[position] > 0, "keys at in-line position " + position + " (4: spilled)");
        }
        for (long absent = 1; absent <= 10_000; absent++)
        {
            final long word = table.keyWord(-absent);
            assertEquals(0, index.slotIn(word, matchMask), "absent key");
            assertEquals(0, index.slotSelected(word, matchMask), "absent key");
        }
    }
}
