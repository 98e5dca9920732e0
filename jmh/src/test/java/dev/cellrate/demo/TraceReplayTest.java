package dev.cellrate.demo;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The demo prints what the seed article says, for every row (cellrate's limiters and the Bucket4j reference).
 */
final class TraceReplayTest
{
    @Test
    void fixedWindowBoundaryTrace()
    {
        for (final Demo.Row row : Demo.rows())
        {
            final TraceReplay replay = TraceReplay.replay(Trace.fixedWindowBoundary(), row.factory().get());
            if (row.name().startsWith("RateLimiter") || row.name().startsWith("SingleThreaded") ||
                row.name().startsWith("reference"))
            {
                assertEquals(11, replay.admitted, row.name());
                assertEquals(11, replay.maxInAnySecond, row.name());
                assertEquals(11, replay.firstRejectedIndex, row.name());
            }
        }
    }

    @Test
    void slidingCounterAdversaryTrace()
    {
        for (final Demo.Row row : Demo.rows())
        {
            final TraceReplay replay = TraceReplay.replay(Trace.slidingCounterAdversary(), row.factory().get());
            if (row.name().startsWith("RateLimiter") || row.name().startsWith("SingleThreaded") ||
                row.name().startsWith("reference"))
            {
                assertEquals(19, replay.admitted, row.name());
                assertEquals(19, replay.maxInAnySecond, row.name());
                assertEquals(19, replay.firstRejectedIndex, row.name());
            }
        }
    }

    @Test
    void section7BurstTrace()
    {
        for (final Demo.Row row : Demo.rows())
        {
            final TraceReplay replay = TraceReplay.replay(Trace.burstAfterIdle(), row.factory().get());
            if (row.name().startsWith("RateLimiter") || row.name().startsWith("SingleThreaded") ||
                row.name().startsWith("reference"))
            {
                assertEquals(89, replay.arrivals);
                assertEquals(39, replay.admitted, row.name());
                assertEquals(19, replay.maxInAnySecond, row.name());
                assertEquals(10, replay.firstRejectedIndex, row.name());
                assertEquals(2_000_000_000L, replay.firstRejectedNs, row.name());
            }
        }
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
