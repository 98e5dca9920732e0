package dev.cellrate.window;

import dev.cellrate.Decision;
import dev.cellrate.Result;
import dev.cellrate.TestCells;
import dev.cellrate.testing.InterposingBuffer;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two callers in one window: when another caller's admission lands between our read and our CAS, we
 * decide again on its count. With room left we are admitted too; without, we are rejected and the window
 * never holds more than its limit. The other caller is driven deterministically through the public API,
 * just before our first CAS.
 */
class WindowRaceSpecTest
{
    private static final long WINDOW_NS = 1_000;

    @Test
    void fixedWindowLoserIsAdmittedWhenRoomIsLeft()
    {
        final InterposingBuffer buffer = TestCells.buffer(1);
        final FixedWindowLimiter limiter =
            new FixedWindowLimiter(2, WINDOW_NS, TestCells.interposing(buffer, 1), 0, SystemNanoClock.INSTANCE);
        buffer.beforeNextCas(() -> assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 100)));
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 100));
        assertEquals(3, buffer.casCount(), "ours lost, theirs, our retry");
        assertTrue(limiter.tryAcquire(1, 100) > 0, "the window holds its limit, two");

        final InterposingBuffer b2 = TestCells.buffer(1);
        final FixedWindowLimiter l2 =
            new FixedWindowLimiter(2, WINDOW_NS, TestCells.interposing(b2, 1), 0, SystemNanoClock.INSTANCE);
        final Decision decision = new Decision();
        b2.beforeNextCas(() -> assertEquals(Result.ADMITTED, l2.tryAcquire(1, 100)));
        assertEquals(Result.ADMITTED, l2.tryAcquire(1, 100, decision));
        assertEquals(0, decision.remaining(), "both admissions counted");
        assertEquals(900, decision.resetAfterNs());
    }

    @Test
    void fixedWindowLoserIsRejectedWhenTheWinnerTookTheLastPermit()
    {
        final InterposingBuffer buffer = TestCells.buffer(1);
        final FixedWindowLimiter limiter =
            new FixedWindowLimiter(1, WINDOW_NS, TestCells.interposing(buffer, 1), 0, SystemNanoClock.INSTANCE);
        buffer.beforeNextCas(() -> assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 100)));
        assertEquals(900, limiter.tryAcquire(1, 100), "retry at the next window");

        final InterposingBuffer b2 = TestCells.buffer(1);
        final FixedWindowLimiter l2 =
            new FixedWindowLimiter(1, WINDOW_NS, TestCells.interposing(b2, 1), 0, SystemNanoClock.INSTANCE);
        final Decision decision = new Decision();
        b2.beforeNextCas(() -> assertEquals(Result.ADMITTED, l2.tryAcquire(1, 100)));
        assertEquals(900, l2.tryAcquire(1, 100, decision));
        assertEquals(0, decision.remaining());
        assertEquals(900, decision.resetAfterNs());
    }

    @Test
    void slidingCounterLoserIsAdmittedWhenRoomIsLeft()
    {
        final InterposingBuffer buffer = TestCells.buffer(1);
        final SlidingCounterLimiter limiter =
            new SlidingCounterLimiter(2, WINDOW_NS, TestCells.interposing(buffer, 1), 0, SystemNanoClock.INSTANCE);
        buffer.beforeNextCas(() -> assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 100)));
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 100));
        assertEquals(3, buffer.casCount());
        assertTrue(limiter.tryAcquire(1, 100) > 0, "the window holds its limit, two");

        final InterposingBuffer b2 = TestCells.buffer(1);
        final SlidingCounterLimiter l2 =
            new SlidingCounterLimiter(2, WINDOW_NS, TestCells.interposing(b2, 1), 0, SystemNanoClock.INSTANCE);
        final Decision decision = new Decision();
        b2.beforeNextCas(() -> assertEquals(Result.ADMITTED, l2.tryAcquire(1, 100)));
        assertEquals(Result.ADMITTED, l2.tryAcquire(1, 100, decision));
        assertEquals(0, decision.remaining(), "both admissions counted");
        assertTrue(l2.tryAcquire(1, 100) > 0);
    }

    @Test
    void slidingCounterLoserIsRejectedWhenTheWinnerTookTheLastPermit()
    {
        final InterposingBuffer buffer = TestCells.buffer(1);
        final SlidingCounterLimiter limiter =
            new SlidingCounterLimiter(1, WINDOW_NS, TestCells.interposing(buffer, 1), 0, SystemNanoClock.INSTANCE);
        buffer.beforeNextCas(() -> assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 100)));
        final long code = limiter.tryAcquire(1, 100);
        assertTrue(code > 0, Result.name(code));

        final InterposingBuffer b2 = TestCells.buffer(1);
        final SlidingCounterLimiter l2 =
            new SlidingCounterLimiter(1, WINDOW_NS, TestCells.interposing(b2, 1), 0, SystemNanoClock.INSTANCE);
        final Decision decision = new Decision();
        b2.beforeNextCas(() -> assertEquals(Result.ADMITTED, l2.tryAcquire(1, 100)));
        assertEquals(code, l2.tryAcquire(1, 100, decision));
        assertEquals(0, decision.remaining());
    }
}
