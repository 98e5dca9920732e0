package dev.cellrate;

import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A lag beyond the {@code long} range is clamped to {@link Long#MAX_VALUE}, as documented,
 * not reported as {@code Long.MAX_VALUE - tau}. Seen to fail on the unfixed code (it answered
 * {@code Long.MAX_VALUE - 9_000_000}).
 */
class PayLaterClampTest
{
    @Test
    void retryAfterBeyondTheLongRangeIsClampedToLongMax()
    {
        final Limit limit = Limit.ofGcra(1_000_000, 9_000_000);
        final PayLaterRateLimiter limiter =
            PayLaterRateLimiter.atTat(limit, 10, Long.MAX_VALUE - 5, SystemNanoClock.INSTANCE);
        assertEquals(Long.MAX_VALUE, limiter.tryAcquire(1, Long.MIN_VALUE + 5));
        // A lag of exactly 2^63 - 1, and one of 2^63 (wrapped), whose excess is still in range: exact.
        assertEquals(Long.MAX_VALUE - 9_000_000, limiter.tryAcquire(1, -5));
        assertEquals(Long.MAX_VALUE - 9_000_000 + 1, limiter.tryAcquire(1, -6));
        assertEquals(Long.MAX_VALUE - 5 - 9_000_000, limiter.tryAcquire(1, 0));
        // A true lag of 2^63 + 2^62 (wrapped) minus tau: still beyond the range.
        assertEquals(Long.MAX_VALUE, limiter.tryAcquire(1, Long.MIN_VALUE + (1L << 62)));
    }
}
