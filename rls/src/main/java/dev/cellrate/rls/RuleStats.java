package dev.cellrate.rls;

import java.util.concurrent.atomic.LongAdder;

/**
 * The reference service's statistics of one statistics key ({@code domain.key_value...}), counted in hits
 * (a request's hits addend), as it counts them: {@code total_hits}; {@code over_limit}, the hits refused
 * (including those a shadow mode let through); {@code near_limit}, the admitted hits above 80% of the
 * limit's capacity; {@code within_limit}, the admitted hits; {@code shadow_mode}, the hits a shadow mode let
 * through that the limit refused. Adds are allocation-free ({@link LongAdder}).
 */
final class RuleStats
{
    /** Near-limit threshold: 80% of the capacity, as the reference's default {@code NEAR_LIMIT_RATIO}. */
    static final int NEAR_LIMIT_PERCENT = 80;

    final String domain;
    final String key;
    final LongAdder totalHits = new LongAdder();
    final LongAdder overLimit = new LongAdder();
    final LongAdder nearLimit = new LongAdder();
    final LongAdder withinLimit = new LongAdder();
    final LongAdder shadowMode = new LongAdder();

    RuleStats(final String domain, final String key)
    {
        this.domain = domain;
        this.key = key;
    }

    /**
     * @param hits      hits of the decision.
     * @param admitted  true if the limit admitted them.
     * @param shadowed  true if refused but let through by a shadow mode.
     * @param usedAfter permits in use after the decision (capacity - remaining), for near_limit.
     * @param capacity  the limit's capacity.
     */
    void record(final long hits, final boolean admitted, final boolean shadowed, final long usedAfter,
        final long capacity)
    {
        totalHits.add(hits);
        if (admitted)
        {
            withinLimit.add(hits);
            final long nearThreshold = capacity * NEAR_LIMIT_PERCENT / 100;
            if (usedAfter > nearThreshold)
            {
                nearLimit.add(Math.min(hits, usedAfter - nearThreshold));
            }
        }
        else
        {
            overLimit.add(hits);
            if (shadowed)
            {
                shadowMode.add(hits);
            }
        }
    }
}
