package dev.cellrate.table;

import dev.cellrate.TestFronts;
import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import org.agrona.concurrent.NanoClock;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Two callers inserting the same new key at once: the second one, which missed the key in its lock-free
 * lookup, finds it under the shard lock and decides on the first one's cell; a key never gets two cells (two
 * budgets). Driven deterministically: the table reads its eviction clock after the lookup missed and before
 * it takes the shard lock, so a clock that runs "the other caller" once at that read plays the race.
 */
class KeyedInsertRaceSpecTest
{
    private static final long T_NS = 100;

    /** Reads far ahead (eviction then uses the caller's time); runs {@code interposed} at its next read. */
    private static final class InterposingClock implements NanoClock
    {
        Runnable interposed;

        @Override
        public long nanoTime()
        {
            final Runnable r = interposed;
            interposed = null;
            if (null != r)
            {
                r.run();
            }
            return Long.MAX_VALUE;
        }
    }

    private static KeyedRateLimiter limiter(final long toleranceNs, final InterposingClock clock)
    {
        return KeyedRateLimiter.builder(Limit.ofGcra(T_NS, toleranceNs))
            .slotCount(16).shardCount(1).probeBound(16).idleGraceNs(1_000).seed(7).clock(clock).build();
    }

    @Test
    void aKeyInsertedByAnotherCallerMeanwhileIsDecidedOnItsOneCell()
    {
        final InterposingClock clock = new InterposingClock();
        final KeyedRateLimiter limiter = limiter(0, clock); // burst 1
        final long[] otherCode = {Long.MIN_VALUE};
        clock.interposed = () -> otherCode[0] = limiter.tryAcquire(42L, 1, 1_000);
        assertEquals(T_NS, limiter.tryAcquire(42L, 1, 1_000), "the other caller took the only permit");
        assertEquals(Result.ADMITTED, otherCode[0]);
        final long keyWord = TestFronts.tableOf(limiter).keyWord(42L);
        assertEquals(1, TestFronts.tableOf(limiter).countSlots(keyWord), "one cell per key");
        assertEquals(1, limiter.liveKeys());
        assertEquals(1_100, TestFronts.tableOf(limiter).tatNs(keyWord));
    }

    @Test
    void withRoomLeftBothInsertersAreChargedOnTheSameCell()
    {
        final InterposingClock clock = new InterposingClock();
        final KeyedRateLimiter limiter = limiter(2 * T_NS, clock); // burst 3
        clock.interposed = () -> limiter.tryAcquire("k", 2, 1_000);
        assertEquals(Result.ADMITTED, limiter.tryAcquire("k", 1, 1_000));
        final long keyWord = TestFronts.tableOf(limiter).keyWord("k");
        assertEquals(1_300, TestFronts.tableOf(limiter).tatNs(keyWord), "both charges on one cell: 2 + 1 permits");
        assertEquals(T_NS, limiter.tryAcquire("k", 1, 1_000));
        assertEquals(1, TestFronts.tableOf(limiter).countSlots(keyWord));
    }
    @Test
    void theKeyFoundUnderTheLockInTheShardsFirstSlotIsDecidedOnThatSlot()
    {
        // The same race for a key whose cell is the table's very first slot (next to the shard headers).
        final InterposingClock clock = new InterposingClock();
        final KeyedRateLimiter limiter = limiter(0, clock); // burst 1
        final SlotTable table = TestFronts.tableOf(limiter);
        long key = 1;
        while (TableLayout.homeIndex(table.keyWord(key), table.slotCount() / SlotTable.BUCKET_SLOTS) != 0 ||
            (table.keyWord(key) >>> TableGeometry.PREFERRED_SHIFT & 3) != 0) // home line 0, preferred slot 0
        {
            key++;
        }
        final long chosen = key;
        final long[] otherCode = {Long.MIN_VALUE};
        clock.interposed = () -> otherCode[0] = limiter.tryAcquire(chosen, 1, 1_000);
        assertEquals(T_NS, limiter.tryAcquire(chosen, 1, 1_000), "the other caller took the only permit");
        assertEquals(Result.ADMITTED, otherCode[0]);
        assertEquals(0, table.slotIndexOf(table.keyWord(chosen)));
        assertEquals(1_100, table.tatNs(table.keyWord(chosen)));
        assertEquals(1, limiter.liveKeys());
    }

    @Test
    void anInsertOfAKeyAnotherCallerInsertedMeanwhileReturnsThatKeysCell()
    {
        // The table's insert step, called as the second inserter calls it: after its lock-free lookup missed, while
        // the first inserter put the key in (here: before the call). It must hand back the key's one cell, plain and
        // classed (with the class the first inserter stored), wherever the cell is in the probe chain.
        final SlotTable table = new SlotTable(1, 8, 8, 1_000, 9, () -> Long.MAX_VALUE);
        for (long key = 0; key < 6; key++)
        {
            final long word = table.keyWord(key);
            final int cell = table.insertSlot(word, 1_000);
            assertEquals(cell, table.findSlot(word));
            assertEquals(cell, table.insertSlot(word, 1_000), "key " + key + ": the same cell again");
        }
        assertEquals(6, table.liveKeys());

        final SlotTable classed = new SlotTable(4, 8, 8, 1_000, 9, () -> Long.MAX_VALUE);
        for (long key = 0; key < 6; key++)
        {
            final long word = classed.keyWord(key);
            final int cell = classed.insertClassedSlot(word, 0, 1_000);
            assertEquals(cell, classed.findClassedSlot(word));
            assertEquals(cell, classed.insertClassedSlot(word, 1, 1_000), "key " + key + ": the same cell again");
            assertEquals(0, classed.classOf(word), "with the class stored first");
        }
        assertEquals(6, classed.liveKeys());
    }
}
