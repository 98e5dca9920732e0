package dev.cellrate.table;

import org.junit.jupiter.api.Test;

import static dev.cellrate.table.TableLayout.SLOT_LENGTH;
import static dev.cellrate.table.TableLayout.TAT_OFFSET;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The two line scans of the decision path, {@link SlotIndex#slotIn} (a predicted branch per slot) and
 * {@link SlotIndex#slotSelected} (no branch), against the general lookup {@link SlotIndex#find}: on a table filled
 * to the designed load, plain and classed, both return exactly the key's slot when the key is in its home line
 * (at any of the four slots) or in the next line of its shard, and {@link SlotIndex#NO_SLOT} for a key further on, a key of the shard's
 * last line that wrapped to its first, an absent key and the two reserved words.
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
    void aKeyOfTheShardsLastLineThatWrappedToItsFirstIsLeftToTheGeneralLookup()
    {
        final SlotTable table = new SlotTable(2, 8, 8, GRACE_NS, 5L); // two lines per shard
        final SlotIndex index = table.index();
        final long lastLine = index.address + index.geometry.slotOffset(0, 4);
        final long[] lastLineKeys = new long[5];
        int found = 0;
        for (long key = 1; found < lastLineKeys.length; key++)
        {
            final long word = table.keyWord(key);
            if (index.homeLine(word) == lastLine)
            {
                lastLineKeys[found++] = word;
                assertTrue(table.insertSlot(word, 0) >= 0, "inserted");
            }
        }
        long filled = 0; // the line's slots the four keys took, one bit each
        for (int i = 0; i < 4; i++)
        {
            final long slot = index.address + index.find(lastLineKeys[i], -1L) - TAT_OFFSET;
            assertTrue(slot >= lastLine && slot < lastLine + 4 * SLOT_LENGTH, "in its home line");
            filled |= 1L << (slot - lastLine) / SLOT_LENGTH;
            assertEquals(slot, index.slotIn(lastLineKeys[i], -1L));
            assertEquals(slot, index.slotSelected(lastLineKeys[i], -1L));
        }
        assertEquals(0b1111, filled, "the line is full");
        final long wrapped = lastLineKeys[4];
        assertEquals(index.geometry.slotOffset(0, 0) + TAT_OFFSET, index.find(wrapped, -1L), "wrapped to slot 0");
        assertEquals(SlotIndex.NO_SLOT, index.slotIn(wrapped, -1L), "no line after the shard's last: the general lookup");
        assertEquals(SlotIndex.NO_SLOT, index.slotSelected(wrapped, -1L));
    }

    /**
     * A classed match ignores the shard bits, so a line of another shard can hold a word that matches the key: the
     * scan of the line after the home line must never leave the key's shard. Key A (shard 0, home: the shard's
     * last line) is absent; key B, equal to A outside the shard bits, sits in shard 1's first line, right after
     * A's home line in memory.
     */
    @Test
    void aScanNeverLeavesTheKeysShard()
    {
        final SlotTable table = new SlotTable(2, 8, 8, GRACE_NS, 5L);
        final SlotIndex index = table.index();
        final long mask = index.matchMask(true);
        final long shardBit = 1L << TableLayout.SHARD_SHIFT;
        final long a = 0x5000_0000_8000_0001L;
        final long b = a | shardBit;
        for (int i = 0; i < 4; i++)
        {
            assertTrue(table.insertClassedSlot((0x6000_0000_8000_0010L + i) | shardBit, 0, 0) >= 0, "filler");
        }
        assertTrue(table.insertClassedSlot(b, 0, 0) >= 0, "b");
        assertEquals(index.geometry.slotOffset(1, 0) + TAT_OFFSET, index.find(b, mask), "b wrapped to shard 1's first line");
        assertEquals(index.address + index.geometry.slotOffset(0, 4), index.homeLine(a), "a's home: shard 0's last line");
        assertEquals(SlotIndex.NO_CELL, index.find(a, mask), "a is absent");
        assertEquals(SlotIndex.NO_SLOT, index.slotIn(a, mask), "predicted scan");
        assertEquals(SlotIndex.NO_SLOT, index.slotSelected(a, mask), "branchless scan");
    }

    /**
     * The scans' answer for "not found" is a slot outside every table that every decision fails to validate: after
     * plain and classed decisions on absent keys and on the reserved words (whose own cells are in the header),
     * it still holds EMPTY and RECLAIMING, and each key was decided on its own cell.
     */
    @Test
    void theNotFoundSlotIsNeverWritten()
    {
        final SlotTable plain = new SlotTable(1, SLOTS_PER_SHARD, SLOTS_PER_SHARD, GRACE_NS, 13L);
        final TestLoop plainLoop = new TestLoop(plain, new long[] {1}, new long[] {1});
        final SlotTable classed = new SlotTable(4, SLOTS_PER_SHARD, SLOTS_PER_SHARD, GRACE_NS, 17L);
        final TestLoop classedLoop = new TestLoop(classed, new long[] {1_000, 1_000, 1_000}, new long[] {5_000, 5_000, 5_000});
        for (final long reserved : new long[] {TableLayout.EMPTY_KEY, TableLayout.TOMBSTONE_KEY})
        {
            for (int i = 1; i <= 5; i++)
            {
                assertEquals(10_000 + i * 1_000, plainLoop.charge(reserved, 1_000, 5_000, 10_000, null), "TAT after");
            }
            assertEquals(1_000, plainLoop.charge(reserved, 1_000, 5_000, 10_000, null), "the sixth waits: its own cell");
            assertEquals(SlotLoop.CLASS_NEEDED, classedLoop.chargeClassed(reserved, 1, 10_000, null, SlotLoop.UNKNOWN_CLASS));
        }
        for (long key = 1; key <= 1_000; key++)
        {
            assertEquals(11_000, plainLoop.charge(plain.keyWord(key), 1_000, 5_000, 10_000, null));
            assertEquals(SlotLoop.CLASS_NEEDED,
                classedLoop.chargeClassed(classed.keyWord(key), 1, 10_000, null, SlotLoop.UNKNOWN_CLASS));
            assertEquals(11_000, classedLoop.chargeClassed(classed.keyWord(key), 1, 10_000, null, (int)(key % 2)));
        }
        assertEquals(TableLayout.EMPTY_KEY, org.agrona.UnsafeApi.getLongVolatile(null, SlotIndex.NO_SLOT));
        assertEquals(TableLayout.RECLAIMING, org.agrona.UnsafeApi.getLongVolatile(null, SlotIndex.NO_SLOT + TAT_OFFSET));
    }

    @Test
    void reservedWordsAreNeverFoundByAScan()
    {
        final SlotTable table = new SlotTable(1, SLOTS_PER_SHARD, SLOTS_PER_SHARD, GRACE_NS, 3L);
        final SlotIndex index = table.index();
        for (final long reserved : new long[] {TableLayout.EMPTY_KEY, TableLayout.TOMBSTONE_KEY})
        {
            assertEquals(SlotIndex.NO_SLOT, index.slotIn(reserved, -1L), "EMPTY slots hold word 0: never a key's cell");
            assertEquals(SlotIndex.NO_SLOT, index.slotSelected(reserved, -1L));
        }
    }

    private static void checkScans(final SlotTable table, final long[] words, final long matchMask)
    {
        final SlotIndex index = table.index();
        final long lineLength = TableGeometry.BUCKET_SLOTS * SLOT_LENGTH;
        // in-line position 0..3 of a home-line key, 4..7 of a key in the next line, 8 for a key further on
        final int[] atSlot = new int[9];
        for (final long word : words)
        {
            final int tatOffset = index.find(word, matchMask);
            assertTrue(tatOffset >= 0, "present");
            final long slot = index.address + tatOffset - TAT_OFFSET;
            final long line = index.homeLine(word);
            final long shardEnd = index.address +
                index.geometry.slotOffset(index.geometry.shardOf(word), 0) +
                (long)index.geometry.buckets * lineLength;
            final boolean home = slot >= line && slot < line + lineLength;
            final boolean next = slot >= line + lineLength && slot < line + 2 * lineLength && line + lineLength < shardEnd;
            final long expected = home || next ? slot : SlotIndex.NO_SLOT;
            assertEquals(expected, index.slotIn(word, matchMask), "predicted scan");
            assertEquals(home ? slot : SlotIndex.NO_SLOT, index.slotSelected(word, matchMask), "branchless scan");
            atSlot[home || next ? (int)((slot - line) / SLOT_LENGTH) : 8]++;
        }
        for (int position = 0; position < atSlot.length; position++)
        {
            assertTrue(atSlot[position] > 0, "keys at position " + position + " from the home line (8: further)");
        }
        for (long absent = 1; absent <= 10_000; absent++)
        {
            final long word = table.keyWord(-absent);
            assertEquals(SlotIndex.NO_SLOT, index.slotIn(word, matchMask), "absent key");
            assertEquals(SlotIndex.NO_SLOT, index.slotSelected(word, matchMask), "absent key");
        }
    }
}
