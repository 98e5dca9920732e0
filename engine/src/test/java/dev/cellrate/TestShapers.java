package dev.cellrate;

import dev.cellrate.Limit;
import dev.cellrate.ShaperMode;
import dev.cellrate.layout.CellArray;
import org.agrona.concurrent.NanoClock;

/**
 * Tests, stress tests and benchmarks: a shaper over a cell of a shared array (see {@code dev.cellrate.TestFronts}).
 */
public final class TestShapers
{
    private TestShapers()
    {
    }

    public static Shaper shaper(
        final Limit limit, final ShaperMode mode, final CellArray cells, final int cellIndex, final NanoClock clock)
    {
        return new Shaper(limit, mode, cells, cellIndex, clock);
    }

    public static CellArray cellsOf(final Shaper shaper)
    {
        return shaper.cells();
    }
}
