package dev.cellrate.redis;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Stops asking Redis for a back-off period after repeated failures.
 * <p>
 * State, one {@code long} so each transition is one CAS: {@code >= 0} closed, counting consecutive failures;
 * {@link #OPEN} refusing every call until {@code openUntilNs}; {@link #PROBING} once that instant has passed
 * and exactly one caller (the CAS winner) is asking Redis again: its success closes the breaker, its failure
 * opens it for another period. {@code openUntilNs} is written before the CAS to {@link #OPEN}, and read after
 * reading {@link #OPEN}, so a reader that sees OPEN sees its instant.
 * <p>
 * Concurrency: any thread; lock-free; allocation-free.
 */
final class CircuitBreaker
{
    private static final long OPEN = -1;
    private static final long PROBING = -2;

    private final int failureThreshold;
    private final long openNs;
    private final AtomicLong state = new AtomicLong();
    private final AtomicLong openUntilNs = new AtomicLong();
    private final AtomicLong openings = new AtomicLong();

    CircuitBreaker(final int failureThreshold, final long openNs)
    {
        this.failureThreshold = failureThreshold;
        this.openNs = openNs;
    }

    /**
     * @param nowNs {@link System#nanoTime()}.
     * @return true if the caller may ask Redis.
     */
    boolean allow(final long nowNs)
    {
        final long s = state.get();
        if (s >= 0)
        {
            return true;
        }
        return OPEN == s && nowNs - openUntilNs.get() >= 0 && state.compareAndSet(OPEN, PROBING);
    }

    void success()
    {
        if (0 != state.get())
        {
            state.set(0);
        }
    }

    void failure(final long nowNs)
    {
        while (true)
        {
            final long s = state.get();
            if (OPEN == s)
            {
                return;
            }
            if (s >= 0 && s + 1 < failureThreshold)
            {
                if (state.compareAndSet(s, s + 1))
                {
                    return;
                }
                continue;
            }
            openUntilNs.set(nowNs + openNs);
            if (state.compareAndSet(s, OPEN))
            {
                openings.incrementAndGet();
                return;
            }
        }
    }

    /**
     * @return true while the breaker refuses calls (open or probing).
     */
    boolean isOpen()
    {
        return state.get() < 0;
    }

    /**
     * @return times the breaker opened.
     */
    long openings()
    {
        return openings.get();
    }
}
