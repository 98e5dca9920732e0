package dev.cellrate.spring;

import dev.cellrate.Decision;
import dev.cellrate.http.RateLimitFields;

/**
 * A call refused by a {@link RateLimited} limit. It carries the refusing limit and the retry-after; the web
 * layers answer it 429 with {@code Retry-After} rounded up and the limit's rate-limit fields. No stack trace
 * is filled (a refusal is an outcome, not a fault).
 */
public final class RateLimitedException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    private final transient NamedLimit limit;
    private final long retryAfterNs;
    private final long resetAfterNs;

    RateLimitedException(final NamedLimit limit, final long retryAfterNs, final long resetAfterNs)
    {
        super("rate limit " + limit.name() + " exceeded" + (Long.MAX_VALUE == retryAfterNs ? "" :
            "; retry after " + RateLimitFields.ceilSeconds(retryAfterNs) + " s"), null, false, false);
        this.limit = limit;
        this.retryAfterNs = retryAfterNs;
        this.resetAfterNs = resetAfterNs;
    }

    /**
     * @return the name of the limit that refused the call.
     */
    public String limitName()
    {
        return limit.name();
    }

    /**
     * @return ns until the same call would be admitted if nothing else is, or {@link Long#MAX_VALUE} if it
     * never can (its cost exceeds the burst).
     */
    public long retryAfterNs()
    {
        return retryAfterNs;
    }

    /**
     * @return the retry-after in whole seconds, rounded up (the {@code Retry-After} value), or -1 if none.
     */
    public long retryAfterSeconds()
    {
        return Long.MAX_VALUE == retryAfterNs ? -1 : RateLimitFields.ceilSeconds(retryAfterNs);
    }

    NamedLimit limit()
    {
        return limit;
    }

    Decision fill(final Decision decision)
    {
        return decision.setOutcome(Long.MAX_VALUE == retryAfterNs ? dev.cellrate.Result.NEVER : retryAfterNs, 0,
            resetAfterNs, limit.limit().burst());
    }

    /**
     * Write the rejection's header fields.
     *
     * @param registry the limits (for the per-thread scratch).
     * @param sink     receives each name and value.
     */
    public void headers(final LimitRegistry registry, final java.util.function.BiConsumer<String, String> sink)
    {
        final NamedLimit.Scratch s = registry.scratch();
        final int n = limit.headerFields(fill(s.decision), true, false, s);
        for (int i = 0; i < n; i++)
        {
            sink.accept(s.names[i], s.values[i]);
        }
    }

    /**
     * @return the RFC 9457 problem body of this rejection.
     */
    public byte[] problemBody()
    {
        return ProblemBody.of(limit.name(), retryAfterNs);
    }
}
