package dev.cellrate.table;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A key whose slot was taken at {@code nowNs = Long.MIN_VALUE} by a request that was rejected holds the fresh TAT
 * ({@link TableLayout#FRESH_SLOT_TAT_NS}, one nanosecond above {@code Long.MIN_VALUE}); at that instant its next
 * request finds a full bucket, as a new key's does (a full bucket's TAT is {@code Long.MIN_VALUE} itself), on
 * both line scans.
 */
class FreshSlotSpecTest
{
    private static final long GRACE_NS = 1_000_000_000L;
    private static final long CEILING_NS = 5_000;

    @Test
    void aPresentKeyWhoseCellWasNeverChargedStartsFullAtTheFirstInstant()
    {
        for (final boolean branchless : new boolean[] {false, true})
        {
            final SlotTable table = new SlotTable(1, 64, 64, GRACE_NS, 23L);
            final TestLoop loop = new TestLoop(table, new long[] {1}, new long[] {CEILING_NS});
            final long keyWord = table.keyWord(42L);
            assertTrue(charge(loop, keyWord, 2 * CEILING_NS, Long.MIN_VALUE, branchless) > 0,
                "a cost above the burst is rejected");
            assertEquals(TableLayout.FRESH_SLOT_TAT_NS, table.tatNs(keyWord), "the key has a slot, never charged");
            assertEquals(Long.MIN_VALUE + CEILING_NS, charge(loop, keyWord, CEILING_NS, Long.MIN_VALUE, branchless),
                "the whole burst at Long.MIN_VALUE: admitted, TAT after = Long.MIN_VALUE + I");
        }
    }

    private static long charge(
        final TestLoop loop, final long keyWord, final long incrementNs, final long nowNs, final boolean branchless)
    {
        return branchless ?
            loop.chargeBranchless(keyWord, incrementNs, CEILING_NS, nowNs, null) :
            loop.charge(keyWord, incrementNs, CEILING_NS, nowNs, null);
    }
}
