package dev.cellrate.translate;

import dev.cellrate.Limit;
import dev.cellrate.PayLaterRateLimiter;
import dev.cellrate.ReservingLimiter;
import org.agrona.concurrent.NanoClock;

/**
 * A translated Guava {@code RateLimiter.create(r)} ({@code SmoothBursty}, one second of stored permits):
 * the limit GCRA(T, M&middot;T) with {@code M = r * 1 s}, plus Guava's two departures from a plain GCRA cell:
 * <ol>
 *     <li><b>Empty start.</b> Guava stores no permits at construction and fills while idle: the limiter
 *     starts empty at its creation time ({@link PayLaterRateLimiter#startingEmpty}), not full. Its first
 *     request passes at once (it pays later), and the next waits for what the first charged.</li>
 *     <li><b>Pay later.</b> {@code tryAcquire(n)} admits whenever one permit would be admitted and charges
 *     all n ({@link PayLaterRateLimiter}).</li>
 * </ol>
 *
 * @param limit GCRA(T, &tau;) with &tau; = M&middot;T (1 s when T is exact).
 */
public record GuavaBursty(Limit limit)
{
    /**
     * A lock-free limiter that decides as this Guava limiter created at {@code createdNs} would
     * ({@code tryAcquire(n)} for n up to {@link Integer#MAX_VALUE}, or as many as fit 2<sup>62</sup> ns).
     *
     * @param createdNs the creation time, on the same clock as later {@code nowNs} values.
     * @param clock     the clock of the {@code *Now} overloads.
     * @return the limiter, starting empty.
     */
    public PayLaterRateLimiter newRateLimiter(final long createdNs, final NanoClock clock)
    {
        return PayLaterRateLimiter.startingEmpty(limit, maxPermits(), createdNs, clock);
    }

    /**
     * The same Guava limiter used through {@code acquire(n)} and {@code tryAcquire(n, timeout, unit)}: a
     * pay-later {@link ReservingLimiter} starting empty. {@code reserve(n, t, timeoutNs)} decides and charges as
     * {@code tryAcquire(n, timeout)} and returns the wait Guava would sleep; {@code acquire(n)} is
     * {@code reserve(n, t, Long.MAX_VALUE)} (Guava saturates instead of answering {@code NEVER} past the
     * {@code long} range); {@code acquireWithin(n, timeoutNs)} also sleeps, interruptibly (Guava's does not
     * respond to interrupts).
     *
     * @param createdNs the creation time, on the same clock as later {@code nowNs} values.
     * @param clock     the clock of {@code acquireWithin}.
     * @return the limiter, starting empty.
     */
    public ReservingLimiter newReservingLimiter(final long createdNs, final NanoClock clock)
    {
        return ReservingLimiter.payLaterStartingEmpty(limit, maxPermits(), createdNs, clock);
    }

    private long maxPermits()
    {
        return Math.min(Integer.MAX_VALUE, Limit.MAX_CEILING_NS / limit.emissionIntervalNs());
    }
}
