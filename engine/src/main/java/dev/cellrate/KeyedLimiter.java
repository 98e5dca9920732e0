package dev.cellrate;

import org.agrona.concurrent.NanoClock;

/**
 * The front contract of every keyed limiter: one cell per key, decisions with key, permits and time all
 * explicit, or a clock form {@code (key, permits)}. No method takes a {@code long} that means time without
 * also taking permits.
 * <p>
 * Implementations supply the explicit forms; the clock forms are written once here and read {@link #clock()}.
 * Codes follow the decision convention of {@link Result}, including the keyed range (use
 * {@link Result#isAdmitted(long)}: the fail-open table-full codes are admissions).
 * <p>
 * Threading: thread-safe. Allocation: none, on every method.
 */
public interface KeyedLimiter
{
    /**
     * @param key     the key.
     * @param permits the cost.
     * @param nowNs   the time of the request, ns.
     * @return a decision code (see {@link Result}).
     */
    long tryAcquire(long key, long permits, long nowNs);

    /**
     * @param key      the key.
     * @param permits  the cost.
     * @param nowNs    the time of the request, ns.
     * @param decision a caller-owned holder, filled in place.
     * @return a decision code (see {@link Result}).
     */
    long tryAcquire(long key, long permits, long nowNs, Decision decision);

    /**
     * @param key     the key (hashed; not retained).
     * @param permits the cost.
     * @param nowNs   the time of the request, ns.
     * @return a decision code (see {@link Result}).
     */
    long tryAcquire(CharSequence key, long permits, long nowNs);

    /**
     * @param key      the key (hashed; not retained).
     * @param permits  the cost.
     * @param nowNs    the time of the request, ns.
     * @param decision a caller-owned holder, filled in place.
     * @return a decision code (see {@link Result}).
     */
    long tryAcquire(CharSequence key, long permits, long nowNs, Decision decision);

    /**
     * @return the clock the clock forms read.
     */
    NanoClock clock();

    /**
     * @param key     the key.
     * @param permits the cost.
     * @return as {@link #tryAcquire(long, long, long)}, by the clock.
     */
    default long tryAcquire(final long key, final long permits)
    {
        return tryAcquire(key, permits, clock().nanoTime());
    }

    /**
     * @param key      the key.
     * @param permits  the cost.
     * @param decision a caller-owned holder, filled in place.
     * @return as {@link #tryAcquire(long, long, long, Decision)}, by the clock.
     */
    default long tryAcquire(final long key, final long permits, final Decision decision)
    {
        return tryAcquire(key, permits, clock().nanoTime(), decision);
    }

    /**
     * @param key     the key.
     * @param permits the cost.
     * @return as {@link #tryAcquire(CharSequence, long, long)}, by the clock.
     */
    default long tryAcquire(final CharSequence key, final long permits)
    {
        return tryAcquire(key, permits, clock().nanoTime());
    }

    /**
     * @param key      the key.
     * @param permits  the cost.
     * @param decision a caller-owned holder, filled in place.
     * @return as {@link #tryAcquire(CharSequence, long, long, Decision)}, by the clock.
     */
    default long tryAcquire(final CharSequence key, final long permits, final Decision decision)
    {
        return tryAcquire(key, permits, clock().nanoTime(), decision);
    }
}
