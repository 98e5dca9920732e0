package dev.cellrate.redis;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Sends the one-key decisions of concurrent callers together (synchronous and asynchronous, on server or caller
 * time), so that many
 * callers on one connection cost Redis one script call per group instead of one per decision.
 * <p>
 * Algorithm: a caller pushes its {@link PendingDecision} on a lock-free stack, then tries to send. While fewer
 * than {@value #MAX_IN_FLIGHT} combined calls are in flight, the sender takes the whole stack at once and sends it
 * as one {@link CoalescedCall} (in arrival order, up to {@link RedisRateLimiter#MAX_BATCH} keys a call); otherwise
 * it leaves its decision on the stack, and the I/O thread that receives the next reply answers that reply's
 * callers, yields the CPU once if any of them is synchronous, and then sends what has gathered, which by then
 * often holds those callers' next decisions too (with 64 callers the groups settle near 32 decisions each). A lone
 * caller therefore finds nothing in flight and leaves at once (one round trip, as an uncombined call); callers that
 * arrive while calls are in flight wait at most for one of them to come back, and meanwhile join one group. No
 * timer, no lock, and no caller waits for another caller's thread.
 * <p>
 * Wake-ups: a synchronous caller yields the CPU twice before it parks ({@link BlockingDecision}), so that most
 * answers find their caller still runnable: unparking it makes no system call, and no woken caller preempts the
 * I/O thread in the middle of a reply. The I/O thread's one yield lets the callers it answered queue their next
 * decisions before it sends, which keeps the groups as large as when it woke each caller itself.
 * <p>
 * Concurrency: a caller pushes (CAS on the head) and then reads the in-flight count; the I/O thread decrements
 * the count and then reads the head. Whichever comes second sees the other's write, so a decision pushed while the
 * last call was coming back is always sent by one of the two.
 * <p>
 * Semantics: a combined call decides each key in order on its own cell, exactly as single calls one after the
 * other; each caller keeps its own deadline (a caller whose deadline passes answers by the fail policy and its
 * decision, if not sent yet, is left out; if sent, its charge in Redis stands, as for a late reply).
 */
final class Coalescer
{
    /** Combined calls in flight at once: one being answered by Redis while the next one gathers and travels. */
    static final int MAX_IN_FLIGHT = 2;

    private final RedisRateLimiter limiter;
    private final AtomicReference<PendingDecision> head = new AtomicReference<>();
    private final AtomicInteger inFlight = new AtomicInteger();

    Coalescer(final RedisRateLimiter limiter)
    {
        this.limiter = limiter;
    }

    /** Queue a decision and send what has gathered if a call may leave now. */
    void submit(final PendingDecision decision)
    {
        PendingDecision top;
        do
        {
            top = head.get();
            decision.next = top;
        }
        while (!head.compareAndSet(top, decision));
        drain();
    }

    /** A combined call came back (answered, failed or timed out): its place may carry what has gathered. */
    void sent()
    {
        inFlight.decrementAndGet();
        drain();
    }

    private void drain()
    {
        while (null != head.get())
        {
            final int n = inFlight.get();
            if (n >= MAX_IN_FLIGHT)
            {
                return;
            }
            if (!inFlight.compareAndSet(n, n + 1))
            {
                continue;
            }
            final PendingDecision taken = head.getAndSet(null);
            if (null == taken || !send(taken))
            {
                inFlight.decrementAndGet();
            }
        }
    }

    /**
     * Send the stack {@code top} (newest first) in arrival order, leaving out decisions whose callers gave up.
     *
     * @return false iff nothing was left to send (the place taken is then free again).
     */
    private boolean send(final PendingDecision top)
    {
        int count = 0;
        PendingDecision fifo = null;
        for (PendingDecision d = top; null != d; )
        {
            final PendingDecision older = d.next;
            if (!d.abandoned())
            {
                d.next = fifo;
                fifo = d;
                count++;
            }
            d = older;
        }
        if (0 == count)
        {
            return false;
        }
        boolean first = true;
        while (count > 0)
        {
            final int n = Math.min(count, RedisRateLimiter.MAX_BATCH);
            final PendingDecision[] group = new PendingDecision[n];
            for (int i = 0; i < n; i++)
            {
                group[i] = fifo;
                fifo = fifo.next;
            }
            count -= n;
            if (!first)
            {
                inFlight.incrementAndGet(); // a very large gathering leaves as several calls, each counted
            }
            first = false;
            CoalescedCall.start(limiter, this, group);
        }
        return true;
    }
}
