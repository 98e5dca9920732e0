package dev.cellrate.netty;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.Result;

/**
 * The charge-after {@link DebtLimiter} over the engine's own keyed {@code peek} and {@code debit}
 * ({@link KeyedRateLimiter}): one exact GCRA cell per key in the keyed table (no shared buckets), the debt
 * bounded at one burst as the engine documents ({@code TAT <= now + 2(tau + T)}), allocation-free.
 * <p>
 * {@link #resetAfterNs} is what a whole burst would wait for ({@code peek} of {@code burst} permits): the time
 * until the key's budget is full again, to within one emission interval when T does not divide &tau;.
 */
public final class EngineDebt implements DebtLimiter
{
    private final KeyedRateLimiter limiter;
    private final long burst;

    /**
     * @param limiter the keyed limiter whose cells carry the debt.
     * @throws IllegalArgumentException if {@code limiter} is null.
     */
    public EngineDebt(final KeyedRateLimiter limiter)
    {
        if (null == limiter)
        {
            throw new IllegalArgumentException("limiter must not be null");
        }
        this.limiter = limiter;
        this.burst = limiter.limit().burst();
    }

    @Override
    public long peek(final byte[] key, final int offset, final int length, final long nowNs)
    {
        return limiter.peek(key, offset, length, 1, nowNs);
    }

    @Override
    public long debit(final byte[] key, final int offset, final int length, final long permits, final long nowNs)
    {
        if (permits < 1)
        {
            return Result.ADMITTED;
        }
        final long code = limiter.debit(key, offset, length, permits, nowNs);
        return code >= 0 ? Result.ADMITTED : code;
    }

    @Override
    public long resetAfterNs(final byte[] key, final int offset, final int length, final long nowNs)
    {
        final long code = limiter.peek(key, offset, length, burst, nowNs);
        return code > 0 ? code : 0;
    }

    @Override
    public Limit limit()
    {
        return limiter.limit();
    }
}
