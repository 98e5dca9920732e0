package dev.cellrate;

import dev.cellrate.ShaperMode;
import dev.cellrate.TestFronts;
import dev.cellrate.release.ReleaseHandler;
import dev.cellrate.release.ReleaseAgent;
import dev.cellrate.KeyedShaper;
import dev.cellrate.Reservation;
import dev.cellrate.layout.CellArray;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import dev.cellrate.table.SlotTable;
import org.agrona.concurrent.NanoClock;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a user of the shaper fronts sees: modes as values, a keyed shaper whose reservations refund once and
 * never a later one, and a release agent that refuses bad configuration and closes for good.
 */
class ShaperFrontSpecTest
{
    private static final long T_NS = 100;
    private static final Limit LIMIT = Limit.ofGcra(T_NS, 2 * T_NS);
    private static final NanoClock FAR_CLOCK = () -> Long.MAX_VALUE;

    @Test
    void withLimitKeepsTheCellOfAShaperOverASharedArray()
    {
        final CellArray cells = CellArray.allocate(3);
        final Shaper first = TestShapers.shaper(LIMIT, ShaperMode.delay(), cells, 2, FAR_CLOCK);
        final Limit slower = Limit.ofGcra(2 * T_NS, 2 * T_NS);
        final Shaper second = first.withLimit(slower);
        assertSame(slower, second.limit());
        assertSame(cells, second.cells());
        assertEquals(0, second.reserve(1, 1_000));
        assertEquals(1_000 + 2 * T_NS, first.tatNs(), "the new limit charged the same cell");
        assertEquals(CellArray.FRESH_TAT_NS, TestShapers.shaper(LIMIT, ShaperMode.delay(), cells, 1, FAR_CLOCK).tatNs(),
            "and not its neighbour");
    }

