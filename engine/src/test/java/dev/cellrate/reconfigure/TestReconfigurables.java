package dev.cellrate.reconfigure;

import dev.cellrate.TestFronts;

/**
 * The cell word (TAT) of the reconfigurable fronts, for the engine's own tests and stress tests: the TAT is the
 * cell's internal time word and never part of the API.
 */
public final class TestReconfigurables
{
    private TestReconfigurables()
    {
    }

    public static long tatNs(final ReconfigurableRateLimiter limiter)
    {
        return limiter.tatNs();
    }

    public static long tatNs(final ReconfigurablePayLaterRateLimiter limiter)
    {
        return limiter.tatNs();
    }

    public static long tatNs(final ReconfigurableShaper shaper)
    {
        return TestFronts.tatNs(shaper.shaper());
    }
}
