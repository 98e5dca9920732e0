package dev.cellrate;

import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The keyed limiter under hostile input: eviction never trusts one caller's time, a request decided
 * NEVER claims nothing, a new key at {@code Long.MIN_VALUE} starts full, builder defaults and validation.
 */
class KeyedHardeningTest
{
    static final long T_NS = 1_000;
    static final Limit BURST_10 = Limit.ofGcra(T_NS, 9 * T_NS);
    static final long NOW_NS = 1_000_000;
    static final long KEY_A = 7;

    private static KeyedRateLimiter limiter(final CachedNanoClock clock)
    {
        return KeyedRateLimiter.builder(BURST_10).shardCount(1).slotCount(4).probeBound(4).idleGraceNs(10)
            .seed(0x5eed).clock(clock).build();
    }

    private static CachedNanoClock clockAt(final long nowNs)
    {
        final CachedNanoClock clock = new CachedNanoClock();
        clock.update(nowNs);
        return clock;
    }

    @Test
    void aNewKeyAtLongMaxIsNeverAndEvictsNothing()
    {
        final KeyedRateLimiter limiter = limiter(clockAt(NOW_NS));
        for (int i = 0; i < 10; i++)
        {
            assertEquals(Result.ADMITTED, limiter.tryAcquire(KEY_A, 1, NOW_NS));
        }
        for (long key = 100; key < 110; key++)
        {
            assertEquals(Result.NEVER, limiter.tryAcquire(key, 1, Long.MAX_VALUE));
        }
        assertEquals(0, limiter.evictions());
        assertEquals(1, limiter.liveKeys(), "nothing claimed for a NEVER");
        assertTrue(limiter.tryAcquire(KEY_A, 1, NOW_NS) > 0, "A took its burst of 10 at t: no 11th");
    }

    @Test
    void aFarAheadTimestampEvictsNoActiveKey()
    {
        final KeyedRateLimiter limiter = limiter(clockAt(NOW_NS));
        for (int i = 0; i < 10; i++)
        {
            assertEquals(Result.ADMITTED, limiter.tryAcquire(KEY_A, 1, NOW_NS));
        }
        final long aheadNs = NOW_NS + 3_600_000_000_000L;
        for (long key = 100; key < 110; key++)
        {
            limiter.tryAcquire(key, 1, aheadNs);
        }
        limiter.sweep(aheadNs, 100);
        assertTrue(limiter.tryAcquire(KEY_A, 1, NOW_NS) > 0, "A, active at t, was evicted by a far-ahead time");
    }

    @Test
    void evictionFollowsTheClockOnceItGetsThere()
    {
        final CachedNanoClock clock = clockAt(NOW_NS);
        final KeyedRateLimiter limiter = limiter(clock);
        for (long key = 100; key < 104; key++)
        {
            assertEquals(Result.ADMITTED, limiter.tryAcquire(key, 1, NOW_NS));
        }
        final long laterNs = NOW_NS + 1_000 * T_NS;
        assertEquals(Result.TABLE_FULL, limiter.tryAcquire(KEY_A, 1, laterNs), "the clock says they are active");
        clock.update(laterNs);
        assertEquals(Result.ADMITTED, limiter.tryAcquire(KEY_A, 1, laterNs), "idle by the clock too");
    }

    @Test
    void aNewKeyAtLongMinStartsFull()
    {
        final KeyedRateLimiter keyed = limiter(clockAt(NOW_NS));
        assertEquals(Result.ADMITTED, keyed.tryAcquire(KEY_A, 10, Long.MIN_VALUE));

        final KeyedRateLimiter keyed2 = limiter(clockAt(NOW_NS));
        final RateLimiter single = new RateLimiter(BURST_10);
        final long[] times = {Long.MIN_VALUE, Long.MIN_VALUE, Long.MIN_VALUE + 1, Long.MIN_VALUE + T_NS,
            Long.MIN_VALUE + T_NS, Long.MIN_VALUE + 5 * T_NS};
        final long[] costs = {1, 9, 1, 1, 1, 3};
        for (int i = 0; i < times.length; i++)
        {
            assertEquals(single.tryAcquire(costs[i], times[i]), keyed2.tryAcquire(KEY_A, costs[i], times[i]),
                "request " + i);
        }
    }

    @Test
    void expectedKeysPicksAFittingShardCount()
    {
        final KeyedRateLimiter small = KeyedRateLimiter.builder(BURST_10).expectedKeys(10).seed(1).build();
        assertTrue(small.table().shardCount() <= small.table().slotCount());
        for (long key = 0; key < 10; key++)
        {
            assertEquals(Result.ADMITTED, small.tryAcquire(key, 1, NOW_NS), "key " + key);
        }
        assertEquals(64, KeyedRateLimiter.builder(BURST_10).build().table().shardCount(), "default unchanged");
    }

    @Test
    void aNegativeProbeBoundIsRejectedWithItsField()
    {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> KeyedRateLimiter.builder(BURST_10).probeBound(-2).build());
        assertTrue(e.getMessage().contains("probeBound") && e.getMessage().contains("[1, "), e.getMessage());
        assertNotEquals(null, KeyedRateLimiter.builder(BURST_10).probeBound(1).build());
    }

    @Test
    void aBuiltShaperEvictsByTheBuildersClock()
    {
        final CachedNanoClock clock = clockAt(NOW_NS);
        assertEquals(clock, KeyedRateLimiter.builder(BURST_10).slotCount(64).clock(clock)
            .buildShaper(dev.cellrate.ShaperMode.delay()).table().evictionClock());
        assertEquals(clock, limiter(clock).table().evictionClock());
    }
}
