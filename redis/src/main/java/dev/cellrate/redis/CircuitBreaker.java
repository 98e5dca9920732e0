package dev.cellrate.redis;

import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Stops asking Redis for a back-off period when too many of the recent calls failed.
 * <p>
 * Window: the outcomes of the last {@code windowCalls} calls that reached Redis, in a ring ({@code 1} failed,
 * {@code 0} answered). The breaker opens when at least {@code minimumCalls} calls were recorded since it last
 * closed and the failures among the last {@code windowCalls} are at least {@code failureRatePercent} % of them
 * (a count-based sliding window, as in Resilience4j). Only a failure can open it, so the rate is evaluated on
 * failures only. A failure is a timeout or an error about the server (connection lost or refused, an error reply
 * that is not about one key); an answer about one key ({@code WRONGTYPE}, a value that is not a TAT) is an
 * answer.
 * <p>
 * States, one {@code long} so each transition is one CAS: {@link #CLOSED} recording outcomes; {@link #OPEN}
 * refusing every call until {@code openUntilNs}; {@link #PROBING} once that instant has passed and exactly one
 * caller (the CAS winner) is asking Redis again: a success closes the breaker and clears the window, a failure
 * opens it for another period. {@code openUntilNs} is written before the CAS to {@link #OPEN} and read after
 * reading {@link #OPEN}, so a reader that sees OPEN sees its instant.
 * <p>
 * Counting: each outcome takes a slot by {@code getAndIncrement} on the call count and swaps its outcome into
 * the ring; the failure count moves by the difference between the new and the evicted outcome, so it equals the
 * failures in the ring once concurrent recorders have finished (between their two steps it may lag by one per
 * recorder, which only delays or hastens an opening by that many calls). While the window is full and holds no
 * failure, an answer is not recorded (it would replace an answer by an answer), so a healthy limiter's calls only
 * read the breaker's words and never write them.
 * <p>
 * Concurrency: any thread; lock-free; allocation-free.
 */
final class CircuitBreaker
{
    private static final long CLOSED = 0;
    private static final long OPEN = 1;
    private static final long PROBING = 2;

    private final int windowCalls;
    private final int minimumCalls;
    private final int failureRatePercent;
    private final long openNs;
    private final AtomicIntegerArray window;
    private final AtomicLong calls = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong state = new AtomicLong(CLOSED);
    private final AtomicLong openUntilNs = new AtomicLong();
    private final AtomicLong openings = new AtomicLong();
    private volatile long callsAtClose;

    /**
     * @param windowCalls        calls whose outcomes are kept, &ge; 1.
     * @param minimumCalls       calls recorded since the breaker last closed before it may open, in [1, windowCalls].
     * @param failureRatePercent failures among the window that open it, in [1, 100] %.
     * @param openNs             how long it stays open before one probe.
     */
    CircuitBreaker(final int windowCalls, final int minimumCalls, final int failureRatePercent, final long openNs)
    {
        this.windowCalls = windowCalls;
        this.minimumCalls = minimumCalls;
        this.failureRatePercent = failureRatePercent;
        this.openNs = openNs;
        this.window = new AtomicIntegerArray(windowCalls);
    }

    /**
     * @param nowNs {@link System#nanoTime()}.
     * @return true if the caller may ask Redis.
     */
    boolean allow(final long nowNs)
    {
        final long s = state.get();
        if (CLOSED == s)
        {
            return true;
        }
        return OPEN == s && nowNs - openUntilNs.get() >= 0 && state.compareAndSet(OPEN, PROBING);
    }

    /** Redis answered (a decision, or an answer about one key). */
    void success()
    {
        final long s = state.get();
        if (CLOSED == s)
        {
            if (0 == failures.get() && calls.get() - callsAtClose >= windowCalls)
            {
                return; // a full window of answers: recording one more changes nothing, so the healthy path writes nothing
            }
            record(0);
        }
        else if (PROBING == s)
        {
            clearWindow();
            state.compareAndSet(PROBING, CLOSED);
        }
    }

    /**
     * Redis did not answer in time, or failed.
     *
     * @param nowNs {@link System#nanoTime()}.
     */
    void failure(final long nowNs)
    {
        final long s = state.get();
        if (PROBING == s)
        {
            open(PROBING, nowNs);
        }
        else if (CLOSED == s)
        {
            record(1);
            final long recorded = Math.min(calls.get() - callsAtClose, windowCalls);
            if (recorded >= minimumCalls && failures.get() * 100 >= (long)failureRatePercent * recorded)
            {
                open(CLOSED, nowNs);
            }
        }
    }

    private void open(final long from, final long nowNs)
    {
        openUntilNs.set(nowNs + openNs);
        if (state.compareAndSet(from, OPEN))
        {
            openings.incrementAndGet();
        }
    }

    private void record(final int outcome)
    {
        final long call = calls.getAndIncrement();
        final int evicted = window.getAndSet((int)(call % windowCalls), outcome);
        if (evicted != outcome)
        {
            failures.addAndGet(outcome - evicted);
        }
    }

    private void clearWindow()
    {
        for (int i = 0; i < windowCalls; i++)
        {
            if (0 != window.getAndSet(i, 0))
            {
                failures.decrementAndGet();
            }
        }
        callsAtClose = calls.get();
    }

    /**
     * @return true while the breaker refuses calls (open or probing).
     */
    boolean isOpen()
    {
        return CLOSED != state.get();
    }

    /**
     * @return times the breaker opened.
     */
    long openings()
    {
        return openings.get();
    }
}
