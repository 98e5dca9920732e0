package dev.cellrate.table;

import dev.cellrate.TestFronts;
import dev.cellrate.Decision;
import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import org.agrona.concurrent.NanoClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a user of the keyed table sees: idle keys go away without anyone calling sweep, active keys never
 * look idle (not even near {@code Long.MIN_VALUE}), tiny shards are swept without hanging, and a cost that
 * would overflow the time line is NEVER and leaves the key's state alone.
 */
class KeyedTableSpecTest
{
    private static final long T_NS = 100;
    private static final long GRACE_NS = 1_000;
    private static final NanoClock FAR_CLOCK = () -> Long.MAX_VALUE; // eviction time is then the caller's time

    private static KeyedRateLimiter limiter(final long toleranceNs, final int slots, final int shards)
    {
        return KeyedRateLimiter.builder(Limit.ofGcra(T_NS, toleranceNs))
            .slotCount(slots)
            .shardCount(shards)
            .probeBound(slots / shards)
            .idleGraceNs(GRACE_NS)
            .seed(42)
            .clock(FAR_CLOCK)
            .build();
    }

    @Test
    void newKeysAloneClearOutIdleOnesWithoutAnySweepCall()
    {
        final KeyedRateLimiter limiter = limiter(0, 16, 1);
        for (long key = 0; key < 8; key++)
        {
            assertEquals(Result.ADMITTED, limiter.tryAcquire(key, 1, 0));
        }
        assertEquals(8, limiter.liveKeys());
        final long lateNs = 1_000_000;
        for (long key = 100; key < 108; key++)
        {
            assertEquals(Result.ADMITTED, limiter.tryAcquire(key, 1, lateNs));
        }
        assertEquals(8, limiter.evictions(), "every idle key reclaimed by the inserts' own sweeps");
        assertEquals(8, limiter.liveKeys());
        for (long key = 0; key < 8; key++)
        {
            assertEquals(SlotTable.STALE, TestFronts.tableOf(limiter).tatNs(TestFronts.tableOf(limiter).keyWord(key)), "gone: " + key);
        }
    }

    @Test
    void sweepingVisitsEverySlotInTurn()
    {
        final KeyedRateLimiter limiter = limiter(0, 16, 1);
        for (long key = 0; key < 12; key++)
        {
            assertEquals(Result.ADMITTED, limiter.tryAcquire(key, 1, 0));
        }
        int reclaimed = 0;
        for (int i = 0; i < 8; i++)
        {
            reclaimed += limiter.sweep(1_000_000, 2);
        }
        assertEquals(12, reclaimed, "8 sweeps of 2 cover the 16 slots once");
        assertEquals(0, limiter.liveKeys());
        assertEquals(12, limiter.evictions());
    }

    @Test
    void activeKeysAreNotSweptAndIdleOnesAreOnlyAfterTheGrace()
    {
        final KeyedRateLimiter limiter = limiter(0, 16, 1);
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1L, 1, 0));
        assertEquals(0, limiter.sweep(T_NS + GRACE_NS - 1, 16), "TAT + grace not yet reached");
        assertEquals(1, limiter.liveKeys());
        assertEquals(1, limiter.sweep(T_NS + GRACE_NS, 16), "idle from TAT + grace on");
        assertEquals(0, limiter.liveKeys());
    }

    @Test
    @Timeout(10)
    void twoSlotShardsAreSweptWithoutHanging()
    {
        final KeyedRateLimiter limiter = limiter(0, 8, 4);
        for (long key = 0; key < 4; key++)
        {
            limiter.tryAcquire(key, 1, 0);
        }
        final long live = limiter.liveKeys();
        assertTrue(live >= 1);
        assertEquals(live, limiter.sweep(1_000_000, 8), "8 visits cover the 4 two-slot shards");
        assertEquals(0, limiter.liveKeys());
        assertEquals(0, limiter.sweep(1_000_000, 3), "an odd budget also ends");
    }

    @Test
    void nearTheStartOfTimeActiveKeysStayActive()
    {
        final KeyedRateLimiter limiter = limiter(0, 16, 1);
        final long startNs = Long.MIN_VALUE + 10;
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1L, 1, startNs));
        assertEquals(0, limiter.sweep(startNs + 20, 16), "now - grace is before any time: nothing is idle");
        assertEquals(1, limiter.liveKeys());
        assertEquals(80, limiter.tryAcquire(1L, 1, startNs + 20), "the key still holds its TAT");
        for (long key = 2; key < 10; key++)
        {
            assertEquals(Result.ADMITTED, limiter.tryAcquire(key, 1, startNs + 20));
        }
        assertEquals(0, limiter.evictions(), "inserts near the start of time reclaim no active key");
        assertEquals(9, limiter.liveKeys());
    }

    @Test
    void aCostThatWouldPassTheEndOfTimeIsNeverAndChargesNothing()
    {
        final KeyedRateLimiter limiter = limiter(2 * T_NS, 16, 1);
        final long nearEndNs = Long.MAX_VALUE - 250;
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1L, 1, nearEndNs), "TAT = end - 150");
        final long keyWord = TestFronts.tableOf(limiter).keyWord(1L);
        final long tatNs = TestFronts.tableOf(limiter).tatNs(keyWord);
        assertEquals(Long.MAX_VALUE - 150, tatNs);
        assertEquals(Result.NEVER, limiter.tryAcquire(1L, 2, nearEndNs), "TAT + 200 is past Long.MAX_VALUE");
        final Decision decision = new Decision();
        assertEquals(Result.NEVER, limiter.tryAcquire(1L, 2, nearEndNs, decision));
        assertEquals(Result.NEVER, decision.code());
        assertEquals(tatNs, TestFronts.tableOf(limiter).tatNs(keyWord), "nothing written");
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1L, 1, nearEndNs), "a cost that fits still fits");
        assertEquals(Long.MAX_VALUE - 50, TestFronts.tableOf(limiter).tatNs(keyWord));
        assertEquals(Result.NEVER, limiter.tryAcquire(2L, 1, Long.MAX_VALUE - 50), "a new key too");
        assertEquals(SlotTable.STALE, TestFronts.tableOf(limiter).tatNs(TestFronts.tableOf(limiter).keyWord(2L)), "and it is not inserted");
    }
}
