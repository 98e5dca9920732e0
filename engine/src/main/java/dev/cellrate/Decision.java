package dev.cellrate;

import dev.cellrate.gcra.Gcra;

/**
 * A caller-owned, reusable holder for the full outcome of one decision (what HTTP's {@code Retry-After} and
 * {@code RateLimit} headers need). Limiters fill it only when the caller passes one, since
 * {@link #remaining()} needs a division that the default path avoids.
 * <p>
 * Threading: not thread-safe; keep one per thread (or per event loop) and reuse it.
 */
public final class Decision
{
    private long code = Result.NEVER;
    private long retryAfterNs;
    private long remaining;
    private long resetAfterNs;
    private long limit;

    /**
     * Fill this holder from the outcome of a GCRA cell: the remaining permits follow from the reset-after and the
     * limit ({@code (&tau; + T - resetAfterNs) / T}, at least 0). The engine's GCRA fronts answer through it; an
     * integration that decides GCRA elsewhere (a server-side script) answers through it with the same fields.
     * Allocation-free.
     *
     * @param code         the result code of the decision (see {@link Result}).
     * @param resetAfterNs ns until the cell is full again if nothing else arrives, after the decision (negative
     *                     values count as 0).
     * @param limit        the cell's limit.
     * @return this.
     */
    public Decision set(final long code, final long resetAfterNs, final Limit limit)
    {
        final long lagNs = Math.max(0, resetAfterNs);
        this.code = code;
        this.retryAfterNs = code > 0 ? code : (Result.isAdmitted(code) ? 0 : Long.MAX_VALUE);
        this.remaining = Gcra.remainingAtLag(lagNs, limit.emissionIntervalNs(), limit.ceilingNs());
        this.resetAfterNs = lagNs;
        this.limit = limit.burst();
        return this;
    }

    /**
     * Fill this holder from an already computed outcome: the form of the limiters that are not GCRA (windows,
     * logs, composites) and of any code that answers with the engine's result type (an integration's own
     * fallback, a filter's answer for a request it did not limit). Allocation-free.
     *
     * @param code         the result code of the decision (see {@link Result}).
     * @param remaining    single permits that would still be admitted at the same instant, &ge; 0.
     * @param resetAfterNs ns until the limiter is back to its idle state if nothing else arrives, &ge; 0.
     * @param limit        the most permits the limiter admits per window (the {@code RateLimit-Limit} value).
     * @return this.
     */
    public Decision setOutcome(final long code, final long remaining, final long resetAfterNs, final long limit)
    {
        this.code = code;
        this.retryAfterNs = code > 0 ? code : (Result.isAdmitted(code) ? 0 : Long.MAX_VALUE);
        this.remaining = remaining;
        this.resetAfterNs = resetAfterNs;
        this.limit = limit;
        return this;
    }

    /**
     * @return the result code (see {@link Result}).
     */
    public long code()
    {
        return code;
    }

    /**
     * @return true iff the request was admitted ({@link Result#isAdmitted(long)}).
     */
    public boolean admitted()
    {
        return Result.isAdmitted(code);
    }

    /**
     * @return 0 if admitted; ns until the same request would conform if rejected;
     * {@link Long#MAX_VALUE} if it never can.
     */
    public long retryAfterNs()
    {
        return retryAfterNs;
    }

    /**
     * @return single permits that would still be admitted at the same instant, &ge; 0.
     */
    public long remaining()
    {
        return remaining;
    }

    /**
     * @return ns until the cell is full again if nothing else arrives, &ge; 0.
     */
    public long resetAfterNs()
    {
        return resetAfterNs;
    }

    /**
     * @return the burst b of the limit (the {@code RateLimit-Limit} value).
     */
    public long limit()
    {
        return limit;
    }

    public String toString()
    {
        return "Decision{" + Result.name(code) + ", retryAfterNs=" + retryAfterNs + ", remaining=" + remaining +
            ", resetAfterNs=" + resetAfterNs + ", limit=" + limit + '}';
    }
}
