package dev.cellrate.table;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.KeyedShaper;
import dev.cellrate.Limit;
import dev.cellrate.Reservation;
import dev.cellrate.Result;
import dev.cellrate.ShaperMode;
import dev.cellrate.TableFullPolicy;
import dev.cellrate.TestFronts;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;
import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.NanoClock;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The table's internal slot steps (package-private): the validated load and the CAS
 * re-validate the key.
 */
class SlotTableTest
{
    static final Limit BURST_3 = Limit.ofGcra(100, 200);

    private static KeyedRateLimiter tiny()
    {
        return KeyedRateLimiter.builder(BURST_3)
            .shardCount(1).slotCount(4).probeBound(4).idleGraceNs(10).seed(0x5eed)
            .tableFullPolicy(TableFullPolicy.REJECT).build();
    }

    @Test
    void slotApiRevalidatesTheKey()
    {
        final KeyedRateLimiter limiter = tiny();
        final SlotTable table = TestFronts.tableOf(limiter);
        final long a = table.keyWord(1L);
        final int offset = table.claimSlot(a, 1_000);
        final long tatNs = table.loadTat(offset, a);
        assertEquals(tatNs, table.compareAndExchangeTat(offset, tatNs, 1_100));
        assertEquals(1_100, table.compareAndExchangeTat(offset, tatNs, 1_200), "stale expected value fails");
        assertEquals(1, limiter.casRetries());
        assertEquals(SlotTable.STALE, table.loadTat(offset, table.keyWord(2L)));
        // Key 1 goes idle; key 2's insert may reclaim it: the old offset is then stale for key 1.
        for (long key = 2; key <= 5; key++)
        {
            assertTrue(table.claimSlot(table.keyWord(key), 5_000) >= 0);
        }
        assertEquals(SlotTable.STALE, table.loadTat(offset, a));
        assertEquals(SlotTable.FULL, table.claimSlot(a, 5_000) < 0 ? SlotTable.FULL : 0);
    }

