package dev.cellrate.table;

import dev.cellrate.TestFronts;
import dev.cellrate.Limit;
import dev.cellrate.KeyedShaper;
import dev.cellrate.Reservation;
import dev.cellrate.ShaperMode;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A reclaimed slot starts its new key above every value the old key's word ever held, and is not idle itself:
 * between a new key's claim and its first charge (the window in which another thread can run), neither a
 * paused decider of the old key nor another key's insert can take the cell from it. The test plays the other
 * threads with the table's own package-private steps (claim, validated load, CAS), as {@link RefundAbaTest}.
 */
class ReclaimSpecTest
{
    private static final long MS = 1_000_000L;
    private static final long GRACE_NS = 1_000_000_000L;
    private static final long T0_NS = 2 * GRACE_NS;
    private static final Limit LIMIT = Limit.ofGcra(MS, 99 * MS);

    @Test
    void aNewKeyJustClaimedIsAboveTheOldKeysHighestValueAndNotIdle()
    {
        final CachedNanoClock clock = new CachedNanoClock();
        clock.update(T0_NS);
        final SlotTable table = new SlotTable(1, 1, 1, GRACE_NS, 42, clock);
        final KeyedShaper shaper = TestFronts.keyedShaper(LIMIT, ShaperMode.delay(), table, clock);
        final long wordA = table.keyWord(1L);
        final Reservation two = new Reservation();
        assertEquals(0, shaper.reserve(1L, 2, T0_NS, two));
        // D: a decider of A reads A's word and stops before its CAS.
        final int offset = table.claimSlot(wordA, T0_NS);
        final long seenNs = table.loadTat(offset, wordA);
        assertEquals(T0_NS + 2 * MS, seenNs);
        assertTrue(shaper.cancel(1L, two, T0_NS), "A's 2 are refunded: its word drops below what D holds");

        // B claims the slot when "now - grace" is just past the value D holds (1 ns after it is idle).
        final long claimNs = seenNs + 1 + GRACE_NS;
        clock.update(claimNs);
        final long wordB = table.keyWord(2L);
        assertEquals(offset, table.claimSlot(wordB, claimNs), "A is idle: B reclaims its only slot");
        final long startNs = table.loadTat(offset, wordB);
        assertTrue(startNs > seenNs, "B starts above every value A held: " + startNs);
        assertTrue(startNs > claimNs - GRACE_NS, "and above now - grace: B is not idle");

        // Before B's first charge: D's CAS fails, and another new key finds no idle slot.
        assertNotEquals(seenNs, table.compareAndExchangeTat(offset, seenNs, seenNs + 50 * MS));
        assertEquals(SlotTable.FULL, table.claimSlot(table.keyWord(3L), claimNs), "B's fresh cell is not idle");
        assertEquals(startNs, table.loadTat(offset, wordB), "B's cell is untouched");
        assertEquals(1, table.evictions());
        assertEquals(1, table.liveKeys());
    }

    @Test
    void aSweptSlotIsTakenAboveTheOldKeysHighestValue()
    {
        final CachedNanoClock clock = new CachedNanoClock();
        clock.update(T0_NS);
        final SlotTable table = new SlotTable(1, 1, 1, GRACE_NS, 42, clock);
        final KeyedShaper shaper = TestFronts.keyedShaper(LIMIT, ShaperMode.delay(), table, clock);
        final long wordA = table.keyWord(1L);
        final Reservation two = new Reservation();
        assertEquals(0, shaper.reserve(1L, 2, T0_NS, two));
        final int offset = table.claimSlot(wordA, T0_NS);
        final long seenNs = table.loadTat(offset, wordA);
        assertTrue(shaper.cancel(1L, two, T0_NS));
        final long sweepNs = seenNs + 1 + GRACE_NS;
        clock.update(sweepNs);
        assertEquals(1, table.sweep(sweepNs, 1), "A swept to a tombstone");
        assertEquals(0, table.liveKeys());
        final long wordB = table.keyWord(2L);
        assertEquals(offset, table.claimSlot(wordB, sweepNs));
        assertTrue(table.loadTat(offset, wordB) > seenNs);
        assertNotEquals(seenNs, table.compareAndExchangeTat(offset, seenNs, seenNs + 50 * MS));
        assertEquals(1, table.liveKeys());
        assertEquals(1, table.evictions(), "the sweep counted the eviction, the take of the tombstone did not");
    }
}
