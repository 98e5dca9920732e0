package dev.cellrate.redis;

import java.util.concurrent.locks.LockSupport;

/**
 * A synchronous caller's {@link PendingDecision}: the caller yields the CPU {@value #YIELDS} times, then parks until
 * the reply is published or its own deadline passes. A reply published while the caller yields needs no wake-up
 * (unparking a thread that is not parked makes no system call), and the I/O thread that publishes it is not
 * preempted by a woken caller.
 */
final class BlockingDecision extends PendingDecision
{
    /** Yields before parking (with 64 callers on 2 cores, about two answers in three arrive within them). */
    static final int YIELDS = 2;

    private final Thread caller;

    BlockingDecision(final byte[] redisKey, final long incrementUs, final long nowUs, final Thread caller)
    {
        super(redisKey, incrementUs, nowUs);
        this.caller = caller;
    }

    void answered()
    {
        LockSupport.unpark(caller);
    }

    /**
     * Wait until the reply is published or the deadline passes (then the reply's cause is
     * {@link FallbackCause#TIMEOUT}), or the thread is interrupted ({@link FallbackCause#ERROR}, the interrupt kept).
     */
    void await(final long deadlineNs)
    {
        for (int i = 0; i < YIELDS && ANSWERED != state; i++)
        {
            Thread.yield();
        }
        boolean interrupted = false;
        while (true)
        {
            final int s = state;
            if (ANSWERED == s)
            {
                break;
            }
            if (CLAIMED == s)
            {
                Thread.onSpinWait(); // the reply is being copied: a few stores
                continue;
            }
            interrupted |= Thread.interrupted();
            final long leftNs = deadlineNs - System.nanoTime();
            if (interrupted || leftNs <= 0)
            {
                if (abandon())
                {
                    reply.cause = interrupted ? FallbackCause.ERROR : FallbackCause.TIMEOUT;
                    break;
                }
                continue; // claimed meanwhile: the reply is a few stores away
            }
            LockSupport.parkNanos(this, leftNs);
        }
        if (interrupted)
        {
            Thread.currentThread().interrupt();
        }
    }
}
