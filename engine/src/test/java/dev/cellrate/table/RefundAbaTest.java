package dev.cellrate.table;

import dev.cellrate.TestFronts;
import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import dev.cellrate.KeyedCompositeRateLimiter;
import dev.cellrate.KeyedShaper;
import dev.cellrate.Reservation;
import dev.cellrate.ShaperMode;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The refund-then-reclaim ABA, deterministically: a decider D stopped between its validated read and its CAS
 * (the test plays D's two steps of the slot loop itself, with the table's own package-private steps), a refund
 * that lowers the word, and a new key that reclaims the slot. T = 1 ms, burst 100, grace 1 s. Without the
 * high-water mark D's CAS would land on B's cell (witness == expected).
 */
class RefundAbaTest
{
    static final long MS = 1_000_000L;
    static final long GRACE_NS = 1_000_000_000L;
    static final long T0_NS = 2 * GRACE_NS;
    static final long KEY_A = 1;
    static final long KEY_B = 2;
    static final Limit LIMIT = Limit.ofGcra(MS, 99 * MS);

    private static CachedNanoClock clockAt(final long nowNs)
    {
        final CachedNanoClock clock = new CachedNanoClock();
        clock.update(nowNs);
        return clock;
    }

    @Test
    void aStaleDeciderNeverChargesTheKeyThatReclaimedARefundedSlot()
    {
        final CachedNanoClock clock = clockAt(T0_NS + MS);
        final SlotTable table = new SlotTable(1, 1, 1, GRACE_NS, 42, clock);
        final KeyedShaper shaper = TestFronts.keyedShaper(LIMIT, ShaperMode.delay(), table, clock);
        final long wordA = table.keyWord(KEY_A);

        final Reservation two = new Reservation();
        assertEquals(0, shaper.reserve(KEY_A, 2, T0_NS, two));
        // D: reserve(A, 50, t0) reads A's word (validated) and stops before its CAS.
        final int offset = table.claimSlot(wordA, T0_NS);
        final long seenNs = table.loadTat(offset, wordA);
        assertEquals(T0_NS + 2 * MS, seenNs);

        assertTrue(shaper.cancel(KEY_A, two, T0_NS), "A cancels its 2");
        final long codeB = shaper.reserve(KEY_B, 1, T0_NS + MS);

        // D resumes: its CAS must not succeed on a cell that now belongs to B.
        final long witnessNs = table.compareAndExchangeTat(offset, seenNs, seenNs + 50 * MS);
        assertNotEquals(seenNs, witnessNs, "stale CAS landed on B's cell (B's code " + codeB + ")");
        assertEquals(Result.TABLE_FULL, codeB, "A's slot is not idle while the value D may hold is not");

        // Once the value A's word was lowered from is idle too, B gets the slot, above that value.
        final long laterNs = seenNs + GRACE_NS;
        clock.update(laterNs);
        assertEquals(0, shaper.reserve(KEY_B, 1, laterNs));
        assertTrue(table.tatNs(table.keyWord(KEY_B)) > seenNs);
        assertEquals(SlotTable.STALE, table.loadTat(offset, wordA));
    }

    @Test
    void withRoomElsewhereTheNewKeyIsServedAndTheStaleCasStillFails()
    {
        final CachedNanoClock clock = clockAt(T0_NS + MS);
        final SlotTable table = new SlotTable(1, 2, 2, GRACE_NS, 42, clock);
        final KeyedShaper shaper = TestFronts.keyedShaper(LIMIT, ShaperMode.delay(), table, clock);
        final long wordA = table.keyWord(KEY_A);
        final Reservation two = new Reservation();
        assertEquals(0, shaper.reserve(KEY_A, 2, T0_NS, two));
        final int offset = table.claimSlot(wordA, T0_NS);
        final long seenNs = table.loadTat(offset, wordA);
        assertTrue(shaper.cancel(KEY_A, two, T0_NS));
        assertEquals(0, shaper.reserve(KEY_B, 1, T0_NS + MS), "B takes the free slot");
        assertNotEquals(seenNs, table.compareAndExchangeTat(offset, seenNs, seenNs + 50 * MS),
            "D's CAS finds A's refunded word, not its stale value");
        // A then gets exactly its burst of 100 at t0 + 1 ms: nothing more (GCRA allows 101 in [t0, t0 + 1 ms]).
        int admitted = 0;
        for (int i = 0; i < 200; i++)
        {
            admitted += shaper.reserve(KEY_A, 1, T0_NS + MS) >= 0 ? 1 : 0;
        }
        assertEquals(100, admitted);
        assertFalse(table.tatNs(table.keyWord(KEY_B)) == seenNs + 50 * MS, "B was never charged D's 50");
    }

    /**
     * The keyed composite's variant: a refund restores max(TAT0, t), so it needs a refund larger than the grace.
     * Grace 10 ms, leg 0 charged 50 ms at t and refunded (leg 1 cannot take 50): A's word t looks idle at
     * t + 10 ms, and B's 40 ms charge there would take the slot to exactly t + 50 ms, the value a decider of A
     * read during the composite call may still hold. Before the fix B got the slot and that value.
     */
    @Test
    void aCompositeRefundLargerThanTheGraceKeepsTheSlotUntilItsHighestValueIsIdle()
    {
        final long graceNs = 10 * MS;
        final CachedNanoClock clock = clockAt(T0_NS + graceNs);
        final KeyedRateLimiter leg0 = KeyedRateLimiter.builder(LIMIT).shardCount(1).slotCount(1).probeBound(1)
            .idleGraceNs(graceNs).seed(7).clock(clock).build();
        final KeyedRateLimiter leg1 = KeyedRateLimiter.builder(Limit.ofGcra(MS, 0)).shardCount(1).slotCount(1)
            .probeBound(1).idleGraceNs(graceNs).seed(8).clock(clock).build();
        final KeyedCompositeRateLimiter composite = new KeyedCompositeRateLimiter(leg0, leg1);
        final SlotTable table = TestFronts.tableOf(leg0);
        assertEquals(Result.NEVER, composite.tryAcquire(new long[]{KEY_A, KEY_A}, 50, T0_NS), "leg 1 cannot take 50");
        assertEquals(T0_NS, table.tatNs(table.keyWord(KEY_A)), "leg 0 refunded to max(TAT0, t)");
        final long chargedNs = T0_NS + 50 * MS;

        final long codeB = leg0.tryAcquire(KEY_B, 40, T0_NS + graceNs);
        assertNotEquals(chargedNs, table.tatNs(table.keyWord(KEY_B)),
            "B's word reached the value A's refund lowered from (B's code " + codeB + ")");
        assertEquals(Result.TABLE_FULL, codeB);

        clock.update(chargedNs + graceNs);
        assertEquals(Result.ADMITTED, leg0.tryAcquire(KEY_B, 40, chargedNs + graceNs));
        assertTrue(table.tatNs(table.keyWord(KEY_B)) > chargedNs);
    }
}
