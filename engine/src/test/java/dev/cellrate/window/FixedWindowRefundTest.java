package dev.cellrate.window;

import dev.cellrate.Result;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link FixedWindowLimiter#refund(long, long)}: the current window's count goes down, never below 0, and a
 * refund in another window changes nothing.
 */
final class FixedWindowRefundTest
{
    private static final long W = 1_000_000_000L;

    @Test
    void aRefundGivesBackTheCurrentWindowsPermitsNeverBelowZero()
    {
        final FixedWindowLimiter limiter = new FixedWindowLimiter(5, W);
        final long t = 7 * W + 10;
        assertEquals(Result.ADMITTED, limiter.tryAcquire(4, t));
        assertEquals(3, limiter.refund(3, t + 1));
        assertEquals(1, limiter.count());
        assertEquals(Result.ADMITTED, limiter.tryAcquire(4, t + 2), "4 fit again after the refund");
        assertEquals(5, limiter.count());
        assertEquals(5, limiter.refund(100, t + 3), "never below 0");
        assertEquals(0, limiter.count());
        assertEquals(0, limiter.refund(1, t + 4));
        assertEquals(0, limiter.refund(0, t + 4));
        assertEquals(0, limiter.refund(-3, t + 4));
        assertEquals(Result.ADMITTED, limiter.tryAcquire(5, t + 5));
        assertEquals(true, limiter.tryAcquire(1, t + 5) > 0, "the window is full again");
    }

    @Test
    void aRefundInAnotherWindowChangesNothing()
    {
        final FixedWindowLimiter limiter = new FixedWindowLimiter(5, W);
        final long t = 7 * W + 10;
        assertEquals(Result.ADMITTED, limiter.tryAcquire(5, t));
        assertEquals(0, limiter.refund(5, t + W), "the next window: the past window's permits are gone");
        assertEquals(0, limiter.refund(5, t - W), "an earlier window (a clock gone back)");
        assertEquals(5, limiter.count());
        assertEquals(7, limiter.windowIndex());
    }
}
