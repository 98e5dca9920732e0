package dev.cellrate;

/**
 * A {@link Limiter} whose state is a GCRA cell, so it can also answer {@code peek} (what a cost would get now,
 * without charging) and take a {@code debit} (a charge after the fact, for a cost learned only from the
 * response: a failed login, the tokens an LLM call really used).
 * <p>
 * Debt: a debit is charged whether or not it conforms, but a cell owes at most one full burst: its TAT is
 * never more than {@code nowNs + 2 (&tau; + T)} (see {@link Limit#debtCeilingNs()}); a larger debit is
 * clamped there. Every request is rejected until the debt is paid back by time. A debit never lowers a TAT.
 * <p>
 * The window and warm-up limiters bound their debt in their own terms (a window's count is clamped at its
 * limit, a sliding log logs at most its limit, the warm-up limiter's nextFree moves at most {@code W + S} past
 * now); each front documents its rule, {@code docs/api.md} lists them.
 */
public interface DebitLimiter extends Limiter
{
    /**
     * What {@link #tryAcquire(long, long)} would answer at {@code nowNs}, without charging anything.
     *
     * @param permits the cost.
     * @param nowNs   the time, ns.
     * @return {@link Result#ADMITTED}, a positive retry-after in ns, or {@link Result#NEVER}.
     */
    long peek(long permits, long nowNs);

    /**
     * Charge {@code permits} after the fact, going into bounded debt if needed.
     *
     * @param permits the cost, &ge; 1 (any size: clamped at the debt ceiling); below 1 it is
     *                {@link Result#NEVER} and nothing is charged.
     * @param nowNs   the time, ns.
     * @return {@link Result#ADMITTED} if one permit would still be admitted after the charge, else the ns
     * until it would (the time to pay the debt back); {@link Result#NEVER} for a cost below 1.
     */
    long debit(long permits, long nowNs);

    /**
     * @param permits the cost.
     * @return as {@link #peek(long, long)}, by the clock.
     */
    default long peek(final long permits)
    {
        return peek(permits, clock().nanoTime());
    }

    /**
     * @param permits the cost.
     * @return as {@link #debit(long, long)}, by the clock.
     */
    default long debit(final long permits)
    {
        return debit(permits, clock().nanoTime());
    }
}
