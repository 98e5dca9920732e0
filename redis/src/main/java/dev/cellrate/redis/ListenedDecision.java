package dev.cellrate.redis;

import dev.cellrate.Decision;
import io.netty.util.Timeout;
import io.netty.util.TimerTask;

/**
 * An asynchronous caller's {@link PendingDecision}: its timeout is an entry on the {@link SharedTimer}, and the
 * listener runs exactly once, for whichever comes first: the reply (on the I/O thread) or the timeout (on the
 * timer's thread).
 */
final class ListenedDecision extends PendingDecision implements TimerTask
{
    private final KeyDecisions decisions;
    private final long timeoutNs;
    private final long permits;
    private final Decision decision;
    private final DecisionListener listener;
    private volatile Timeout timeout;

    ListenedDecision(
        final KeyDecisions decisions, final long timeoutNs, final byte[] redisKey, final long permits,
        final long incrementUs, final long nowUs, final Decision decision, final DecisionListener listener)
    {
        super(redisKey, incrementUs, nowUs);
        this.decisions = decisions;
        this.timeoutNs = timeoutNs;
        this.permits = permits;
        this.decision = decision;
        this.listener = listener;
    }

    /** Schedule the timeout, then queue the decision. */
    void start(final Coalescer coalescer)
    {
        try
        {
            timeout = SharedTimer.schedule(this, timeoutNs);
        }
        catch (final RuntimeException ex)
        {
            if (abandon()) // the timer refused: the JVM is shutting down
            {
                reply.cause = FallbackCause.ERROR;
                finish();
            }
            return;
        }
        coalescer.submit(this);
    }

    /** The timeout. */
    public void run(final Timeout t)
    {
        if (abandon())
        {
            reply.cause = FallbackCause.TIMEOUT;
            finish();
        }
    }

    void answered()
    {
        final Timeout t = timeout;
        if (null != t)
        {
            t.cancel();
        }
        finish();
    }

    private void finish()
    {
        listener.onDecision(decisions.finish(reply, redisKey, permits, nowUs, decision));
    }
}
