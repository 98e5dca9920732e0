package com.google.common.util.concurrent;

import java.util.concurrent.TimeUnit;

/**
 * Test-only door into Guava's package-private {@code RateLimiter} factories that take a
 * {@code SleepingStopwatch}, so the real Guava limiter can be driven by a fake clock.
 */
public final class GuavaPeer
{
    private GuavaPeer()
    {
    }

    /**
     * A stopwatch whose time the test sets; sleeping only records the requested wait.
     */
    public static final class FakeStopwatch extends RateLimiter.SleepingStopwatch
    {
        private long nowMicros;
        private long sleptMicros;

        public FakeStopwatch(final long nowMicros)
        {
            this.nowMicros = nowMicros;
        }

        public void setMicros(final long nowMicros)
        {
            this.nowMicros = nowMicros;
        }

        public long sleptMicros()
        {
            return sleptMicros;
        }

        @Override
        protected long readMicros()
        {
            return nowMicros;
        }

        @Override
        protected void sleepMicrosUninterruptibly(final long micros)
        {
            sleptMicros += micros;
        }
    }

    /**
     * @param permitsPerSecond the rate.
     * @param stopwatch        the fake clock (creation time is its current reading).
     * @return {@code RateLimiter.create(permitsPerSecond)} on the fake clock (SmoothBursty).
     */
    public static RateLimiter bursty(final double permitsPerSecond, final FakeStopwatch stopwatch)
    {
        return RateLimiter.create(permitsPerSecond, stopwatch);
    }

    /**
     * @param permitsPerSecond the stable rate.
     * @param warmupPeriod     the warm-up period.
     * @param unit             its unit.
     * @param coldFactor       the cold factor (3 in the public API).
     * @param stopwatch        the fake clock.
     * @return {@code RateLimiter.create(permitsPerSecond, warmupPeriod, unit)} on the fake clock
     * (SmoothWarmingUp).
     */
    public static RateLimiter warmingUp(
        final double permitsPerSecond,
        final long warmupPeriod,
        final TimeUnit unit,
        final double coldFactor,
        final FakeStopwatch stopwatch)
    {
        return RateLimiter.create(permitsPerSecond, warmupPeriod, unit, coldFactor, stopwatch);
    }
}
