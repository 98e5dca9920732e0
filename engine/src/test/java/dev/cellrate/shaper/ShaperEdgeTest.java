package dev.cellrate.shaper;

import dev.cellrate.ShaperMode;
import dev.cellrate.Reservation;
import dev.cellrate.layout.CellArray;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Validation, code encoding and odd times: the shaper never throws on the hot path, never wraps, and a
 * rejection can never be read as "go now".
 */
class ShaperEdgeTest
{
    private static final long T_NS = 1_000;
    private static final Limit LIMIT = Limit.ofGcra(T_NS, 3 * T_NS);

    @Test
    void badConfigurationNamesTheField()
    {
        final IllegalArgumentException ex =
            assertThrows(IllegalArgumentException.class, () -> ShaperMode.delay(-1));
        assertTrue(ex.getMessage().startsWith("immediateExcess must be in [0, "), ex.getMessage());
        final CellArray cells = CellArray.allocate(2);
        final IllegalArgumentException index = assertThrows(IllegalArgumentException.class,
            () -> new Shaper(LIMIT, ShaperMode.delay(), cells, 2, SystemNanoClock.INSTANCE));
        assertEquals("cellIndex must be in [0, 1] but was 2", index.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new Shaper(null, ShaperMode.delay()));
        assertThrows(IllegalArgumentException.class, () -> new Shaper(LIMIT, null));
    }

    @Test
    void modesMapToImmediateNs()
    {
        assertEquals(0, ShaperMode.delay().immediateNs(T_NS));
        assertEquals(ShaperMode.delay(), ShaperMode.delay(0));
        assertEquals(7 * T_NS, ShaperMode.delay(7).immediateNs(T_NS));
        assertEquals(Long.MAX_VALUE, ShaperMode.nodelay().immediateNs(1));
        assertEquals(Long.MAX_VALUE, ShaperMode.delay(Long.MAX_VALUE / 2).immediateNs(3));
        assertEquals("delay=7", ShaperMode.delay(7).toString());
    }

    @Test
    void codesAreUnambiguous()
    {
        assertTrue(Result.isReserved(0));
        assertFalse(Result.isEncodedRetryAfter(0));
        assertEquals(Result.ENCODED_RETRY_AFTER_BASE - 1, Result.encodeRetryAfter(1));
        assertEquals(1, Result.decodeRetryAfterNs(Result.ENCODED_RETRY_AFTER_BASE - 1));
        assertEquals(Long.MIN_VALUE, Result.encodeRetryAfter(Long.MAX_VALUE));
        assertEquals(Result.MAX_ENCODED_RETRY_AFTER_NS, Result.decodeRetryAfterNs(Long.MIN_VALUE));
        for (long code = Result.ENCODED_RETRY_AFTER_BASE; code < 0; code++)
        {
            assertFalse(Result.isReserved(code));
            assertFalse(Result.isEncodedRetryAfter(code), "reserved or Result codes carry no retry-after");
            assertEquals(0, Result.decodeRetryAfterNs(code));
        }
        assertEquals("ADMITTED", Result.name(0));
        assertEquals("ENCODED_RETRY_AFTER", Result.name(Result.ENCODED_RETRY_AFTER_BASE - 1));
        assertEquals("QUEUE_FULL", Result.name(Result.QUEUE_FULL));
    }

    @Test
    void impossibleCostsAreNever()
    {
        final Shaper shaper = new Shaper(LIMIT, ShaperMode.delay());
        final Reservation r = new Reservation();
        assertEquals(Result.NEVER, shaper.reserve(0, 0));
        assertEquals(Result.NEVER, shaper.reserve(-1, 0));
        assertEquals(Result.NEVER, shaper.reserve(5, 0, r));
        assertEquals(Result.NEVER, shaper.reserve(Long.MIN_VALUE, 0));
        assertFalse(r.admitted());
        assertEquals(CellArray.FRESH_TAT_NS, shaper.tatNs());
        assertEquals(0, shaper.reserve(4, 0));
    }

    @Test
    void timesAtTheEdgesOfTheLongRangeSaturate()
    {
        final Shaper shaper = new Shaper(LIMIT, ShaperMode.delay());
        assertEquals(Result.NEVER, shaper.reserve(1, Long.MAX_VALUE), "TAT would not fit");
        assertEquals(0, shaper.reserve(1, Long.MAX_VALUE - T_NS));
        assertEquals(Long.MAX_VALUE, shaper.tatNs());
        assertEquals(Result.NEVER, shaper.reserve(1, Long.MAX_VALUE - T_NS));
        final long code = shaper.reserve(1, Long.MIN_VALUE);
        assertTrue(Result.isEncodedRetryAfter(code), "clock centuries backwards is a rejection");
        assertEquals(Result.MAX_ENCODED_RETRY_AFTER_NS, Result.decodeRetryAfterNs(code),
            "true retry-after is about 2^64 ns: saturated by Gcra, clamped by the encoding, never wrapped");
        assertEquals(Long.MAX_VALUE / 2 - 3 * T_NS + 1, Result.decodeRetryAfterNs(shaper.reserve(1, Long.MAX_VALUE / 2)),
            "exact where representable");
        final Shaper tight = new Shaper(Limit.ofGcra(1, 0), ShaperMode.delay());
        assertEquals(0, tight.reserve(1, Long.MAX_VALUE - 1));
        assertEquals(Result.MAX_ENCODED_RETRY_AFTER_NS, Result.decodeRetryAfterNs(tight.reserve(1, Long.MIN_VALUE)),
            "retry-after beyond the encodable range is clamped, still a rejection");

        final Shaper fromMin = new Shaper(LIMIT, ShaperMode.delay());
        assertEquals(0, fromMin.reserve(1, Long.MIN_VALUE));
        assertEquals(T_NS, fromMin.reserve(1, Long.MIN_VALUE));
        assertEquals(0, fromMin.reserve(1, Long.MAX_VALUE - T_NS));
    }

    @Test
    void clockGoingBackwardsOnlyDelaysMore()
    {
        final Shaper shaper = new Shaper(LIMIT, ShaperMode.delay());
        assertEquals(0, shaper.reserve(1, 10_000));
        assertEquals(T_NS + 500, shaper.reserve(1, 9_500));
        assertEquals(3 * T_NS, shaper.reserve(1, 9_000));
        assertTrue(Result.isEncodedRetryAfter(shaper.reserve(1, 8_999)));
    }

    @Test
    void clockOverloadsReadTheClock()
    {
        final long[] nowNs = {5_000};
        final Shaper shaper = new Shaper(LIMIT, ShaperMode.delay(), CellArray.allocate(1), 0, () -> nowNs[0]);
        assertEquals(0, shaper.reserve());
        assertEquals(T_NS, shaper.reserve(2));
        nowNs[0] += 10 * T_NS;
        assertEquals(0, shaper.reserve());
    }
}
