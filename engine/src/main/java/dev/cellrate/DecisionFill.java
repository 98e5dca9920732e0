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

    protected long admitted(
        final Decision decision,
        final long tatBeforeNs,
        final long tatAfterNs,
        final long incrementNs,
        final long nowNs)
    {
        return DecisionLoop.fill(decision, Result.ADMITTED, tatAfterNs, nowNs, limit, Result.ADMITTED);
    }

    protected long rejected(final Decision decision, final long code, final long tatNs, final long nowNs)
    {
        return DecisionLoop.fill(decision, code, tatNs, nowNs, limit, code);
    }
}
