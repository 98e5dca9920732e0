package dev.cellrate.table;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A bounded refund never lowers a key's word to or below the idle-before time of the reclaim that gave the key
 * its slot, whatever time the refunding caller passes: a paused decider of the slot's old key holds a value at or
 * below that time, so its stale CAS keeps failing. Checked at negative times as well as positive ones (the time
 * is any long the caller chooses).
 */
class ReclaimFloorSpecTest
{
    private static final long GRACE_NS = 1_000_000_000L;
    private static final long PER_PERMIT_NS = 1_000;
    private static final long CEILING_NS = 5 * PER_PERMIT_NS;

    @Test
    void aBoundedRefundStopsAboveTheReclaimFloorAtNegativeAndPositiveTimes()
    {
        for (final long startNs : new long[] {-20 * GRACE_NS, 20 * GRACE_NS})
        {
            // One slot: every new key reclaims the one before it.
            final SlotTable table = new SlotTable(1, 1, 1, GRACE_NS, 29L, () -> Long.MAX_VALUE);
            final TestLoop loop = new TestLoop(table, new long[] {PER_PERMIT_NS}, new long[] {CEILING_NS});
            final long oldKey = table.keyWord(1L);
            final long newKey = table.keyWord(2L);
            assertEquals(startNs + PER_PERMIT_NS, loop.charge(oldKey, PER_PERMIT_NS, CEILING_NS, startNs, null));
            final long reclaimNs = startNs + 5 * GRACE_NS;
            final long idleBeforeNs = reclaimNs - GRACE_NS;
            assertEquals(reclaimNs + PER_PERMIT_NS, loop.charge(newKey, PER_PERMIT_NS, CEILING_NS, reclaimNs, null),
                "the new key took the old key's slot");
            assertEquals(1, table.evictions(), "by a reclaim at " + reclaimNs);
            final long tatNs = reclaimNs + PER_PERMIT_NS;
            assertEquals(tatNs - (idleBeforeNs + 1), loop.refundAtMost(newKey, 100 * GRACE_NS, Long.MIN_VALUE),
                "a caller far behind gets back no more than down to the reclaim floor + 1");
            assertEquals(idleBeforeNs + 1, table.tatNs(newKey), "at " + startNs);
        }
    }
}
