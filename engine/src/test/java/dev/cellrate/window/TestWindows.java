package dev.cellrate.window;

import dev.cellrate.layout.CellArray;
import org.agrona.concurrent.NanoClock;

/**
 * Tests and stress tests: window limiters over a cell of a shared array (see {@code dev.cellrate.TestFronts}).
 */
public final class TestWindows
{
    private TestWindows()
    {
    }

    public static FixedWindowLimiter fixed(
        final long limit, final long windowNs, final CellArray cells, final int cellIndex, final NanoClock clock)
    {
        return new FixedWindowLimiter(limit, windowNs, cells, cellIndex, clock);
    }

    public static SlidingCounterLimiter slidingCounter(
        final long limit, final long windowNs, final CellArray cells, final int cellIndex, final NanoClock clock)
    {
        return new SlidingCounterLimiter(limit, windowNs, cells, cellIndex, clock);
    }
}