    @Test
    void aDeciderThatFindsItsSlotMidReclaimWaitsThenDecides() throws InterruptedException
    {
        final KeyedRateLimiter limiter = tiny();
        final SlotTable table = TestFronts.tableOf(limiter);
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1L, 1, 1_000));
        final long word = table.keyWord(1L);
        final int offset = table.findSlot(word);
        final long tatNs = table.buffer().getLongVolatile(offset);
        // A reclaimer holds the slot mid-reclaim (its CAS to RECLAIMING done, its mark check pending).
        table.buffer().putLongVolatile(offset, TableLayout.RECLAIMING);
        final AtomicLong code = new AtomicLong(Long.MIN_VALUE);
        final Thread decider = new Thread(() -> code.set(limiter.tryAcquire(1L, 1, 1_100)));
        decider.start();
        decider.join(200);
        assertTrue(decider.isAlive(), "the decider waits (spin hint, yield every 64th) while the slot is mid-reclaim");
        // The reclaim gives up (the slot's high-water mark was not idle) and restores the word.
        table.buffer().putLongVolatile(offset, tatNs);
        decider.join(30_000);
        assertFalse(decider.isAlive());
        assertEquals(Result.ADMITTED, code.get());
        assertEquals(1, table.countSlots(word));
    }

    /**
     * What the table shows through its public and package steps: the long-key seed is the SipHash of "long-key",
     * the two reserved key words live in their own full cells, a probe chain wraps around its shard, a sweep goes
     * round the shards in order, marks start below any time, and the getters say what was built.
     */
    @Nested
    final class Specification
    {
        private static final long T_NS = 100;
        private static final long GRACE_NS = 1_000;
        private static final NanoClock FAR_CLOCK = () -> Long.MAX_VALUE;

        @Test
        void theLongKeySeedIsTheSipHashOfLongKeyUnderTheSecret()
        {
            final byte[] domain = "long-key".getBytes(StandardCharsets.US_ASCII);
            final long[][] secrets = {{0, 0}, {0x0706050403020100L, 0x0f0e0d0c0b0a0908L}, {-1, 42}, {42, -1}};
            for (final long[] s : secrets)
            {
                assertEquals(KeyHash.hashBytes(domain, 0, domain.length, s[0], s[1]), KeyHash.longKeySeed(s[0], s[1]));
            }
            final SlotTable table = new SlotTable(1, 4, 4, GRACE_NS, 5, 6, FAR_CLOCK);
            assertEquals(KeyHash.hashBytes(domain, 0, domain.length, 5, 6), table.seed());
        }

        @Test
        void aShardCountThatIsNotAPowerOfTwoIsRefusedByName()
        {
            final IllegalArgumentException ex =
                assertThrows(IllegalArgumentException.class, () -> new SlotTable(3, 4, 4, GRACE_NS, 1, FAR_CLOCK));
            assertTrue(ex.getMessage().contains("shardCount"), ex.getMessage());
            final SlotTable table = new SlotTable(2, 4, 3, GRACE_NS, 1, FAR_CLOCK);
            assertEquals(3, table.probeBound());
            assertEquals(GRACE_NS, table.idleGraceNs());
            assertEquals(2, table.shardCount());
            assertEquals(8, table.slotCount());
        }

        @Test
        void theTwoReservedKeyWordsHaveTheirOwnFullCells()
        {
            final KeyedRateLimiter limiter = KeyedRateLimiter.builder(Limit.ofGcra(T_NS, 2 * T_NS)).slotCount(4)
                .shardCount(1).probeBound(4).idleGraceNs(GRACE_NS).seed(11).clock(FAR_CLOCK).build();
            final SlotTable table = TestFronts.tableOf(limiter);
            final long nowNs = -1_000_000; // System.nanoTime() may be negative
            for (final long word : new long[] {TableLayout.EMPTY_KEY, TableLayout.TOMBSTONE_KEY})
            {
                final long key = KeyHash.unmixLong(word, table.seed());
                assertEquals(word, table.keyWord(key));
                assertEquals(Result.ADMITTED, limiter.tryAcquire(key, 3, nowNs), "a full bucket, also before time 0");
                assertEquals(T_NS, limiter.tryAcquire(key, 1, nowNs));
                assertEquals(nowNs + 3 * T_NS, table.tatNs(word));
                assertEquals(-2, table.slotIndexOf(word), "a dedicated cell, not a slot");
            }
            assertEquals(0, limiter.liveKeys(), "no slot used");
            assertEquals(-1, table.slotIndexOf(table.keyWord(99L)), "absent");

            // A lost CAS on a dedicated cell is counted, and a refund lowers it like any cell.
            final int emptyCell = table.findSlot(TableLayout.EMPTY_KEY);
            final long tatNs = table.loadTat(emptyCell, TableLayout.EMPTY_KEY);
            assertEquals(tatNs, table.compareAndExchangeTat(emptyCell, tatNs - 1, tatNs + 1));
            assertEquals(1, table.casRetries());
            assertFalse(table.refund(TableLayout.EMPTY_KEY, tatNs, tatNs), "restoring the same value lowers nothing");
            assertFalse(table.refund(TableLayout.EMPTY_KEY, tatNs, tatNs + 5), "a refund never raises");
            assertEquals(tatNs, table.tatNs(TableLayout.EMPTY_KEY));
            assertFalse(table.refund(TableLayout.EMPTY_KEY, tatNs + 1, tatNs - 1), "the word is not what was charged");
            assertTrue(table.refund(TableLayout.EMPTY_KEY, tatNs, tatNs - T_NS));
            assertEquals(tatNs - T_NS, table.tatNs(TableLayout.EMPTY_KEY));
        }

        @Test
        void aFullShardHoldsEveryKeyOfItsProbeChainsAndEachIsFoundThere()
        {
            // Two shards of 4 slots, probe bound 4: four keys of shard 0 fill it, so some probe chain wraps around
            // the shard's end; every key is still found in its own shard and decided on its own cell.
            final KeyedRateLimiter limiter = KeyedRateLimiter.builder(Limit.ofGcra(T_NS, 0)).slotCount(8).shardCount(2)
                .probeBound(4).idleGraceNs(GRACE_NS).seed(12).clock(FAR_CLOCK).build();
            final SlotTable table = TestFronts.tableOf(limiter);
            final int slotsPerShard = table.slotCount() / table.shardCount();
            final long[] keys = new long[slotsPerShard];
            int found = 0;
            long inShard1 = -1;
            for (long key = 1; found < keys.length || inShard1 < 0; key++)
            {
                final int shard = (int)(table.keyWord(key) >>> TableLayout.SHARD_SHIFT) & 1;
                if (0 == shard && found < keys.length)
                {
                    keys[found++] = key;
                }
                if (1 == shard && inShard1 < 0)
                {
                    inShard1 = key;
                }
            }
            assertEquals(Result.ADMITTED, limiter.tryAcquire(inShard1, 1, 0));
            boolean[] used = new boolean[slotsPerShard];
            for (final long key : keys)
            {
                assertEquals(Result.ADMITTED, limiter.tryAcquire(key, 1, 0));
            }
            for (final long key : keys)
            {
                final long word = table.keyWord(key);
                final int index = table.slotIndexOf(word);
                assertTrue(index >= 0 && index < slotsPerShard, "key " + key + " in its own shard: " + index);
                assertFalse(used[index], "one key per slot");
                used[index] = true;
                assertEquals(T_NS, table.tatNs(word));
                assertEquals(T_NS, limiter.tryAcquire(key, 1, 0), "decided on its own cell");
                assertEquals(1, table.countSlots(word));
            }
            final int index1 = table.slotIndexOf(table.keyWord(inShard1));
            assertTrue(index1 >= slotsPerShard && index1 < 2 * slotsPerShard, "shard 1's slots: " + index1);
            assertEquals(keys.length + 1, limiter.liveKeys());
        }

        @Test
        void sweepsGoRoundTheShardsInOrder()
        {
            // Four shards of two slots; one idle key in shard 1 only. Sweeps of 2 slots visit shard 0, then shard 1.
            final KeyedRateLimiter limiter = KeyedRateLimiter.builder(Limit.ofGcra(T_NS, 0)).slotCount(8).shardCount(4)
                .probeBound(2).idleGraceNs(GRACE_NS).seed(13).clock(FAR_CLOCK).build();
            final SlotTable table = TestFronts.tableOf(limiter);
            long key = 1;
            while ((((table.keyWord(key) >>> TableLayout.SHARD_SHIFT) & 3) != 1))
            {
                key++;
            }
            assertEquals(Result.ADMITTED, limiter.tryAcquire(key, 1, 0));
            final long laterNs = 1_000_000;
            assertEquals(0, limiter.sweep(laterNs, 2), "shard 0: nothing");
            assertEquals(1, limiter.sweep(laterNs, 2), "then shard 1");
            assertEquals(0, limiter.liveKeys());
        }

        @Test
        void theOverflowCellIsReadable()
        {
            final KeyedRateLimiter limiter = KeyedRateLimiter.builder(Limit.ofGcra(T_NS, 0)).slotCount(1).shardCount(1)
                .probeBound(1).idleGraceNs(GRACE_NS).seed(14).clock(FAR_CLOCK)
                .tableFullPolicy(TableFullPolicy.OVERFLOW).build();
            assertEquals(Result.ADMITTED, limiter.tryAcquire(1L, 1, 500));
            assertEquals(Result.ADMITTED_OVERFLOW, limiter.tryAcquire(2L, 1, 500));
            assertEquals(600, TestFronts.tableOf(limiter).overflowTatNs(), "the overflow cell was charged");
            assertEquals(Result.REJECTED_OVERFLOW, limiter.tryAcquire(3L, 1, 500));
        }

        @Test
        void afterARefundIdleKeysAreStillReclaimedAtNegativeTimes()
        {
            // The first refund allocates the high-water marks; they must start below any time, negative ones too.
            final long t0Ns = -10_000_000_000L;
            final CachedNanoClock clock = new CachedNanoClock();
            clock.update(t0Ns);
            final SlotTable table = new SlotTable(1, 1, 1, GRACE_NS, 15, clock);
            final KeyedShaper shaper = TestFronts.keyedShaper(Limit.ofGcra(T_NS, 9 * T_NS), ShaperMode.delay(), table, clock);
            final Reservation reservation = new Reservation();
            assertEquals(0, shaper.reserve(1L, 1, t0Ns, reservation));
            assertTrue(shaper.cancel(1L, reservation, t0Ns), "a refund: the marks exist from here on");
            final long laterNs = t0Ns + 10 * GRACE_NS;
            clock.update(laterNs);
            assertEquals(0, shaper.reserve(2L, 1, laterNs), "key 1 is idle: key 2 reclaims the only slot");
            assertEquals(1, table.evictions());
        }

        @Test
        void aSweepLeavesASlotWhoseRefundedValueIsNotIdleYet()
        {
            final long msNs = 1_000_000L;
            final long graceNs = 1_000_000_000L;
            final long t0Ns = 2 * graceNs;
            final CachedNanoClock clock = new CachedNanoClock();
            clock.update(t0Ns);
            final SlotTable table = new SlotTable(1, 1, 1, graceNs, 42, clock);
            final KeyedShaper shaper = TestFronts.keyedShaper(Limit.ofGcra(msNs, 99 * msNs), ShaperMode.delay(), table, clock);
            final Reservation two = new Reservation();
            assertEquals(0, shaper.reserve(1L, 2, t0Ns, two));
            final long chargedNs = table.tatNs(table.keyWord(1L));
            assertTrue(shaper.cancel(1L, two, t0Ns));
            // The word is idle from t0 + grace on, the value it was lowered from only from chargedNs + grace on.
            final long sweepNs = t0Ns + graceNs + msNs;
            clock.update(sweepNs);
            assertEquals(0, table.sweep(sweepNs, 1));
            assertEquals(1, table.liveKeys());
            assertEquals(0, table.evictions());
            assertEquals(0, table.slotIndexOf(table.keyWord(1L)), "key 1 keeps its slot");
            clock.update(chargedNs + graceNs);
            assertEquals(1, table.sweep(chargedNs + graceNs, 1));
            assertEquals(0, table.liveKeys());
        }
    }
}
