package dev.cellrate.redis;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Counts every fallback by cause and logs them at a bounded rate: at most one WARNING line per interval,
 * carrying the counts since the previous line, so a fleet that fails open is never silent and a storm of
 * failures is never a storm of log lines. The counting is allocation-free; only the line itself allocates.
 */
final class FallbackLog
{
    private static final Logger LOGGER = System.getLogger(RedisRateLimiter.class.getName());
    private static final FallbackCause[] CAUSES = FallbackCause.values();

    private final String name;
    private final FailPolicy policy;
    private final long intervalNs;
    private final AtomicLongArray counts = new AtomicLongArray(CAUSES.length);
    private final AtomicLongArray logged = new AtomicLongArray(CAUSES.length);
    private final AtomicLong nextLogNs;
    private final AtomicLong lines = new AtomicLong();

    FallbackLog(final String name, final FailPolicy policy, final long intervalNs)
    {
        this.name = name;
        this.policy = policy;
        this.intervalNs = intervalNs;
        this.nextLogNs = new AtomicLong(System.nanoTime());
    }

    void record(final FallbackCause cause, final long nowNs)
    {
        counts.incrementAndGet(cause.ordinal());
        final long next = nextLogNs.get();
        if (nowNs - next >= 0 && nextLogNs.compareAndSet(next, nowNs + intervalNs))
        {
            final StringBuilder line = new StringBuilder(128).append("cellrate-redis '").append(name)
                .append("': Redis unavailable, fail policy ").append(policy).append(" answered");
            for (int i = 0; i < CAUSES.length; i++)
            {
                final long total = counts.get(i);
                line.append(' ').append(CAUSES[i]).append('=').append(total - logged.getAndSet(i, total));
            }
            line.append(" since the last report");
            lines.incrementAndGet();
            LOGGER.log(Level.WARNING, line.toString());
        }
    }

    long count(final FallbackCause cause)
    {
        return counts.get(cause.ordinal());
    }

    long total()
    {
        long total = 0;
        for (int i = 0; i < CAUSES.length; i++)
        {
            total += counts.get(i);
        }
        return total;
    }

    long lines()
    {
        return lines.get();
    }
}