    @Test
    void modesAreValuesWithReadableNames()
    {
        assertSame(ShaperMode.delay(), ShaperMode.delay(0));
        assertEquals(ShaperMode.delay(3), ShaperMode.delay(3));
        assertEquals(ShaperMode.delay(3).hashCode(), ShaperMode.delay(3).hashCode());
        assertNotEquals(ShaperMode.delay(3), ShaperMode.delay(4));
        assertNotEquals(ShaperMode.delay(3), "delay=3");
        assertNotEquals(ShaperMode.delay(3).hashCode(), ShaperMode.delay(4).hashCode());
        assertEquals("delay", ShaperMode.delay().toString());
        assertEquals("nodelay", ShaperMode.nodelay().toString());
        assertEquals("delay=3", ShaperMode.delay(3).toString());
        assertEquals(3, ShaperMode.delay(3).immediateExcess());
        assertEquals(Long.MAX_VALUE, ShaperMode.nodelay().immediateExcess());
        assertEquals(300, ShaperMode.delay(3).immediateNs(100));
        assertEquals(Long.MAX_VALUE, ShaperMode.nodelay().immediateNs(100), "saturates");
        assertEquals(Long.MAX_VALUE / 2 * 2, ShaperMode.delay(Long.MAX_VALUE / 2).immediateNs(2), "fits exactly");
        assertEquals(Long.MAX_VALUE, ShaperMode.delay(Long.MAX_VALUE / 2 + 1).immediateNs(2));
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> ShaperMode.delay(-1));
        assertTrue(ex.getMessage().contains("immediateExcess"), ex.getMessage());
    }

    @Test
    void delayEqualToTheImmediateExcessIsNoDelay()
    {
        final Shaper shaper = new Shaper(LIMIT, ShaperMode.delay(1));
        assertEquals(0, shaper.reserve(1, 1_000));
        assertEquals(0, shaper.reserve(1, 1_000), "one slot of excess passes at once");
        assertEquals(100, shaper.reserve(1, 1_000), "the next waits its slot beyond the excess");
        assertEquals(ShaperMode.delay(1), shaper.mode());
        assertSame(LIMIT, shaper.limit());
        assertEquals(1, shaper.cells().cellCount());
    }

    @Test
    void shaperRefusesAMissingPartOrACellOutsideTheArray()
    {
        final CellArray cells = CellArray.allocate(2);
        assertThrows(IllegalArgumentException.class, () -> new Shaper(null, ShaperMode.delay(), cells, 0, FAR_CLOCK));
        assertThrows(IllegalArgumentException.class, () -> new Shaper(LIMIT, null, cells, 0, FAR_CLOCK));
        assertThrows(IllegalArgumentException.class, () -> new Shaper(LIMIT, ShaperMode.delay(), null, 0, FAR_CLOCK));
        assertThrows(IllegalArgumentException.class, () -> new Shaper(LIMIT, ShaperMode.delay(), cells, 0, null));
        assertThrows(IllegalArgumentException.class, () -> new Shaper(LIMIT, ShaperMode.delay(), cells, -1, FAR_CLOCK));
        final IllegalArgumentException ex = assertThrows(
            IllegalArgumentException.class, () -> new Shaper(LIMIT, ShaperMode.delay(), cells, 2, FAR_CLOCK));
        assertTrue(ex.getMessage().contains("[0, 1]"), ex.getMessage());
        final Shaper second = new Shaper(LIMIT, ShaperMode.delay(), cells, 1, FAR_CLOCK);
        assertSame(FAR_CLOCK, second.clock());
        assertEquals(0, second.reserve(3, 1_000));
        assertEquals(CellArray.FRESH_TAT_NS, new Shaper(LIMIT, ShaperMode.delay(), cells, 0, FAR_CLOCK).tatNs(),
            "cells are independent");
    }

    @Test
    void primitiveCancelOfTheLatestSlotAtTheEdgeOfTime()
    {
        final Shaper shaper = new Shaper(LIMIT, ShaperMode.delay());
        final long nowNs = Long.MAX_VALUE - 100;
        assertEquals(0, shaper.reserve(1, nowNs));
        assertTrue(shaper.cancel(nowNs, 1), "slot + increment == Long.MAX_VALUE is representable");
        assertFalse(shaper.cancel(nowNs + 1, 1), "slot + increment would pass Long.MAX_VALUE");
    }

    private static KeyedShaper keyed()
    {
        return TestFronts.keyedShaper(LIMIT, ShaperMode.delay(), new SlotTable(1, 16, 16, 1_000_000, 7, FAR_CLOCK), FAR_CLOCK);
    }

    @Test
    void keyedShaperRefusesAMissingPart()
    {
        final SlotTable table = new SlotTable(1, 16, 16, 1_000_000, 7, FAR_CLOCK);
        assertThrows(IllegalArgumentException.class, () -> TestFronts.keyedShaper(null, ShaperMode.delay(), table, FAR_CLOCK));
        assertThrows(IllegalArgumentException.class, () -> TestFronts.keyedShaper(LIMIT, null, table, FAR_CLOCK));
        assertThrows(IllegalArgumentException.class, () -> TestFronts.keyedShaper(LIMIT, ShaperMode.delay(), null, FAR_CLOCK));
        assertThrows(IllegalArgumentException.class, () -> TestFronts.keyedShaper(LIMIT, ShaperMode.delay(), table, null));
        final KeyedShaper shaper = TestFronts.keyedShaper(LIMIT, ShaperMode.nodelay(), table, FAR_CLOCK);
        assertSame(table, TestFronts.tableOf(shaper));
        assertSame(LIMIT, shaper.limit());
        assertEquals(ShaperMode.nodelay(), shaper.mode());
        assertSame(FAR_CLOCK, shaper.clock());
    }

    @Test
    void keyedReservationsDelayRejectAndRefundPerKey()
    {
        final KeyedShaper shaper = keyed();
        final Reservation r = new Reservation();
        assertEquals(0, shaper.reserve(1L, 1, 1_000, r));
        assertEquals(100, shaper.reserve(1L, 1, 1_000, null));
        assertEquals(200, shaper.reserve("one", 3, 1_000, null) + 200, "keys are independent");
        assertEquals(Result.NEVER, shaper.reserve(1L, 4, 1_000, r), "more than the burst can never fit");
        assertEquals(Result.NEVER, r.code());
        assertFalse(shaper.cancel(1L, r, 1_000), "a rejected reservation refunds nothing");
        final Reservation last = new Reservation();
        assertEquals(200, TestFronts.reserveKeyWord(shaper, TestFronts.tableOf(shaper).keyWord(1L), 1, 1_000, last));
        final long code = shaper.reserve(1L, 1, 1_000, r);
        assertEquals(Result.encodeRetryAfter(100), code);
        assertFalse(r.admitted());
        assertFalse(shaper.cancel(1L, r, 1_000), "the reused holder lost its earlier admission");
        assertTrue(shaper.cancel(1L, last, 1_000));
        assertFalse(shaper.cancel(1L, last, 1_000), "a holder refunds once");
        final Reservation again = new Reservation();
        assertEquals(200, shaper.reserve(1L, 1, 1_000, again), "the refunded slot is taken again");
        assertFalse(shaper.cancel(1L, last, 1_000), "nor does it refund a later identical reservation");
        assertTrue(shaper.cancel(1L, again, 1_000));
    }

    @Test
    void aKeyedCancelAfterTheSlotHasPassedRefundsNothing()
    {
        final KeyedShaper shaper = keyed();
        final Reservation r = new Reservation();
        assertEquals(0, shaper.reserve("k", 1, 1_000, r));
        assertEquals(1_100, r.tatAfterNs());
        assertFalse(shaper.cancel("k", r, 1_100), "at the end of its slot there is nothing left to refund");
        assertTrue(shaper.cancel("k", r, 1_099));
    }

    @Test
    void releaseAgentRefusesBadConfigurationAndClosesForGood()
    {
        final List<String> released = new ArrayList<>();
        final ReleaseHandler<String> handler = new ReleaseHandler<>()
        {
            public void onRelease(final String item, final long dueNs, final long nowNs)
            {
                released.add(item);
            }

            public void onHandBack(final String item, final long dueNs)
            {
                released.add("back:" + item);
            }
        };
        assertThrows(IllegalArgumentException.class, () -> new ReleaseAgent<>(1, handler, FAR_CLOCK));
        final IllegalArgumentException tooBig =
            assertThrows(IllegalArgumentException.class, () -> new ReleaseAgent<>((1 << 30) + 1, handler, FAR_CLOCK));
        assertTrue(tooBig.getMessage().startsWith("capacity must be in [2, 1073741824]"), tooBig.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new ReleaseAgent<String>(2, null, FAR_CLOCK));
        assertThrows(IllegalArgumentException.class, () -> new ReleaseAgent<>(2, handler, null));
        final ReleaseAgent<String> agent = new ReleaseAgent<>(2, handler, () -> 1_000);
        assertEquals(2, agent.capacity());
        assertEquals("cellrate-release-agent", agent.roleName());
        assertFalse(agent.isClosed());
        assertEquals(Result.ADMITTED, agent.submit("a", 1_000));
        assertEquals(Result.ADMITTED, agent.submit("b", 5_000));
        assertEquals(Result.QUEUE_FULL, agent.submit("c", 1_000));
        assertEquals(2, agent.outstanding());
        assertEquals(3, agent.doWork(), "two taken in, one released");
        assertEquals(List.of("a"), released);
        assertEquals(1, agent.outstanding(), "the released carrier is free again");
        final Shaper shaper = new Shaper(LIMIT, ShaperMode.delay());
        assertEquals(0, shaper.reserve(3, 1_000));
        assertTrue(Result.isEncodedRetryAfter(agent.submit("e", shaper, 1, 1_000)), "the shaper rejects it");
        assertEquals(1, agent.outstanding(), "a rejected item takes no carrier");
        assertEquals(1_300, shaper.tatNs());
        agent.closeSubmissions();
        assertTrue(agent.isClosed());
        assertEquals(Result.CLOSED, agent.submit("d", 1_000));
        assertEquals(Result.CLOSED, agent.submit("d", shaper, 1, 1_000));
        assertEquals(Result.CLOSED, agent.submit("d", keyed(), 1L, 1, 1_000));
        agent.onClose();
        assertEquals(List.of("a", "back:b"), released);
        assertEquals(1, agent.handedBackCount());
        assertEquals(1, agent.releasedCount());
    }
}
