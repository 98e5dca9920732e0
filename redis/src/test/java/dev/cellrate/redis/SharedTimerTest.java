package dev.cellrate.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellrate.Limit;
import dev.cellrate.Result;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Every limiter's timeouts run on one shared daemon timer: limiters that are never closed leave no thread behind.
 */
class SharedTimerTest
{
    @Test
    void twoHundredLimitersWithoutCloseAddAtMostOneThread() throws Exception
    {
        try (RedisFixture redis = new RedisFixture())
        {
            final Limit limit = Limit.perSecond(1000, 10);
            // the fixture's own client threads first, so that only the limiters' threads are counted
            final RedisRateLimiter first = RedisRateLimiter.builder(redis.connection, limit, FailPolicy.CLOSED)
                .timeoutNs(TimeUnit.SECONDS.toNanos(5)).build();
            first.tryAcquire("warm", 1);
            final int before = ManagementFactory.getThreadMXBean().getThreadCount();
            final List<RedisRateLimiter> limiters = new ArrayList<>();
            final CountDownLatch decided = new CountDownLatch(200);
            for (int i = 0; i < 200; i++)
            {
                final RedisRateLimiter limiter = RedisRateLimiter.builder(redis.connection, limit, FailPolicy.CLOSED)
                    .prefix("timer:" + i + ":").timeoutNs(TimeUnit.SECONDS.toNanos(5)).build();
                limiter.tryAcquireAsync("k", 1, null, code ->
                {
                    if (Result.ADMITTED == code)
                    {
                        decided.countDown();
                    }
                });
                limiters.add(limiter); // never closed
            }
            assertTrue(decided.await(30, TimeUnit.SECONDS), "every async decision admitted");
            final int after = ManagementFactory.getThreadMXBean().getThreadCount();
            assertTrue(after - before <= 1, "threads added by 200 limiters: " + (after - before));
            assertEquals(200, limiters.size());
        }
    }
}
