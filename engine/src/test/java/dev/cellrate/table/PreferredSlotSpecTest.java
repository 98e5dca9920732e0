package dev.cellrate.table;

import org.junit.jupiter.api.Test;

import static dev.cellrate.table.TableLayout.SLOT_LENGTH;
import static dev.cellrate.table.TableLayout.TAT_OFFSET;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A key's preferred slot: bits 32 and 33 of its key word name one slot of its home line. A new key takes that
 * slot when it is free, else the next free one of the line after it (wrapping inside the line), and every lookup
 * tries it first. A key placed by any order of its home line (inserts that took the line's first free slot) is
 * found by every lookup and never inserted twice. (A mapped table file's layout version names the insert order
 * all the same, because an engine whose probe ends at the first EMPTY slot would miss such a key:
 * {@code TableFileTest.aFileOfTheSlotOrderPlacementIsRefused}.)
 */
class PreferredSlotSpecTest
{
    private static final long GRACE_NS = 1_000_000_000L;
    private static final long LINE_LENGTH = 4 * SLOT_LENGTH;

    private static int preferred(final long keyWord)
    {
        return (int)(keyWord >>> 32) & 3;
    }

    @Test
    void aNewKeyTakesItsPreferredSlotWhenItIsFree()
    {
        final int[] perPosition = new int[4];
        for (long key = 1; key <= 200; key++)
        {
            final SlotTable table = new SlotTable(1, 64, 64, GRACE_NS, 3L);
            final SlotIndex index = table.index();
            final long word = table.keyWord(key);
            final int tatOffset = table.insertSlot(word, 0);
            assertEquals(index.homeLine(word) + preferred(word) * SLOT_LENGTH, index.address + tatOffset - TAT_OFFSET,
                "key " + key);
            perPosition[preferred(word)]++;
        }
        for (int position = 0; position < 4; position++)
        {
            assertTrue(perPosition[position] > 0, "keys preferring slot " + position);
        }
    }

    @Test
    void keysSharingAPreferredSlotFillTheLineFromItThenGoToTheNextLine()
    {
        final SlotTable table = new SlotTable(1, 64, 64, GRACE_NS, 5L);
        final SlotIndex index = table.index();
        final long line = index.address + index.geometry.slotOffset(0, 20);
        final long[] words = new long[5];
        int found = 0;
        for (long key = 1; found < words.length; key++)
        {
            final long word = table.keyWord(key);
            if (index.homeLine(word) == line && preferred(word) == 2)
            {
                words[found++] = word;
            }
        }
        final int[] expected = {2, 3, 0, 1, 4}; // from the preferred slot, wrapping in the line; then the next line
        for (int i = 0; i < words.length; i++)
        {
            final int tatOffset = table.insertSlot(words[i], 0);
            assertEquals(line + expected[i] * SLOT_LENGTH, index.address + tatOffset - TAT_OFFSET, "key " + i);
        }
        for (int i = 0; i < words.length; i++)
        {
            final long slot = line + expected[i] * SLOT_LENGTH;
            assertEquals(slot + TAT_OFFSET - index.address, index.find(words[i], -1L), "found " + i);
            assertEquals(slot, index.slotIn(words[i], -1L), "predicted scan " + i);
            assertEquals(i < 4 ? slot : SlotIndex.NO_SLOT, index.slotSelected(words[i], -1L), "branchless scan " + i);
        }
    }

    /**
     * At the designed load (0.75 keys per slot) most keys sit in their preferred slot, under the bound
     * {@code (1 - e^-0.75) / 0.75} = 70.8% of keys that any placement by the keys' own bits can reach.
     */
    @Test
    void mostKeysSitInTheirPreferredSlotAtTheDesignedLoad()
    {
        final int shards = 4;
        final int slotsPerShard = 4_096;
        final SlotTable table = new SlotTable(shards, slotsPerShard, slotsPerShard, GRACE_NS, 11L);
        final SlotIndex index = table.index();
        final int keys = shards * slotsPerShard * 3 / 4;
        int preferred = 0;
        for (long key = 1; key <= keys; key++)
        {
            final long word = table.keyWord(key);
            final int tatOffset = table.insertSlot(word, 0);
            assertTrue(tatOffset >= 0, "inserted");
            if (index.address + tatOffset - TAT_OFFSET == index.homeLine(word) + preferred(word) * SLOT_LENGTH)
            {
                preferred++;
            }
        }
        final double share = (double)preferred / keys;
        assertTrue(share > 0.60 && share < (1 - Math.exp(-0.75)) / 0.75, "share in the preferred slot: " + share);
    }

    /**
     * A home line written in slot order (the first key in slot 0, the second in slot 1, slots 2 and 3 EMPTY) with
     * a second key that prefers an EMPTY slot of the line: every lookup finds it where it is, and an insert of it
     * finds it too instead of claiming a second slot.
     */
    @Test
    void aKeyPlacedInAnotherOrderOfItsHomeLineIsFoundAndNeverInsertedTwice()
    {
        for (final int preferredOfSecond : new int[] {2, 3})
        {
            final SlotTable table = new SlotTable(1, 64, 64, GRACE_NS, 7L);
            final SlotIndex index = table.index();
            final long line = index.address + index.geometry.slotOffset(0, 8);
            long first = 0;
            long second = 0;
            for (long key = 1; 0 == second; key++)
            {
                final long word = table.keyWord(key);
                if (index.homeLine(word) != line)
                {
                    continue;
                }
                if (0 == first && preferred(word) != 0)
                {
                    first = word;
                }
                else if (0 != first && preferred(word) == preferredOfSecond)
                {
                    second = word;
                }
            }
            final int slot0 = (int)(line - index.address);
            place(index, slot0, first, 1_000);
            place(index, slot0 + SLOT_LENGTH, second, 2_000);

            assertEquals(slot0 + TAT_OFFSET, index.find(first, -1L), "first, in slot 0");
            assertEquals(slot0 + SLOT_LENGTH + TAT_OFFSET, index.find(second, -1L), "second, in slot 1");
            assertEquals(line + SLOT_LENGTH, index.slotIn(second, -1L), "predicted scan");
            assertEquals(line + SLOT_LENGTH, index.slotSelected(second, -1L), "branchless scan");
            assertEquals(2_000, table.tatNs(second));
            assertEquals(slot0 + SLOT_LENGTH + TAT_OFFSET, table.insertSlot(second, 0), "found under the lock");
            assertEquals(slot0 + TAT_OFFSET, table.claimSlot(first, 0));
            assertEquals(1, table.countSlots(second), "one slot for the key");
            assertEquals(1, table.countSlots(first));
        }
    }

    /** A slot written as a table file of another placement holds it: TAT, then key. */
    private static void place(final SlotIndex index, final int slot, final long word, final long tatNs)
    {
        index.buffer.putLongVolatile(slot + TAT_OFFSET, tatNs);
        index.buffer.putLongVolatile(slot, word);
    }
}
