package dev.cellrate.warmup;

import dev.cellrate.Decision;
import dev.cellrate.Result;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Edges of the warm-up limiter a user can see: the clock is required, an initial fill of exactly
 * {@code floor(W / S)} permits stores that many (not a full store), and a wait that ends exactly at
 * {@code Long.MAX_VALUE} is still admitted.
 */
class WarmupSpecTest
{
    @Test
    void theClockIsRequired()
    {
        assertEquals("clock must not be null", assertThrows(IllegalArgumentException.class,
            () -> new WarmingUpRateLimiter(3, 10, 0, null, 0)).getMessage());
    }

    @Test
    void anInitialFillOfFloorWOverSPermitsStoresExactlyThatMany()
    {
        // S = 3 ns, W = 10 ns: 3 permits store 9 ns (a2 = 8 -> extra 3); 4 permits fill the store (10 ns -> extra 5)
        final WarmingUpRateLimiter three = new WarmingUpRateLimiter(3, 10, 0, SystemNanoClock.INSTANCE, 3);
        assertEquals(Result.ADMITTED, three.tryAcquire(1, 0));
        assertEquals(Result.ADMITTED, three.tryAcquire(1, 6), "wait 3 + 3: free again at 6");

        final WarmingUpRateLimiter full = new WarmingUpRateLimiter(3, 10, 0, SystemNanoClock.INSTANCE, 4);
        assertEquals(Result.ADMITTED, full.tryAcquire(1, 0));
        assertEquals(2, full.tryAcquire(1, 6), "wait 3 + 5: free again at 8");
    }

    @Test
    void aWaitEndingExactlyAtTheEndOfTimeIsAdmitted()
    {
        final WarmingUpRateLimiter atEnd = new WarmingUpRateLimiter(100, 0, 0, SystemNanoClock.INSTANCE, 0);
        assertEquals(Result.ADMITTED, atEnd.tryAcquire(1, Long.MAX_VALUE - 100));
        assertEquals(100, atEnd.tryAcquire(1, Long.MAX_VALUE - 100));

        final WarmingUpRateLimiter past = new WarmingUpRateLimiter(100, 0, 0, SystemNanoClock.INSTANCE, 0);
        assertEquals(Result.NEVER, past.tryAcquire(1, Long.MAX_VALUE - 99));
    }

    @Test
    void aHugeInitialFillIsAFullStoreNotAnOverflow()
    {
        final long s = 1L << 31;
        final WarmingUpRateLimiter one = new WarmingUpRateLimiter(s, s, 0, SystemNanoClock.INSTANCE, 1);
        final WarmingUpRateLimiter huge = new WarmingUpRateLimiter(s, s, 0, SystemNanoClock.INSTANCE, 1L << 62);
        for (final long t : new long[] {0, s, s + s / 2, 3 * s})
        {
            assertEquals(one.tryAcquire(1, t), huge.tryAcquire(1, t), "at " + t);
        }
        final WarmingUpRateLimiter cold = new WarmingUpRateLimiter(s, s, 0, SystemNanoClock.INSTANCE, 1L << 62);
        assertEquals(Result.ADMITTED, cold.tryAcquire(1, 0));
        assertEquals(1L << 30, cold.tryAcquire(1, s), "a full (cold) store: the first permit costs S + W/2");
    }

    @Test
    void nothingIsFreeBeforeTheCreationTime()
    {
        final WarmingUpRateLimiter limiter = new WarmingUpRateLimiter(100, 0, 5_000, SystemNanoClock.INSTANCE, 0);
        assertEquals(5_000, limiter.nextFreeNs());
        assertEquals(1_000, limiter.tryAcquire(1, 4_000));
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 5_000));
    }

    @Test
    void theDecisionSaysWhenTheLimiterIsFreeAgain()
    {
        final WarmingUpRateLimiter limiter = new WarmingUpRateLimiter(100, 0, 0, SystemNanoClock.INSTANCE, 0);
        final Decision decision = new Decision();
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 1_000, decision));
        assertEquals(0, decision.remaining());
        assertEquals(100, decision.resetAfterNs());
        assertEquals(limiter.maxPermits(), decision.limit());
        assertEquals(50, limiter.tryAcquire(1, 1_050, decision));
        assertEquals(50, decision.retryAfterNs());
        assertEquals(50, decision.resetAfterNs());
        assertEquals(Result.NEVER, limiter.tryAcquire(Long.MAX_VALUE, 5_000, decision), "a cost too large for S");
        assertEquals(1, decision.remaining(), "free: one permit would conform");
        assertEquals(0, decision.resetAfterNs());

        final WarmingUpRateLimiter atEnd = new WarmingUpRateLimiter(100, 0, 0, SystemNanoClock.INSTANCE, 0);
        assertEquals(Result.ADMITTED, atEnd.tryAcquire(1, Long.MAX_VALUE - 100));
        assertEquals(Long.MAX_VALUE, atEnd.tryAcquire(1, -10, decision), "free only past the end of time");
        assertEquals(Long.MAX_VALUE, decision.resetAfterNs());
    }

    @Test
    void guavaStyleFactoryAndClockForms()
    {
        final NanoClock clock = () -> 0L;
        assertEquals("unit must not be null", assertThrows(IllegalArgumentException.class,
            () -> WarmingUpRateLimiter.guava(1_000, 1, null, 0, clock)).getMessage());
        final WarmingUpRateLimiter limiter = WarmingUpRateLimiter.guava(1_000, 0, TimeUnit.SECONDS, 0, clock);
        assertSame(clock, limiter.clock());
        assertEquals(0, limiter.warmupNs());
        assertEquals(2_000_000_000L, WarmingUpRateLimiter.guava(1_000, 2, TimeUnit.SECONDS, 0, clock).warmupNs());
        assertEquals(3_000_000_000L, WarmingUpRateLimiter.guava(1_000, 3, TimeUnit.SECONDS).warmupNs(),
            "the system-clock factory");
        limiter.setRate(10); // at the clock's time, 0
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 0));
        assertEquals(100_000_000L, limiter.tryAcquire(1, 0), "10 per second from now on");
    }
}
