package dev.cellrate.redis;

import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.locks.LockSupport;

/**
 * One synchronous decision waiting in a {@link Coalescer}: the key, its increment, the caller's own
 * {@link ScriptReply} and the caller's thread. Exactly one side settles it, by a CAS on {@code state}: the
 * combined call that carries it ({@link #claim()}, then fills the reply and {@link #release()}s the caller), or
 * the caller whose deadline passed first ({@link #abandon()}, then the fail policy answers). The reply is written
 * only by the side that won, so the caller never reads a reply that is being parsed.
 */
final class PendingDecision
{
    private static final int WAITING = 0;
    private static final int CLAIMED = 1;
    private static final int ANSWERED = 2;
    private static final int ABANDONED = 3;
    private static final AtomicIntegerFieldUpdater<PendingDecision> STATE =
        AtomicIntegerFieldUpdater.newUpdater(PendingDecision.class, "state");

    final byte[] redisKey;
    final long incrementUs;
    final ScriptReply reply = new ScriptReply();
    private final Thread caller;
    private volatile int state;
    PendingDecision next;

    PendingDecision(final byte[] redisKey, final long incrementUs, final Thread caller)
    {
        this.redisKey = redisKey;
        this.incrementUs = incrementUs;
        this.caller = caller;
    }

    /** @return true iff the caller gave up before this decision was sent (sending it would charge for nothing). */
    boolean abandoned()
    {
        return ABANDONED == state;
    }

    /** The combined call's side: true iff it may fill the reply (the caller has not given up). */
    boolean claim()
    {
        return STATE.compareAndSet(this, WAITING, CLAIMED);
    }

    /** After {@link #claim()} and filling the reply: publish it and wake the caller. */
    void release()
    {
        state = ANSWERED;
        LockSupport.unpark(caller);
    }

    /**
     * The caller's side: wait until the reply is published or the deadline passes (then the reply's cause is
     * {@link FallbackCause#TIMEOUT}), or the thread is interrupted ({@link FallbackCause#ERROR}, the interrupt
     * kept).
     */
    void await(final long deadlineNs)
    {
        while (true)
        {
            final int s = state;
            if (ANSWERED == s)
            {
                return;
            }
            if (CLAIMED == s)
            {
                Thread.onSpinWait(); // the reply is being copied: a few stores
                continue;
            }
            final boolean interrupted = Thread.interrupted();
            final long leftNs = deadlineNs - System.nanoTime();
            if (interrupted || leftNs <= 0)
            {
                if (STATE.compareAndSet(this, WAITING, ABANDONED))
                {
                    reply.cause = interrupted ? FallbackCause.ERROR : FallbackCause.TIMEOUT;
                    if (interrupted)
                    {
                        Thread.currentThread().interrupt();
                    }
                    return;
                }
                if (interrupted)
                {
                    Thread.currentThread().interrupt(); // claimed meanwhile: wait for the few stores, keep the flag
                    while (ANSWERED != state)
                    {
                        Thread.onSpinWait();
                    }
                    return;
                }
                continue;
            }
            LockSupport.parkNanos(this, leftNs);
        }
    }
}
