package dev.cellrate.table.mapped;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellrate.table.TableLayout;
import org.junit.jupiter.api.Test;

/** The rebase arithmetic: exact where the wall clock is right, conservative at every edge. */
final class TimeBaseTest
{
    @Test
    void aWordMovesByTheWallClockTimeThatPassed()
    {
        // Old boot: mono 500 s at wall 10,000 s. New boot: mono 20 s at wall 10,600 s (600 s later by the wall).
        final long deltaNs = TimeBase.rebaseDeltaNs(500 * S, 10_000 * S, 20 * S, 10_600 * S);
        assertEquals((20 - 10_600 - 500 + 10_000) * S, deltaNs);
        final long capNs = 20 * S + 10 * MS;
        // A TAT 5 ms past the old anchor's wall instant + 600 s: 5 ms in the future now.
        assertEquals(capNs - 5 * MS, TimeBase.rebasedTatNs(1_100 * S + 5 * MS, deltaNs, capNs));
        // A TAT far in the future (a wall clock that went back): capped at an empty bucket.
        assertEquals(capNs, TimeBase.rebasedTatNs(1_200 * S, deltaNs, capNs));
        // A TAT long past: a full bucket, never below a fresh slot, never the reclaim marker.
        assertEquals(20 * S - 1_100 * S, TimeBase.rebasedTatNs(0, deltaNs, capNs)); // wall 9,500 s: 1,100 s ago
        assertEquals(TableLayout.FRESH_SLOT_TAT_NS, TimeBase.rebasedTatNs(Long.MIN_VALUE + 5, -S, capNs));
        assertEquals(TableLayout.FRESH_SLOT_TAT_NS, TimeBase.rebasedTatNs(TableLayout.FRESH_SLOT_TAT_NS, S, capNs));
        assertEquals(capNs, TimeBase.rebasedTatNs(TableLayout.RECLAIMING, deltaNs, capNs), "mid-reclaim: empty");
    }

    @Test
    void aWallClockBehindTheAnchorOnlyMakesKeysWait()
    {
        // The new boot's wall clock reads 1970 (a dead RTC): every word is capped at an empty bucket.
        final long deltaNs = TimeBase.rebaseDeltaNs(500 * S, 1_700_000_000 * S, 20 * S, 0);
        final long capNs = 20 * S + 10 * MS;
        assertEquals(capNs, TimeBase.rebasedTatNs(400 * S, deltaNs, capNs));
        assertTrue(TimeBase.saturatedAdd(Long.MAX_VALUE, 1) == Long.MAX_VALUE);
        assertTrue(TimeBase.saturatedSubtract(Long.MIN_VALUE, 1) == Long.MIN_VALUE);
    }

    @Test
    void thisHostHasABootId()
    {
        final TimeBase base = TimeBase.current();
        assertEquals(36, base.bootId().length());
        assertTrue(base.sameBoot(TimeBase.current()));
    }

    private static final long S = 1_000_000_000L;
    private static final long MS = 1_000_000L;
}
