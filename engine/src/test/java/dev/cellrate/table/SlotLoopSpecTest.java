package dev.cellrate.table;

import dev.cellrate.Result;
import org.agrona.concurrent.NanoClock;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The slot loop's contract at its edges, for every front built on it: an increment below 1 is NEVER whatever the
 * key holds, a cost that ends exactly at the end of time is admitted and one that passes it is NEVER with no key
 * inserted, a new key at the start of time is a full bucket (a 1 ns cost aside, which waits 1 ns and is never admitted twice), a classed charge
 * with no class to insert under (or one beyond the table's classes) inserts nothing, and the loop answers what
 * its front's step answers (here the TAT after an admission, see {@link TestLoop}).
 */
class SlotLoopSpecTest
{
    private static final long T_NS = 100;
    private static final long GRACE_NS = 1_000;
    private static final NanoClock FAR_CLOCK = () -> Long.MAX_VALUE;

    private static SlotTable table()
    {
        return new SlotTable(4, 4, 4, GRACE_NS, 31, FAR_CLOCK);
    }

    /** Class 0: 100 ns per permit, burst 3; class 1: 1 ns per permit, burst 1; class 2 (beyond capacity 2). */
    private static TestLoop loop(final SlotTable table)
    {
        return new TestLoop(table, new long[] {T_NS, 1, T_NS}, new long[] {3 * T_NS, 1, 3 * T_NS});
    }

    @Test
    void aLoopNeedsATable()
    {
        final IllegalArgumentException ex =
            assertThrows(IllegalArgumentException.class, () -> new TestLoop(null, new long[1], new long[1]));
        assertTrue(ex.getMessage().contains("table"), ex.getMessage());
    }

    @Test
    void anIncrementBelowOneIsNeverAndChargesNothingEvenOnABusyKey()
    {
        final SlotTable table = table();
        final TestLoop loop = loop(table);
        final long keyWord = table.keyWord(1L);
        assertEquals(1_300, loop.charge(keyWord, 3 * T_NS, 3 * T_NS, 1_000, null));
        for (final long incrementNs : new long[] {0, -1, Long.MIN_VALUE})
        {
            assertEquals(Result.NEVER, loop.charge(keyWord, incrementNs, 3 * T_NS, 1_100, null));
            assertEquals(1_300, table.tatNs(keyWord), "nothing charged for " + incrementNs);
        }
        assertEquals(Result.NEVER, loop.charge(table.keyWord(2L), 0, 3 * T_NS, 1_000, null));
        assertEquals(1, table.liveKeys(), "no key inserted for a cost below 1");
    }

    @Test
    void aCostEndingExactlyAtTheEndOfTimeIsAdmittedOnePastItIsNeverAndInsertsNothing()
    {
        final SlotTable table = table();
        final TestLoop loop = loop(table);
        final long endNs = Long.MAX_VALUE - T_NS;
        assertEquals(Result.NEVER, loop.charge(table.keyWord(1L), T_NS, T_NS, endNs + 1, null));
        assertEquals(0, table.liveKeys(), "a key that cannot be charged is not inserted");
        assertEquals(Long.MAX_VALUE, loop.charge(table.keyWord(1L), T_NS, T_NS, endNs, null));
        assertEquals(Long.MAX_VALUE, table.tatNs(table.keyWord(1L)));

        // The same through the classed charge (class 0 costs 100 ns a permit).
        final long keyWord = table.keyWord(2L);
        assertEquals(Result.NEVER, loop.chargeClassed(keyWord, 1, endNs + 1, null, 0));
        assertEquals(-1, table.classOf(keyWord), "not inserted");
        assertEquals(1, table.liveKeys());
        assertEquals(Long.MAX_VALUE, loop.chargeClassed(keyWord, 1, endNs, null, 0));
        assertEquals(0, table.classOf(keyWord));
        assertEquals(Long.MAX_VALUE, table.classedTatNs(keyWord));
    }

    @Test
    void aPresentClassedKeyWhoseCostPassesTheEndOfTimeIsNeverAndKeepsItsWord()
    {
        final SlotTable table = table();
        final TestLoop loop = loop(table);
        final long keyWord = table.keyWord(3L);
        final long nowNs = Long.MAX_VALUE - 250;
        assertEquals(nowNs + T_NS, loop.chargeClassed(keyWord, 1, nowNs, null, 0));
        assertEquals(Result.NEVER, loop.chargeClassed(keyWord, 2, nowNs, null, SlotLoop.UNKNOWN_CLASS),
            "TAT + 200 is past the end of time");
        assertEquals(nowNs + T_NS, table.classedTatNs(keyWord));
        assertEquals(Long.MAX_VALUE - 50, loop.chargeClassed(keyWord, 1, nowNs, null, SlotLoop.UNKNOWN_CLASS));
    }

    @Test
    void atTheStartOfTimeANewKeyIsAFullBucketAndAOneNanosecondCostIsNeverFree()
    {
        final SlotTable table = table();
        final TestLoop loop = loop(table);
        final long startNs = Long.MIN_VALUE;
        // Plain, 1 ns per permit, burst 1: the one documented case (docs/keyed-table.md) where the fresh word's
        // 1 ns of lag stays, since a charge from Long.MIN_VALUE would not raise the word: wait 1 ns, then one
        // admission per ns, never two.
        final long oneNs = table.keyWord(1L);
        assertEquals(1, loop.charge(oneNs, 1, 1, startNs, null));
        assertEquals(1, loop.charge(oneNs, 1, 1, startNs, null), "still nothing at the same instant");
        assertEquals(startNs + 2, loop.charge(oneNs, 1, 1, startNs + 1, null));
        assertEquals(1, loop.charge(oneNs, 1, 1, startNs + 1, null), "burst 1: the second request waits");
        // Plain, burst 3 of 100 ns: the whole burst at once.
        assertEquals(startNs + 3 * T_NS, loop.charge(table.keyWord(2L), 3 * T_NS, 3 * T_NS, startNs, null));

        // Classed: class 0 (burst 3 of 100 ns) takes its whole burst, class 1 (1 ns, burst 1) one request.
        assertEquals(startNs + 3 * T_NS, loop.chargeClassed(table.keyWord(3L), 3, startNs, null, 0));
        final long classOne = table.keyWord(4L);
        assertEquals(1, loop.chargeClassed(classOne, 1, startNs, null, 1));
        assertEquals(1, loop.chargeClassed(classOne, 1, startNs, null, SlotLoop.UNKNOWN_CLASS));
        assertEquals(startNs + 2, loop.chargeClassed(classOne, 1, startNs + 1, null, SlotLoop.UNKNOWN_CLASS));
        assertEquals(1, loop.chargeClassed(classOne, 1, startNs + 1, null, SlotLoop.UNKNOWN_CLASS));
    }

    @Test
    void aOneNanosecondClassIsChargedLikeAnyOther()
    {
        final SlotTable table = table();
        final TestLoop loop = loop(table);
        final long keyWord = table.keyWord(5L);
        assertEquals(1_001, loop.chargeClassed(keyWord, 1, 1_000, null, 1));
        assertEquals(1, table.classOf(keyWord));
        assertEquals(1, loop.chargeClassed(keyWord, 1, 1_000, null, SlotLoop.UNKNOWN_CLASS), "burst 1: wait 1 ns");
        assertEquals(1_002, loop.chargeClassed(keyWord, 1, 1_001, null, SlotLoop.UNKNOWN_CLASS));
    }

    @Test
    void aClassWhoseIncrementDropsBelowOneIsNeverForItsPresentKeys()
    {
        // A front may change its classes' limits while keys hold cells (ClassedKeyedRateLimiter.setLimit): a key
        // inserted under 100 ns a permit, then charged by a front whose class 0 now costs 0 ns, gets NEVER and
        // keeps its word; nothing is admitted for free.
        final SlotTable table = table();
        final long keyWord = table.keyWord(7L);
        assertEquals(1_200, loop(table).chargeClassed(keyWord, 2, 1_000, null, 0));
        final TestLoop free = new TestLoop(table, new long[] {0, 0}, new long[] {3 * T_NS, 3 * T_NS});
        assertEquals(Result.NEVER, free.chargeClassed(keyWord, 1, 1_000, null, SlotLoop.UNKNOWN_CLASS));
        assertEquals(Result.NEVER, free.chargeClassed(keyWord, 1, 1_300, null, SlotLoop.UNKNOWN_CLASS));
        assertEquals(1_200, table.classedTatNs(keyWord));
    }

    @Test
    void aClassedChargeWithNothingToInsertUnderInsertsNothing()
    {
        final SlotTable table = table();
        final TestLoop loop = loop(table);
        assertEquals(2, table.classCapacity());
        final long keyWord = table.keyWord(6L);
        assertEquals(SlotLoop.CLASS_NEEDED, loop.chargeClassed(keyWord, 1, 1_000, null, SlotLoop.UNKNOWN_CLASS));
        assertEquals(Result.NEVER, loop.chargeClassed(keyWord, 0, 1_000, null, SlotLoop.UNKNOWN_CLASS),
            "no permits: NEVER before any class is needed");
        assertEquals(Result.NEVER, loop.chargeClassed(keyWord, 1, 1_000, null, 2), "class 2 of capacity 2");
        assertEquals(Result.NEVER, loop.chargeClassed(keyWord, 1, 1_000, null, 3));
        assertEquals(Result.NEVER, loop.chargeClassed(keyWord, Long.MAX_VALUE, Long.MIN_VALUE, null, 0),
            "a cost that overflows, at any time");
        final TestLoop free = new TestLoop(table, new long[] {0, 0}, new long[] {T_NS, T_NS});
        assertEquals(Result.NEVER, free.chargeClassed(keyWord, 1, 1_000, null, 0), "an increment of 0");
        assertEquals(-1, table.classOf(keyWord));
        assertEquals(0, table.liveKeys());
    }
}
