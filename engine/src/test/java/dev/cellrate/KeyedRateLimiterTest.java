package dev.cellrate;

import java.nio.charset.StandardCharsets;

import dev.cellrate.table.KeyHash;
import dev.cellrate.table.SlotTable;
import dev.cellrate.table.TableLayout;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class KeyedRateLimiterTest
{
    static final long T_NS = 100;
    static final Limit BURST_3 = Limit.ofGcra(T_NS, 2 * T_NS);

    private static KeyedRateLimiter tiny(final TableFullPolicy policy)
    {
        return KeyedRateLimiter.builder(BURST_3)
            .shardCount(1).slotCount(4).probeBound(4).idleGraceNs(10).seed(0x5eed).tableFullPolicy(policy).build();
    }

    @Test
    void eachKeyHasItsOwnBurst()
    {
        final KeyedRateLimiter limiter = tiny(TableFullPolicy.REJECT);
        for (long key = 1; key <= 3; key++)
        {
            assertEquals(Result.ADMITTED, limiter.tryAcquire(key, 2, 1_000));
            assertEquals(Result.ADMITTED, limiter.tryAcquire(key, 1, 1_000));
            assertEquals(T_NS, limiter.tryAcquire(key, 1, 1_000));
            assertEquals(Result.NEVER, limiter.tryAcquire(key, 4, 1_000));
        }
        assertEquals(3, limiter.liveKeys());
        final Decision decision = new Decision();
        assertEquals(T_NS, limiter.tryAcquire(2, 1, 1_000, decision));
        assertEquals(0, decision.remaining());
        assertEquals(3 * T_NS, decision.resetAfterNs());
    }

    @Test
    void neverCostDoesNotClaimASlot()
    {
        final KeyedRateLimiter limiter = tiny(TableFullPolicy.REJECT);
        assertEquals(Result.NEVER, limiter.tryAcquire(9, 0, 0));
        assertEquals(Result.NEVER, limiter.tryAcquire("k", 4, 0));
        assertEquals(0, limiter.liveKeys());
    }

    private static void fillWithActiveKeys(final KeyedRateLimiter limiter)
    {
        for (long key = 1; key <= 4; key++)
        {
            assertEquals(Result.ADMITTED, limiter.tryAcquire(key, 1, 1_000));
        }
    }

    @Test
    void rejectPolicyFailsClosedAndCounts()
    {
        final KeyedRateLimiter limiter = tiny(TableFullPolicy.REJECT);
        fillWithActiveKeys(limiter);
        final Decision decision = new Decision();
        assertEquals(Result.TABLE_FULL, limiter.tryAcquire(5, 1, 1_000, decision));
        assertEquals(Result.TABLE_FULL, decision.code());
        assertFalse(Result.isAdmitted(Result.TABLE_FULL));
        assertEquals(1, limiter.tableFullEvents());
        // Once the residents are idle (TAT 1100 <= now - grace), the new key evicts one and decides normally.
        assertEquals(Result.ADMITTED, limiter.tryAcquire(5, 1, 1_110));
        // One reclaimed for key 5, up to two more tombstoned by the insert's amortised sweep.
        assertTrue(limiter.evictions() >= 1 && limiter.evictions() <= 3, "evictions " + limiter.evictions());
        assertEquals(5 - limiter.evictions(), limiter.liveKeys());
    }

    @Test
    void activeKeysAreNeverEvicted()
    {
        final KeyedRateLimiter limiter = tiny(TableFullPolicy.REJECT);
        fillWithActiveKeys(limiter);
        // TAT 1100 > 1109 - 10: still inside the grace, so not idle.
        assertEquals(Result.TABLE_FULL, limiter.tryAcquire(5, 1, 1_109));
        assertEquals(0, limiter.sweep(1_109, 100));
        assertEquals(0, limiter.evictions());
        assertEquals(4, limiter.sweep(1_110, 4));
        assertEquals(0, limiter.liveKeys());
    }

    @Test
    void admitPolicyFailsOpenWithItsOwnCode()
    {
        final KeyedRateLimiter limiter = tiny(TableFullPolicy.ADMIT);
        fillWithActiveKeys(limiter);
        for (int i = 0; i < 10; i++)
        {
            final long code = limiter.tryAcquire(5, 1, 1_000);
            assertEquals(Result.ADMITTED_TABLE_FULL, code);
            assertTrue(Result.isAdmitted(code));
        }
        assertEquals(10, limiter.tableFullEvents());
    }

    @Test
    void overflowPolicySharesOneCellWithTheSameLimit()
    {
        final KeyedRateLimiter limiter = tiny(TableFullPolicy.OVERFLOW);
        fillWithActiveKeys(limiter);
        assertEquals(Result.ADMITTED_OVERFLOW, limiter.tryAcquire(5, 1, 1_000));
        assertEquals(Result.ADMITTED_OVERFLOW, limiter.tryAcquire(6, 1, 1_000));
        assertEquals(Result.ADMITTED_OVERFLOW, limiter.tryAcquire("seven", 1, 1_000));
        final Decision decision = new Decision();
        assertEquals(Result.REJECTED_OVERFLOW, limiter.tryAcquire(8, 1, 1_000, decision));
        assertEquals(T_NS, decision.retryAfterNs());
        assertTrue(Result.isAdmitted(Result.ADMITTED_OVERFLOW));
        assertFalse(Result.isAdmitted(Result.REJECTED_OVERFLOW));
        assertEquals(4, limiter.tableFullEvents());
    }

    @Test
    void sameUtf8BytesAreTheSameKeyAcrossKeyTypes()
    {
        final KeyedRateLimiter limiter = KeyedRateLimiter.builder(BURST_3).slotCount(1024).shardCount(4).build();
        final String key = "tenant-é/€/\uD83D\uDE00";
        final byte[] utf8 = key.getBytes(StandardCharsets.UTF_8);
        final byte[] framed = new byte[utf8.length + 3];
        System.arraycopy(utf8, 0, framed, 2, utf8.length);
        assertEquals(Result.ADMITTED, limiter.tryAcquire(key, 1, 0));
        assertEquals(Result.ADMITTED, limiter.tryAcquire(new StringBuilder(key), 1, 0));
        assertEquals(Result.ADMITTED, limiter.tryAcquire(framed, 2, utf8.length, 1, 0));
        assertEquals(T_NS, limiter.tryAcquire(new UnsafeBuffer(framed), 2, utf8.length, 1, 0));
        assertEquals(1, limiter.liveKeys());
        assertEquals(Result.ADMITTED, limiter.tryAcquire(key.hashCode(), 1, 0), "a long key is another key");
    }

    @Test
    void reservedWordsGetDedicatedCellsSoNoTwoKeysShareOne()
    {
        final long seed = 31;
        final KeyedRateLimiter limiter = KeyedRateLimiter.builder(BURST_3).slotCount(64).shardCount(1).seed(seed).build();
        final long emptyOwner = KeyHash.unmixLong(TableLayout.EMPTY_KEY, limiter.table().seed());
        final long tombstoneOwner = KeyHash.unmixLong(TableLayout.TOMBSTONE_KEY, limiter.table().seed());
        for (int i = 0; i < 3; i++)
        {
            assertEquals(Result.ADMITTED, limiter.tryAcquire(emptyOwner, 1, 0));
            assertEquals(Result.ADMITTED, limiter.tryAcquire(tombstoneOwner, 1, 0));
            assertEquals(Result.ADMITTED, limiter.tryAcquire(i, 1, 0));
        }
        assertEquals(T_NS, limiter.tryAcquire(emptyOwner, 1, 0));
        assertEquals(T_NS, limiter.tryAcquire(tombstoneOwner, 1, 0));
        assertEquals(3, limiter.liveKeys(), "reserved words never occupy a slot");
        assertEquals(0, limiter.table().countSlots(TableLayout.EMPTY_KEY) - (64 - 3));
    }

    @Test
    void fixedSeedReproducesPlacementAndAnotherSeedPlacesDifferently()
    {
        final KeyedRateLimiter a = KeyedRateLimiter.builder(BURST_3).slotCount(1 << 12).shardCount(8).seed(5).build();
        final KeyedRateLimiter b = KeyedRateLimiter.builder(BURST_3).slotCount(1 << 12).shardCount(8).seed(5).build();
        final KeyedRateLimiter c = KeyedRateLimiter.builder(BURST_3).slotCount(1 << 12).shardCount(8).seed(6).build();
        int different = 0;
        for (long key = 0; key < 1_000; key++)
        {
            a.tryAcquire(key, 1, 0);
            b.tryAcquire(key, 1, 0);
            c.tryAcquire(key, 1, 0);
            final int offsetA = a.table().slotIndexOf(a.table().keyWord(key));
            assertEquals(offsetA, b.table().slotIndexOf(b.table().keyWord(key)));
            different += offsetA != c.table().slotIndexOf(c.table().keyWord(key)) ? 1 : 0;
        }
        assertTrue(different > 950, "different placements " + different);
        assertNotEquals(
            KeyedRateLimiter.builder(BURST_3).slotCount(64).build().table().seed(),
            KeyedRateLimiter.builder(BURST_3).slotCount(64).build().table().seed());
    }

    @Test
    void badConfigurationNamesTheField()
    {
        assertMessage("slotCount", () -> KeyedRateLimiter.builder(BURST_3).slotCount(0).build());
        assertMessage("slotCount", () -> KeyedRateLimiter.builder(BURST_3).slotCount(TableLayout.MAX_SLOTS + 1).build());
        assertMessage("slotCount rounded up",
            () -> KeyedRateLimiter.builder(BURST_3).slotCount(TableLayout.MAX_SLOTS).shardCount(1 << 16).build());
        assertMessage("power of two", () -> KeyedRateLimiter.builder(BURST_3).slotCount(1000).shardCount(3).build());
        // 1000 / 16 = 62.5 -> 63 per shard (a multiple of the shard count) -> 64 (a multiple of the 4-slot line)
        assertEquals(1024, KeyedRateLimiter.builder(BURST_3).slotCount(1000).shardCount(16).build().table().slotCount());
        assertEquals(48, KeyedRateLimiter.builder(BURST_3).slotCount(33).shardCount(16).build().table().slotCount());
        assertEquals(3, KeyedRateLimiter.builder(BURST_3).slotCount(3).shardCount(1).build().table().slotCount());
        assertMessage("shardCount", () -> KeyedRateLimiter.builder(BURST_3).slotCount(64).shardCount(128).build());
        assertMessage("probeBound", () -> KeyedRateLimiter.builder(BURST_3).slotCount(64).shardCount(4)
            .probeBound(17).build());
        assertMessage("idleGraceNs", () -> KeyedRateLimiter.builder(BURST_3).idleGraceNs(0).slotCount(64).build());
        assertMessage("expectedKeys", () -> KeyedRateLimiter.builder(BURST_3).expectedKeys(0));
        assertMessage("limit", () -> KeyedRateLimiter.builder(null));
        assertEquals(1_333_334, KeyedRateLimiter.builder(BURST_3).expectedKeys(1_000_000).slotCount);
        assertEquals(1 << 20, KeyedRateLimiter.builder(BURST_3).expectedKeys(786_432).slotCount);
    }

    private static void assertMessage(final String field, final Runnable build)
    {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, build::run);
        assertTrue(e.getMessage().contains(field), e.getMessage());
    }
}
