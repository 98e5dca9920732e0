package dev.cellrate;

import org.agrona.concurrent.NanoClock;

/**
 * The front contract of every single-cell limiter: one decision, permits and time both explicit, or a clock
 * form whose only {@code long} argument is permits. No method takes a lone {@code long} that means time.
 * <p>
 * Implementations supply the explicit forms; the clock forms are written once here and read
 * {@link #clock()} (inject an Agrona {@code CachedNanoClock} to put time under a test's control: it is a
 * settable clock). Codes follow the decision convention of {@link Result}.
 * <p>
 * Threading: as the implementation says ({@code SingleThreadedRateLimiter} is single-threaded; every other
 * implementation is thread-safe). Allocation: none, on every method.
 */
public interface Limiter
{
    /**
     * Try to take {@code permits} at {@code nowNs}, all or nothing.
     *
     * @param permits the cost; a cost that can never fit is {@link Result#NEVER}.
     * @param nowNs   the time of the request, ns (any monotonic source; negative values are fine).
     * @return {@link Result#ADMITTED}, a positive retry-after in ns, or {@link Result#NEVER}.
     */
    long tryAcquire(long permits, long nowNs);

    /**
     * As {@link #tryAcquire(long, long)}, and fill {@code decision} with the full outcome (retry-after,
     * remaining, reset-after, limit).
     *
     * @param permits  the cost.
     * @param nowNs    the time of the request, ns.
     * @param decision a caller-owned holder, filled in place.
     * @return as {@link #tryAcquire(long, long)}.
     */
    long tryAcquire(long permits, long nowNs, Decision decision);

    /**
     * @return the clock the clock forms read.
     */
    NanoClock clock();

    /**
     * Try to take one permit now, by the clock.
     *
     * @return as {@link #tryAcquire(long, long)}.
     */
    default long tryAcquire()
    {
        return tryAcquire(1, clock().nanoTime());
    }

    /**
     * Try to take {@code permits} now, by the clock (Guava's {@code tryAcquire(int permits)}, Bucket4j's
     * {@code tryConsume(long)}).
     *
     * @param permits the cost.
     * @return as {@link #tryAcquire(long, long)}.
     */
    default long tryAcquire(final long permits)
    {
        return tryAcquire(permits, clock().nanoTime());
    }

    /**
     * As {@link #tryAcquire(long, long, Decision)}, by the clock.
     *
     * @param permits  the cost.
     * @param decision a caller-owned holder, filled in place.
     * @return as {@link #tryAcquire(long, long)}.
     */
    default long tryAcquire(final long permits, final Decision decision)
    {
        return tryAcquire(permits, clock().nanoTime(), decision);
    }
}
