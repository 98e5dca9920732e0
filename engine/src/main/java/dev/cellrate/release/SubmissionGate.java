package dev.cellrate.release;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The open/closed gate of a {@link ReleaseAgent}'s submissions: one word holding a closed bit and the number
 * of submissions in progress, so the closing agent can wait until every submission that got in has
 * published its item (and none can get in afterwards).
 * <p>
 * Concurrency: {@link #enter()} first reads the word and fails at once if the closed bit is set, writing
 * nothing; otherwise it does a {@code getAndIncrement}, and if the closed bit was set in between it backs out
 * and fails. So after {@link #close()} each producer can raise the count at most once more (if it read the
 * word before the close), and producers retrying after {@link dev.cellrate.Result#CLOSED} can never keep
 * the closer in {@link #awaitQuiescent()}. {@link #close()} sets the bit with one atomic OR. Once {@link #awaitQuiescent()} has seen the count at
 * zero after {@link #close()}, no submission is in progress and none can start: every item that will ever
 * be published has been offered to the queue before that read (the exit decrement is a volatile write
 * after the offer).
 */
final class SubmissionGate
{
    private static final long CLOSED_BIT = 1L << 62;

    private final AtomicLong state = new AtomicLong();

    /**
     * @return true if the caller may submit (and must call {@link #exit()} after); false if closed.
     */
    boolean enter()
    {
        if ((state.get() & CLOSED_BIT) != 0)
        {
            return false;
        }
        if ((state.getAndIncrement() & CLOSED_BIT) != 0)
        {
            state.getAndDecrement();
            return false;
        }
        return true;
    }

    /**
     * End a submission that {@link #enter()} let in.
     */
    void exit()
    {
        state.getAndDecrement();
    }

    /**
     * Refuse every later {@link #enter()}. Idempotent.
     */
    void close()
    {
        state.getAndAccumulate(CLOSED_BIT, (s, bit) -> s | bit);
    }

    /**
     * @return true once {@link #close()} was called.
     */
    boolean isClosed()
    {
        return (state.get() & CLOSED_BIT) != 0;
    }

    /**
     * @return submissions in progress (diagnostics and tests).
     */
    long inProgress()
    {
        return state.get() & ~CLOSED_BIT;
    }

    /**
     * After {@link #close()}: spin until no submission is in progress (each is a few non-blocking steps).
     */
    void awaitQuiescent()
    {
        while ((state.get() & ~CLOSED_BIT) != 0)
        {
            Thread.onSpinWait();
        }
    }
}
