package dev.cellrate.table;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The two key words a slot uses as markers, {@link TableLayout#EMPTY_KEY} (a never-used slot) and
 * {@link TableLayout#TOMBSTONE_KEY} (a swept slot), are also key words a key can have: each is decided on its own
 * cell in the table header, never on a slot that holds the marker. So its state outlives the slots: when new keys
 * take every empty or swept slot, each new key starts full and the reserved word keeps its debt. Both line scans
 * of the decision path (with a branch per slot and without) are checked; the answers do not depend on which slot
 * the scans look at first.
 */
class ReservedWordCellSpecTest
{
    private static final long GRACE_NS = 1_000_000_000L;
    private static final int SLOTS = 8;
    private static final long PER_PERMIT_NS = 1_000;
    /** Five permits at one instant conform: the sixth waits one interval. */
    private static final long CEILING_NS = 5 * PER_PERMIT_NS;
    private static final long NOW_NS = 10 * GRACE_NS;

    @Test
    void theEmptyWordKeepsItsOwnCellWhileNewKeysTakeEveryEmptySlot()
    {
        for (final boolean branchless : new boolean[] {false, true})
        {
            final SlotTable table = table();
            final TestLoop loop = new TestLoop(table, new long[] {PER_PERMIT_NS}, new long[] {CEILING_NS});
            checkReservedWordKeepsItsDebt(table, loop, TableLayout.EMPTY_KEY, branchless);
        }
    }

    @Test
    void theTombstoneWordKeepsItsOwnCellWhileNewKeysTakeEverySweptSlot()
    {
        for (final boolean branchless : new boolean[] {false, true})
        {
            final SlotTable table = table();
            final TestLoop loop = new TestLoop(table, new long[] {PER_PERMIT_NS}, new long[] {CEILING_NS});
            for (long key = 1; key <= SLOTS; key++)
            {
                assertEquals(PER_PERMIT_NS, charge(loop, table.keyWord(-key), 0, branchless), "an old key at time 0");
            }
            assertEquals(SLOTS, table.sweep(NOW_NS, SLOTS), "every slot swept: each holds the tombstone word");
            checkReservedWordKeepsItsDebt(table, loop, TableLayout.TOMBSTONE_KEY, branchless);
        }
    }

    private static SlotTable table()
    {
        // One shard of two lines; an eviction clock that never holds eviction back.
        return new SlotTable(1, SLOTS, SLOTS, GRACE_NS, 19L, () -> Long.MAX_VALUE);
    }

    private static void checkReservedWordKeepsItsDebt(
        final SlotTable table, final TestLoop loop, final long reservedWord, final boolean branchless)
    {
        final String scan = branchless ? "branchless scan" : "predicted scan";
        for (int permit = 1; permit <= 5; permit++)
        {
            assertEquals(NOW_NS + permit * PER_PERMIT_NS, charge(loop, reservedWord, NOW_NS, branchless),
                scan + ": the reserved word's permit " + permit);
        }
        assertEquals(PER_PERMIT_NS, charge(loop, reservedWord, NOW_NS, branchless), scan + ": its sixth waits");
        for (long key = 1; key <= SLOTS; key++)
        {
            assertEquals(NOW_NS + PER_PERMIT_NS, charge(loop, table.keyWord(key), NOW_NS, branchless),
                scan + ": new key " + key + " starts full");
        }
        assertEquals(0, table.countSlots(reservedWord), scan + ": no slot holds the reserved word any more");
        assertEquals(PER_PERMIT_NS, charge(loop, reservedWord, NOW_NS, branchless),
            scan + ": the reserved word still waits");
    }

    private static long charge(final TestLoop loop, final long keyWord, final long nowNs, final boolean branchless)
    {
        return branchless ?
            loop.chargeBranchless(keyWord, PER_PERMIT_NS, CEILING_NS, nowNs, null) :
            loop.charge(keyWord, PER_PERMIT_NS, CEILING_NS, nowNs, null);
    }
}
