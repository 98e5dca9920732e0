package dev.cellrate;

import dev.cellrate.gcra.CellLoop;

/**
 * The cell loop's steps of a single-cell front that answers in a {@link Decision} under one fixed {@link Limit}
 * ({@link RateLimiter}, {@link PayLaterRateLimiter}): fill the caller's holder from the cell as the decision left
 * it, and answer the code. Immutable; allocation-free.
 */
final class DecisionFill extends CellLoop<Decision>
{
    private final Limit limit;

    /**
     * @param limit the limit the holder reports.
     */
    DecisionFill(final Limit limit)
    {
        this.limit = limit;
    }

    protected void decided(final Decision decision, final long code, final long tatNs, final long nowNs)
    {
        DecisionLoop.fill(decision, code, tatNs, nowNs, limit, code);
    }
}
