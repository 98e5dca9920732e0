package dev.cellrate.composite;

import dev.cellrate.Limit;
import dev.cellrate.layout.CellArray;
import org.agrona.concurrent.NanoClock;

/**
 * Tests, stress tests and benchmarks: a composite over cells of a shared array, and its per-call cells (see
 * {@code dev.cellrate.TestFronts}).
 */
public final class TestComposites
{
    private TestComposites()
    {
    }

    public static CompositeRateLimiter composite(final CellArray cells, final Limit[] limits, final int[] cellIndices)
    {
        return new CompositeRateLimiter(cells, limits, cellIndices);
    }

    public static CompositeRateLimiter composite(
        final CellArray cells, final Limit[] limits, final int[] cellIndices, final NanoClock clock)
    {
        return new CompositeRateLimiter(cells, limits, cellIndices, clock);
    }

    public static long tryAcquire(
        final CompositeRateLimiter composite, final int[] cellIndices, final long permits, final long nowNs)
    {
        return composite.tryAcquire(cellIndices, permits, nowNs);
    }

    public static CellArray cellsOf(final CompositeRateLimiter composite)
    {
        return composite.cells();
    }
}
