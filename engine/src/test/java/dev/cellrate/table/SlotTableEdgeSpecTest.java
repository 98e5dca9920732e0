package dev.cellrate.table;

import dev.cellrate.TestFronts;
import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import org.agrona.concurrent.NanoClock;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The table at its edges: a table needs its eviction clock; a new key at a negative time (System.nanoTime() may
 * be negative) starts full; the initial fill saturates at the end of time and a peek answers what a charge would
 * start from; a classed lookup of a key without a cell is STALE; a refund that does not apply changes nothing
 * (no word, no mark, no memory) while the first one that applies allocates one mark per slot; and a lost CAS is
 * counted once whatever shard its slot is in.
 */
class SlotTableEdgeSpecTest
{
    private static final long T_NS = 100;
    private static final long GRACE_NS = 1_000;
    private static final NanoClock FAR_CLOCK = () -> Long.MAX_VALUE;

    @Test
    void aTableNeedsItsEvictionClock()
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> new SlotTable(1, 4, 4, GRACE_NS, 1L, (NanoClock)null));
        assertTrue(ex.getMessage().contains("evictionClock"), ex.getMessage());
    }

    @Test
    void aNewKeyAtANegativeTimeStartsFull()
    {
        final KeyedRateLimiter limiter = KeyedRateLimiter.builder(Limit.ofGcra(T_NS, 2 * T_NS)).slotCount(16)
            .shardCount(4).probeBound(4).idleGraceNs(GRACE_NS).seed(3).clock(FAR_CLOCK).build();
        final long nowNs = -10_000_000_000L;
        for (long key = 1; key <= 8; key++)
        {
            assertEquals(Result.ADMITTED, limiter.tryAcquire(key, 3, nowNs), "key " + key + ": the whole burst");
            assertEquals(T_NS, limiter.tryAcquire(key, 1, nowNs));
        }
    }

    @Test
    void theInitialFillSaturatesAtTheEndOfTimeAndAPeekReadsWhatAChargeWouldStartFrom()
    {
        final SlotTable full = new SlotTable(1, 4, 4, GRACE_NS, 4L, FAR_CLOCK);
        final long absent = full.keyWord(1L);
        assertEquals(SlotTable.STALE, full.peekTatNs(absent, 5_000), "new keys start full: a full bucket");

        final SlotTable filled = new SlotTable(1, 4, 4, GRACE_NS, 4L, FAR_CLOCK);
        filled.fillNewKeys(1_000);
        assertEquals(6_000, filled.peekTatNs(absent, 5_000));
        assertEquals(Long.MAX_VALUE, filled.peekTatNs(absent, Long.MAX_VALUE - 10), "saturated, not wrapped");
        assertEquals(Long.MAX_VALUE, filled.peekTatNs(absent, Long.MAX_VALUE - 1_000));
        assertEquals(Long.MAX_VALUE - 1, filled.peekTatNs(absent, Long.MAX_VALUE - 1_001));

        final TestLoop loop = new TestLoop(filled, new long[] {T_NS}, new long[] {2_000});
        assertEquals(6_100, loop.charge(absent, T_NS, 2_000, 5_000, null), "the new key started at 5_000 + 1_000");
        assertEquals(6_100, filled.peekTatNs(absent, 5_000), "a present key: its own word, not the fill");
        assertEquals(6_100, filled.peekTatNs(absent, 9_000));
    }

    @Test
    void aClassedLookupOfAKeyWithoutACellIsStale()
    {
        final SlotTable table = new SlotTable(4, 4, 4, GRACE_NS, 5L, FAR_CLOCK);
        final long keyWord = table.keyWord(9L);
        assertEquals(SlotTable.STALE, table.classedTatNs(keyWord));
        assertEquals(-1, table.classOf(keyWord));
        final TestLoop loop = new TestLoop(table, new long[] {T_NS, T_NS}, new long[] {T_NS, T_NS});
        assertEquals(1_100, loop.chargeClassed(keyWord, 1, 1_000, null, 1));
        assertEquals(1_100, table.classedTatNs(keyWord));
        assertEquals(1, table.classOf(keyWord));
    }

    @Test
    void aRefundThatDoesNotApplyChangesNothingAndTheFirstThatDoesAllocatesOneMarkPerSlot()
    {
        final SlotTable table = new SlotTable(2, 4, 4, GRACE_NS, 6L, FAR_CLOCK);
        final TestLoop loop = new TestLoop(table, new long[] {T_NS}, new long[] {5 * T_NS});
        final long a = table.keyWord(1L);
        final long b = table.keyWord(2L);
        final long wordNs = loop.charge(a, 3 * T_NS, 5 * T_NS, 1_000, null);
        assertEquals(1_300, wordNs);
        assertEquals(1_300, loop.charge(b, 3 * T_NS, 5 * T_NS, 1_000, null));
        final long bytes = table.capacityBytes();

        assertFalse(table.refund(a, wordNs + 500, wordNs - T_NS), "the word is not what was charged");
        assertEquals(wordNs, table.tatNs(a));
        assertEquals(bytes, table.capacityBytes(), "nothing refunded: no marks allocated");
        // Nor was a's idleness pushed out: at word + grace it is idle and swept (with b).
        assertEquals(2, table.sweep(wordNs + GRACE_NS, table.slotCount()));

        final long c = table.keyWord(3L);
        final long chargedNs = loop.charge(c, 3 * T_NS, 5 * T_NS, 10_000, null);
        assertTrue(table.refund(c, chargedNs, chargedNs - T_NS));
        assertEquals(chargedNs - T_NS, table.tatNs(c));
        assertEquals(bytes + 8L * table.slotCount(), table.capacityBytes(), "one 8-byte mark per slot");
    }

    @Test
    void aLostCasIsCountedOnceInWhateverShardItsSlotIs()
    {
        final SlotTable table = new SlotTable(4, 4, 4, GRACE_NS, 7L, FAR_CLOCK);
        final boolean[] seen = new boolean[table.shardCount()];
        int counted = 0;
        for (long key = 1; counted < seen.length; key++)
        {
            final long word = table.keyWord(key);
            final int shard = (int)(word >>> TableLayout.SHARD_SHIFT) & (seen.length - 1);
            if (seen[shard])
            {
                continue;
            }
            seen[shard] = true;
            final int offset = table.claimSlot(word, 1_000);
            final long tatNs = table.loadTat(offset, word);
            assertEquals(tatNs, table.compareAndExchangeTat(offset, tatNs + 7, tatNs + 9), "a stale expected value");
            counted++;
            assertEquals(counted, table.casRetries(), "shard " + shard);
            assertEquals(tatNs, table.loadTat(offset, word), "nothing written");
        }
    }
    @Test
    void anInsertNeverPlacesAKeyPastTheProbeBound()
    {
        // One shard of 8 slots (two buckets of 4), probe bound 2: three keys of one home bucket: the third finds
        // no slot within two probes and is refused, though the bucket has room; a lookup never looks further.
        final SlotTable table = new SlotTable(1, 8, 2, GRACE_NS, 8L, FAR_CLOCK);
        final long first = table.keyWord(1L);
        final long home = TableLayout.homeIndex(first, 2);
        final long[] words = new long[3];
        int found = 0;
        for (long key = 1; found < words.length; key++)
        {
            final long word = table.keyWord(key);
            if (TableLayout.homeIndex(word, 2) == home)
            {
                words[found++] = word;
            }
        }
        assertTrue(table.claimSlot(words[0], 1_000) >= 0);
        assertTrue(table.claimSlot(words[1], 1_000) >= 0);
        assertEquals(SlotTable.FULL, table.claimSlot(words[2], 1_000));
        assertEquals(1, table.tableFullEvents());
        assertEquals(-1, table.slotIndexOf(words[2]));
        assertEquals(2, table.liveKeys());
    }
    @Test
    void aRefundedSlotStaysBusyUntilItsOwnHighestValueIsIdleAndOnlyThatSlot()
    {
        // Two keys in one shard of 4 slots; B (not in slot 0) is charged 5 and refunded 4. Later, A (charged 1)
        // is idle and swept while B is not: B's mark holds the value it was lowered from, A's slot has none.
        final org.agrona.concurrent.CachedNanoClock clock = new org.agrona.concurrent.CachedNanoClock();
        clock.update(10_000);
        final SlotTable table = new SlotTable(1, 4, 4, GRACE_NS, 9L, clock);
        final TestLoop loop = new TestLoop(table, new long[] {T_NS}, new long[] {10 * T_NS});
        // One bucket: each key takes its preferred slot (bits 32-33 of its word), B's neither A's nor slot 0.
        final long a = table.keyWord(1L);
        long bKey = 2;
        while ((table.keyWord(bKey) >>> 32 & 3) == 0 || (table.keyWord(bKey) >>> 32 & 3) == (a >>> 32 & 3))
        {
            bKey++;
        }
        final long b = table.keyWord(bKey);
        assertEquals(10_100, loop.charge(a, T_NS, 10 * T_NS, 10_000, null));
        assertEquals(10_100, loop.charge(b, T_NS, 10 * T_NS, 10_000, null));
        assertEquals(a >>> 32 & 3, table.slotIndexOf(a));
        assertEquals(b >>> 32 & 3, table.slotIndexOf(b));
        final long chargedNs = loop.charge(b, 4 * T_NS, 10 * T_NS, 10_000, null);
        assertEquals(10_500, chargedNs);
        assertTrue(table.refund(b, chargedNs, chargedNs - 4 * T_NS));
        assertEquals(10_100, table.tatNs(b));
        // At 10_100 + grace both words are idle, but B's slot was at 10_500 a moment ago.
        final long sweepNs = 10_100 + GRACE_NS;
        clock.update(sweepNs);
        table.sweep(sweepNs, table.slotCount());
        assertEquals(-1, table.slotIndexOf(a), "A is idle and swept");
        assertTrue(table.slotIndexOf(b) > 0, "B's slot is busy until 10_500 + grace");
        clock.update(chargedNs + GRACE_NS);
        table.sweep(chargedNs + GRACE_NS, table.slotCount());
        assertEquals(-1, table.slotIndexOf(b));
    }
    @Test
    void aSweepVisitsExactlyTheSlotsAskedFor()
    {
        // One shard, one bucket of 4 slots: two keys in slots 0 and 1, both idle later. A sweep of 1 slot at a
        // time reclaims them one by one (wherever the inserts' own amortised sweeps left the cursor).
        final SlotTable table = new SlotTable(1, 4, 4, GRACE_NS, 10L, FAR_CLOCK);
        final TestLoop loop = new TestLoop(table, new long[] {T_NS}, new long[] {T_NS});
        assertEquals(1_100, loop.charge(table.keyWord(1L), T_NS, T_NS, 1_000, null));
        assertEquals(1_100, loop.charge(table.keyWord(2L), T_NS, T_NS, 1_000, null));
        final long laterNs = 1_000_000;
        int reclaimed = 0;
        for (int visit = 0; visit < 4; visit++)
        {
            final int one = table.sweep(laterNs, 1);
            assertTrue(one <= 1, "one slot visited: at most one key reclaimed, got " + one);
            reclaimed += one;
        }
        assertEquals(2, reclaimed, "four single-slot sweeps visit the whole shard once");
        assertEquals(0, table.liveKeys());
    }
    @Test
    void theOverflowCellStartsFullAtANegativeTime()
    {
        final KeyedRateLimiter limiter = KeyedRateLimiter.builder(Limit.ofGcra(T_NS, 2 * T_NS)).slotCount(1)
            .shardCount(1).probeBound(1).idleGraceNs(GRACE_NS).seed(11).clock(FAR_CLOCK)
            .tableFullPolicy(dev.cellrate.TableFullPolicy.OVERFLOW).build();
        final long nowNs = -10_000_000_000L;
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1L, 1, nowNs), "key 1 takes the only slot");
        assertEquals(Result.ADMITTED_OVERFLOW, limiter.tryAcquire(2L, 3, nowNs), "the shared cell's whole burst");
        assertEquals(nowNs + 3 * T_NS, TestFronts.tableOf(limiter).overflowTatNs());
        assertEquals(Result.REJECTED_OVERFLOW, limiter.tryAcquire(3L, 1, nowNs));
    }
}
