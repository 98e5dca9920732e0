package dev.cellrate.redis;

import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
import io.netty.util.TimerTask;

import java.util.concurrent.TimeUnit;

/**
 * The one timer of every {@link RedisRateLimiter} in the JVM: the timeouts of asynchronous decisions and the
 * start-up retries. A hashed wheel (Netty's, from the Lettuce client's own dependencies) with a 10 ms tick on one
 * daemon thread, started at its first use and never stopped, so limiters that are never closed leave no thread
 * behind. Scheduling and cancelling are lock-free (a queue insert and a CAS), so concurrent callers do not
 * serialise on it; each scheduled task allocates one wheel entry. A task runs within one tick after its delay.
 */
final class SharedTimer
{
    /** The wheel's tick: the granularity of an asynchronous timeout. */
    static final long TICK_NS = TimeUnit.MILLISECONDS.toNanos(10);

    private static final class Holder
    {
        static final HashedWheelTimer TIMER = new HashedWheelTimer(r ->
        {
            final Thread thread = new Thread(r, "cellrate-redis-timer");
            thread.setDaemon(true);
            return thread;
        }, TICK_NS, TimeUnit.NANOSECONDS, 512, false);
    }

    private SharedTimer()
    {
    }

    /**
     * @param task    what to run on the timer thread.
     * @param delayNs after how long (&ge; 0).
     * @return the handle that cancels it.
     */
    static Timeout schedule(final TimerTask task, final long delayNs)
    {
        return Holder.TIMER.newTimeout(task, Math.max(0, delayNs), TimeUnit.NANOSECONDS);
    }
}
