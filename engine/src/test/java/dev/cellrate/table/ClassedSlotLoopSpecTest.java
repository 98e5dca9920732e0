package dev.cellrate.table;

import org.agrona.concurrent.NanoClock;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The slot loop's classed charge ({@link SlotLoop#chargeClassed}) when another caller acts between its lookup
 * and its CAS: it never admits on what it read before, it decides again on what the other caller left, and a
 * key whose cell was swept meanwhile is inserted again rather than charged on a cell that is no longer its own.
 * The races are played deterministically: the loop asks its front for the class's increment (after the lookup,
 * before the validated load) and for the class's ceiling (after the validated load, before the CAS), so a front
 * that runs "the other caller" once at one of those calls puts it exactly where a real race would.
 */
class ClassedSlotLoopSpecTest
{
    private static final long T_NS = 100;
    private static final long GRACE_NS = 1_000;
    private static final NanoClock FAR_CLOCK = () -> Long.MAX_VALUE;

    private static SlotTable table()
    {
        final SlotTable table = new SlotTable(4, 4, 4, GRACE_NS, 21, FAR_CLOCK);
        assertEquals(2, table.classCapacity());
        return table;
    }

    /** Class 0: one permit per 100 ns, burst 1; class 1: one permit per 100 ns, burst 3. Admissions answer the TAT after. */
    private static TestLoop loop(final SlotTable table)
    {
        return new TestLoop(table, new long[] {T_NS, T_NS}, new long[] {T_NS, 3 * T_NS});
    }

    @Test
    void aChargeThatLosesItsCasDecidesAgainOnTheOtherCallersResult()
    {
        final SlotTable table = table();
        final TestLoop loop = loop(table);
        final long keyWord = table.keyWord(5L);
        assertEquals(1_100, loop.chargeClassed(keyWord, 1, 1_000, null, 0));

        // At 1_100 the key has its one permit back. Another caller takes it between our read and our CAS.
        final long[] other = {Long.MIN_VALUE};
        loop.atCeiling = () -> other[0] = loop.chargeClassed(keyWord, 1, 1_100, null, SlotLoop.UNKNOWN_CLASS);
        assertEquals(T_NS, loop.chargeClassed(keyWord, 1, 1_100, null, SlotLoop.UNKNOWN_CLASS),
            "the permit went to the other caller: wait one T");
        assertEquals(1_200, other[0]);
        assertEquals(1_200, table.classedTatNs(keyWord), "one permit charged, not two");
        assertEquals(1, table.casRetries(), "our lost CAS is counted");

        // With room for both (class 1, burst 3), the retry charges on top of the other caller's charge.
        final long keyWord1 = table.keyWord(6L);
        assertEquals(1_100, loop.chargeClassed(keyWord1, 1, 1_000, null, 1));
        loop.atCeiling = () -> other[0] = loop.chargeClassed(keyWord1, 1, 1_000, null, SlotLoop.UNKNOWN_CLASS);
        assertEquals(1_300, loop.chargeClassed(keyWord1, 1, 1_000, null, SlotLoop.UNKNOWN_CLASS));
        assertEquals(1_200, other[0]);
        assertEquals(1_300, table.classedTatNs(keyWord1), "three permits on one cell");
        assertEquals(2, table.casRetries());
        assertEquals(2, table.liveKeys());
    }

    @Test
    void aKeySweptBetweenLookupAndLoadIsInsertedAgainUnderTheGivenClass()
    {
        final SlotTable table = table();
        final TestLoop loop = loop(table);
        final long keyWord = table.keyWord(7L);
        assertEquals(1_300, loop.chargeClassed(keyWord, 3, 1_000, null, 1));
        assertEquals(1, table.classOf(keyWord));

        // Much later the key is idle; a sweep takes its cell after our lookup found it, before our load.
        final long laterNs = 1_000_000;
        loop.atIncrement = () -> assertEquals(1, table.sweep(laterNs, table.slotCount()));
        assertEquals(SlotLoop.CLASS_NEEDED, loop.chargeClassed(keyWord, 1, laterNs, null, SlotLoop.UNKNOWN_CLASS),
            "the key has no cell any more: its front must name a class");
        assertEquals(-1, table.classOf(keyWord));
        assertEquals(0, table.casRetries(), "nothing was CASed on the swept cell");

        loop.atIncrement = null;
        assertEquals(laterNs + T_NS, loop.chargeClassed(keyWord, 1, laterNs, null, 0));
        assertEquals(0, table.classOf(keyWord), "inserted again under the class given now");
        assertEquals(laterNs + T_NS, table.classedTatNs(keyWord), "a fresh cell, nothing of the old charges");
        assertEquals(0, table.casRetries());
    }

    @Test
    void aNewKeySweptBeforeItsFirstChargeIsInsertedAgainAndCharged()
    {
        final SlotTable table = table();
        final TestLoop loop = loop(table);
        final long keyWord = table.keyWord(8L);
        // The insert happens, then, before the first load of the new cell, a sweep 1 ns later takes it (a new cell
        // starts at now - grace + 1, idle from now + 1 on unless charged). The loop asks for the increment once to
        // check the cost before inserting, then again for the cell's stored class.
        final long nowNs = 5_000;
        loop.incrementCallsBefore = 1;
        loop.atIncrement = () -> assertEquals(1, table.sweep(nowNs + 1, table.slotCount()));
        assertEquals(nowNs + T_NS, loop.chargeClassed(keyWord, 1, nowNs, null, 1));
        assertEquals(1, table.classOf(keyWord));
        assertEquals(nowNs + T_NS, table.classedTatNs(keyWord), "charged once, on its new cell");
        assertEquals(1, table.liveKeys());
        assertEquals(1, table.evictions());
        assertEquals(0, table.casRetries());
    }
}
