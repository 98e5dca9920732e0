package dev.cellrate;

import dev.cellrate.Shaper;
import dev.cellrate.ShaperMode;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import dev.cellrate.table.SlotTable;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The keyed shaper decides and shapes each key exactly like its own single-cell {@link Shaper}; table-full,
 * eviction and cancel per key.
 */
class KeyedShaperTest
{
    private static final long T_NS = 1_000;
    private static final long GRACE_NS = 1_000_000;

    private static KeyedShaper keyed(final Limit limit, final ShaperMode mode, final int slots)
    {
        return TestFronts.keyedShaper(limit, mode, new SlotTable(1, slots, slots, GRACE_NS, 12345), SystemNanoClock.INSTANCE);
    }

    @Test
    void eachKeyBehavesLikeItsOwnShaper()
    {
        final SplittableRandom random = new SplittableRandom(4);
        for (int trace = 0; trace < 30; trace++)
        {
            final Limit limit = Limit.ofGcra(1 + random.nextLong(T_NS), random.nextLong(10 * T_NS));
            final ShaperMode mode = trace % 3 == 0 ? ShaperMode.delay() :
                (trace % 3 == 1 ? ShaperMode.delay(random.nextLong(5)) : ShaperMode.nodelay());
            final KeyedShaper keyed = keyed(limit, mode, 64);
            final Shaper[] singles = new Shaper[8];
            for (int k = 0; k < singles.length; k++)
            {
                singles[k] = new Shaper(limit, mode);
            }
            long nowNs = random.nextLong(1L << 40);
            for (int i = 0; i < 3_000; i++)
            {
                nowNs += random.nextInt(3) == 0 ? random.nextLong(2 * limit.emissionIntervalNs()) : 0;
                final int key = random.nextInt(singles.length);
                final long permits = random.nextInt(8) == 0 ? random.nextLong(0, limit.burst() + 2) : 1;
                assertEquals(singles[key].reserve(permits, nowNs), keyed.reserve(key, permits, nowNs),
                    "trace " + trace + " request " + i);
            }
        }
    }

    @Test
    void fullTableFailsClosedAndChargesNothing()
    {
        final KeyedShaper keyed = keyed(Limit.ofGcra(T_NS, 0), ShaperMode.delay(), 2);
        assertEquals(0, keyed.reserve(1L, 1, 0));
        assertEquals(0, keyed.reserve(2L, 1, 0));
        assertEquals(Result.TABLE_FULL, keyed.reserve(3L, 1, 0));
        assertEquals(SlotTable.STALE, keyed.tatNsOf(3));
        assertEquals(1, keyed.table().tableFullEvents());
        final Reservation r = new Reservation();
        assertEquals(Result.TABLE_FULL, keyed.reserve(3L, 1, 0, r));
        assertFalse(r.admitted());
        assertEquals(0, keyed.reserve(3L, 1, 2 * GRACE_NS), "idle keys make room");
    }

    @Test
    void cancelIsLifoPerKeyAndIgnoresEndedSpans()
    {
        final KeyedShaper keyed = keyed(Limit.ofGcra(T_NS, 5 * T_NS), ShaperMode.delay(), 16);
        final Reservation a = new Reservation();
        final Reservation b = new Reservation();
        final Reservation other = new Reservation();
        assertEquals(0, keyed.reserve(7L, 1, 0, a));
        assertEquals(T_NS, keyed.reserve(7L, 1, 0, b));
        assertEquals(0, keyed.reserve("other", 1, 0, other));
        assertFalse(keyed.cancel(7L, a, 0), "b is later and live");
        assertFalse(keyed.cancel(8L, b, 0), "wrong key");
        assertTrue(keyed.cancel(7L, b, 0));
        assertFalse(keyed.cancel(7L, b, 0), "refunds once");
        assertTrue(keyed.cancel(7L, a, 0));
        assertEquals(-GRACE_NS + 1, keyed.tatNsOf(7), "restored to the TAT the insert gave it (now - grace + 1)");
        assertTrue(keyed.cancel("other", other, 0));

        final Reservation ended = new Reservation();
        assertEquals(0, keyed.reserve(9L, 1, 0, ended));
        assertFalse(keyed.cancel(9L, ended, T_NS), "span ended: nothing left to refund");
        assertEquals(T_NS, keyed.tatNsOf(9));
    }

    @Test
    void aCancelNeverTouchesACellReusedByAnotherKey()
    {
        final KeyedShaper keyed = keyed(Limit.ofGcra(T_NS, 5 * T_NS), ShaperMode.delay(), 1);
        final Reservation a = new Reservation();
        assertEquals(0, keyed.reserve(1L, 1, 0, a));
        final long laterNs = 10 * GRACE_NS;
        assertEquals(0, keyed.reserve(2L, 1, laterNs), "key 1 idled out; its slot now holds key 2");
        final long tatNs = keyed.tatNsOf(2);
        assertFalse(keyed.cancel(1L, a, 0), "even with a clock far behind, the old reservation refunds nothing");
        assertEquals(tatNs, keyed.tatNsOf(2));
    }

    @Test
    void validation()
    {
        assertThrows(IllegalArgumentException.class,
            () -> TestFronts.keyedShaper(null, ShaperMode.delay(), new SlotTable(1, 2, 2, 1, 0), SystemNanoClock.INSTANCE));
        assertEquals(Result.NEVER, keyed(Limit.ofGcra(T_NS, 0), ShaperMode.delay(), 2).reserve(1L, 2, 0));
    }
}
