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
     * Fill this holder from a GCRA decision. Called by limiters; allocation-free.
     *
     * @param code       the result code of the decision (see {@link Result}).
     * @param tatAfterNs the cell's TAT after the decision (unchanged if rejected).
     * @param nowNs      the time of the decision.
     * @param limit      the cell's limit.
     * @return this.
     */
    public Decision set(final long code, final long tatAfterNs, final long nowNs, final Limit limit)
    {
        final long ceilingNs = limit.ceilingNs();
        this.code = code;
        this.retryAfterNs = code > 0 ? code : (Result.isAdmitted(code) ? 0 : Long.MAX_VALUE);
        this.remaining = Gcra.remaining(tatAfterNs, nowNs, limit.emissionIntervalNs(), ceilingNs);
        this.resetAfterNs = Gcra.resetAfterNs(tatAfterNs, nowNs);
        this.limit = limit.burst();
        return this;
    }

    /**
     * Fill this holder from an already computed outcome, for limiters that are not GCRA (windows, logs).
     * Called by limiters; allocation-free.
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
