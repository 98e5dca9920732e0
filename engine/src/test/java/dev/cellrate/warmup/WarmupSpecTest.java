package dev.cellrate.warmup;

import dev.cellrate.Result;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
}
