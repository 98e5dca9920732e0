package dev.cellrate.demo;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The demo prints, row by row: {admitted, max in any 1 s, first rejected index
 * (0-based, -1 for none), max delay in ms}. GCRA rows (every token-bucket-equivalent limiter and the Bucket4j
 * reference) share one expectation; worked by hand in the comments. The Guava-translated, warm-up, composite
 * and colour-marker rows are pinned to the values first printed (Guava's burst is 11; the markers refill in
 * whole tokens at ticks of 1/rate, RFC 2697/2698), so a change in any of them shows here.
 */
final class TraceReplayTest
{
    private static final String GCRA = "gcra";

    private static String kind(final String rowName)
    {
        if (rowName.startsWith("PayLater"))
        {
            return "guava";
        }
        if (rowName.startsWith("WarmingUp"))
        {
            return "warmup";
        }
        if (rowName.startsWith("Composite"))
        {
            return "composite";
        }
        if (rowName.startsWith("srTCM green or"))
        {
            return "srtcm-gy";
        }
        if (rowName.startsWith("srTCM green"))
        {
            return "srtcm-g";
        }
        if (rowName.startsWith("trTCM green or"))
        {
            return "trtcm-gy";
        }
        if (rowName.startsWith("trTCM green"))
        {
            return "trtcm-g";
        }
        if (rowName.startsWith("KeyedShaper, delay"))
        {
            return "delay";
        }
        if (rowName.startsWith("Shaper, delay"))
        {
            return "delay";
        }
        if (rowName.startsWith("FixedWindow"))
        {
            return "fixed";
        }
        if (rowName.startsWith("SlidingCounter"))
        {
            return "counter";
        }
        if (rowName.startsWith("SlidingLog"))
        {
            return "log";
        }
        return GCRA;
    }

    private static void check(final Trace trace, final Map<String, long[]> policers, final Map<String, long[]> others)
    {
        final Map<String, long[]> expected = new java.util.HashMap<>(policers);
        expected.putAll(others);
        final List<Demo.Row> rows = Demo.rows();
        assertTrue(rows.size() >= 17, "every limiter has a row");
        for (final Demo.Row row : rows)
        {
            final long[] want = expected.get(kind(row.name()));
            assertTrue(null != want, "no expectation for " + row.name());
            final TraceReplay replay = TraceReplay.replay(trace, row.factory().get());
            final String what = trace.name() + " / " + row.name();
            assertEquals(want[0], replay.admitted, what + ": admitted");
            assertEquals(want[1], replay.maxInAnySecond, what + ": max in any 1 s");
            assertEquals(want[2], replay.firstRejectedIndex, what + ": first rejection");
            assertEquals(want[3], Math.round(replay.maxDelayNs / 1e6), what + ": max delay ms");
        }
    }

    /**
     * GCRA: from idle at 1.90 s, request k (every 10 ms) leaves lag 100 + 90k ms, within 1000 ms for k &le; 10:
     * 11 admitted. The delay shaper releases them at 1.9, 2.0, ..., 2.9 s (k-th waits 90k ms): 10 per 1 s.
     * Fixed window: 10 in [1, 2) and 10 in [2, 3). Counter and log: the 10 of [1.9, 2) fill the window.
     */
    @Test
    void fixedWindowBoundaryTrace()
    {
        check(Trace.fixedWindowBoundary(), Map.of(
            GCRA, new long[]{11, 11, 11, 0},
            "delay", new long[]{11, 10, 11, 900},
            "fixed", new long[]{20, 20, -1, 0},
            "counter", new long[]{10, 10, 10, 0},
            "log", new long[]{10, 10, 10, 0}),
            Map.of(
                "guava", new long[]{12, 12, 12, 0},
                "warmup", new long[]{1, 1, 1, 0},
                "composite", new long[]{11, 11, 11, 0},
                "srtcm-g", new long[]{11, 11, 11, 0},
                "srtcm-gy", new long[]{20, 20, -1, 0},
                "trtcm-g", new long[]{11, 11, 11, 0},
                "trtcm-gy", new long[]{13, 13, 12, 0}));
    }

    /**
     * GCRA: 10 at 1.999 s leave TAT 2.999 s; at 2.9 s the lag after k more is 0.199 + 0.1k &le; 1.0 for
     * k &le; 8: 9 more, 19 in all (the arrival curve 10 + 10 u at u = 0.901 s). Counter: 10 * 0.1 + c + 1 &le; 10 admits 9 more.
     * Log: all 10 of 1.999 s are within 1 s of 2.9 s.
     */
    @Test
    void slidingCounterAdversaryTrace()
    {
        check(Trace.slidingCounterAdversary(), Map.of(
            GCRA, new long[]{19, 19, 19, 0},
            "delay", new long[]{19, 10, 19, 900},
            "fixed", new long[]{20, 20, -1, 0},
            "counter", new long[]{19, 19, 19, 0},
            "log", new long[]{10, 10, 10, 0}),
            Map.of(
                "guava", new long[]{20, 20, -1, 0},
                "warmup", new long[]{2, 2, 1, 0},
                "composite", new long[]{19, 19, 19, 0},
                "srtcm-g", new long[]{20, 20, -1, 0},
                "srtcm-gy", new long[]{20, 20, -1, 0},
                "trtcm-g", new long[]{20, 20, -1, 0},
                "trtcm-gy", new long[]{20, 20, -1, 0}));
    }

    /**
     * Section 7: GCRA admits 10 of the 30 at 2 s and then the requests at 2.1, 2.2, ..., 4.9 s: 39, with 19
     * in [2.0, 2.9]. The delay shaper releases the same 39 every 100 ms from 2.0 s, each waiting up to
     * 900 ms. Fixed window and log: 10 per second from 2 s, 3 and 4 s: 30.
     */
    @Test
    void section7BurstTrace()
    {
        check(Trace.burstAfterIdle(), Map.of(
            GCRA, new long[]{39, 19, 10, 0},
            "delay", new long[]{39, 10, 10, 900},
            "fixed", new long[]{30, 10, 10, 0},
            "counter", new long[]{28, 10, 10, 0},
            "log", new long[]{30, 10, 10, 0}),
            Map.of(
                "guava", new long[]{40, 20, 11, 0},
                "warmup", new long[]{22, 10, 1, 0},
                "composite", new long[]{31, 19, 10, 0},
                "srtcm-g", new long[]{39, 19, 10, 0},
                "srtcm-gy", new long[]{49, 29, 20, 0},
                "trtcm-g", new long[]{39, 19, 10, 0},
                "trtcm-gy", new long[]{69, 29, 10, 0}));
        assertEquals(89, Trace.burstAfterIdle().timesNs().length);
        assertEquals(4_950_000_000L, Trace.burstAfterIdle().timesNs()[88]);
    }

    @Test
    void maxInWindowIsHalfOpen()
    {
        final long[] times = {0, 999, 1000, 1000, 1999, 2000};
        assertEquals(3, TraceReplay.maxInWindow(times, times.length, 1000));
        assertEquals(4, TraceReplay.maxInWindow(times, times.length, 1001));
        assertEquals(6, TraceReplay.maxInWindow(times, times.length, 2001));
    }
}
