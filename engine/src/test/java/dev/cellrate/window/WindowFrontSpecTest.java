package dev.cellrate.window;

import dev.cellrate.layout.CellArray;
import dev.cellrate.Decision;
import dev.cellrate.Result;
import org.agrona.concurrent.NanoClock;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a window limiter reports about itself, what it refuses at construction, and its log of admissions. */
class WindowFrontSpecTest
{
    private static final NanoClock CLOCK = () -> 0;

    @Test
    void fixedWindowDescribesItselfAndRefusesAMissingPart()
    {
        final CellArray cells = CellArray.allocate(2);
        final FixedWindowLimiter limiter = new FixedWindowLimiter(5, 1_000, cells, 1, CLOCK);
        assertEquals(5, limiter.limit());
        assertEquals(1_000, limiter.windowNs());
        assertEquals(FixedWindow.countBits(5), limiter.countBits());
        assertSame(CLOCK, limiter.clock());
        assertEquals(Result.ADMITTED, limiter.tryAcquire(2, 1_500));
        assertEquals(FixedWindow.pack(1, 2, limiter.countBits()), limiter.word(), "window 1, count 2");
        assertEquals(CellArray.FRESH_TAT_NS, cells.buffer().getLongVolatile(CellArray.tatOffset(0)), "cell 0 untouched");
        assertThrows(IllegalArgumentException.class, () -> new FixedWindowLimiter(5, 1_000, null, 0, CLOCK));
        assertThrows(IllegalArgumentException.class, () -> new FixedWindowLimiter(5, 1_000, cells, 0, null));
        assertThrows(IllegalArgumentException.class, () -> new FixedWindowLimiter(5, 1_000, cells, 2, CLOCK));
    }

    @Test
    void fixedWindowResetIsTheEndOfTheWindowOnlyOnceSomethingIsCounted()
    {
        final FixedWindowLimiter limiter = new FixedWindowLimiter(2, 1_000, CellArray.allocate(1), 0, CLOCK);
        final Decision decision = new Decision();
        assertEquals(Result.NEVER, limiter.tryAcquire(3, 100, decision));
        assertEquals(0, decision.resetAfterNs(), "an empty window has nothing to reset");
        assertEquals(2, decision.remaining());
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 100, decision));
        assertEquals(900, decision.resetAfterNs());
        assertEquals(1, decision.remaining());
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 999, decision));
        assertEquals(1, decision.resetAfterNs(), "one ns before the window ends");
        assertEquals(1, limiter.tryAcquire(1, 999, decision));
        assertEquals(0, decision.remaining());
    }

    @Test
    void slidingCounterDescribesItselfAndRefusesAMissingPart()
    {
        final CellArray cells = CellArray.allocate(2);
        final SlidingCounterLimiter limiter = new SlidingCounterLimiter(5, 1_000, cells, 1, CLOCK);
        assertEquals(5, limiter.limit());
        assertEquals(1_000, limiter.windowNs());
        assertSame(CLOCK, limiter.clock());
        assertEquals(Result.ADMITTED, limiter.tryAcquire(2, 1_500));
        assertEquals(1, SlidingCounter.windowIndexOf(limiter.word(), limiter.countBits()));
        assertEquals(2, SlidingCounter.currOf(limiter.word(), limiter.countBits()));
        assertThrows(IllegalArgumentException.class, () -> new SlidingCounterLimiter(5, 1_000, null, 0, CLOCK));
        assertThrows(IllegalArgumentException.class, () -> new SlidingCounterLimiter(5, 1_000, cells, 0, null));
        assertThrows(IllegalArgumentException.class, () -> new SlidingCounterLimiter(5, 1_000, cells, 2, CLOCK));
    }

    @Test
    void slidingCounterRejectsImpossibleCostsWithADecision()
    {
        final SlidingCounterLimiter limiter = new SlidingCounterLimiter(4, 1_000, CellArray.allocate(1), 0, CLOCK);
        final Decision decision = new Decision();
        assertEquals(Result.NEVER, limiter.tryAcquire(0, 100, decision));
        assertEquals(Result.NEVER, limiter.tryAcquire(5, 100, decision));
        assertEquals(4, decision.remaining());
        assertEquals(0, decision.resetAfterNs());
        assertEquals(Result.ADMITTED, limiter.tryAcquire(4, 100, decision));
        assertEquals(0, decision.remaining());
        assertEquals(1_900, decision.resetAfterNs(), "this window's rest plus the next whole window");
        assertEquals(Result.NEVER, limiter.tryAcquire(5, 100));
        assertEquals(Result.NEVER, limiter.tryAcquire(0, 100));
    }

    @Test
    void slidingLogKeepsTheTimesOfItsAdmissions()
    {
        final SlidingLogLimiter limiter = new SlidingLogLimiter(3, 1_000, CLOCK);
        assertEquals(3, limiter.limit());
        assertEquals(1_000, limiter.windowNs());
        assertSame(CLOCK, limiter.clock());
        assertEquals(0, limiter.admissions());
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 10));
        assertEquals(Result.ADMITTED, limiter.tryAcquire(2, 20));
        assertEquals(3, limiter.admissions());
        assertEquals(10, limiter.admissionTimeNs(0));
        assertEquals(20, limiter.admissionTimeNs(1));
        assertEquals(20, limiter.admissionTimeNs(2));
        assertEquals(990, limiter.tryAcquire(1, 20), "the oldest admission leaves the window at 1010");
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 1_010));
        assertEquals(1_010, limiter.admissionTimeNs(3), "the ring reuses the oldest place");
        assertThrows(IllegalArgumentException.class, () -> new SlidingLogLimiter(3, 1_000, null));
    }

    @Test
    void slidingLogDecisionCountsWhatIsStillInTheWindow()
    {
        final SlidingLogLimiter limiter = new SlidingLogLimiter(2, 1_000, CLOCK);
        final Decision decision = new Decision();
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 0, decision));
        assertEquals(1, decision.remaining());
        assertEquals(1_000, decision.resetAfterNs());
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 500, decision));
        assertEquals(0, decision.remaining());
        assertEquals(1_000, decision.resetAfterNs(), "until the newest admission leaves");
        final long code = limiter.tryAcquire(1, 999, decision);
        assertEquals(1, code, "the oldest leaves at 1000");
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 1_000, decision), "expired exactly at the window's end");
        assertEquals(0, decision.remaining());
        assertTrue(limiter.tryAcquire(2, 1_000) > 0);
        assertEquals(Result.NEVER, limiter.tryAcquire(3, 1_000, decision));
    }

    @Test
    void aSlidingCounterAskedAboutAnEarlierWindowAnswersFromTheLaterState()
    {
        // The clock went back a window: the state is in window 1, the request in window 0. The estimate is
        // read at the start of window 1 (never earlier), so the answer is never more permissive than at 1000.
        final SlidingCounterLimiter limiter = new SlidingCounterLimiter(1, 1_000, CellArray.allocate(1), 0, CLOCK);
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 1_500));
        assertEquals(1_500, limiter.tryAcquire(1, 1_500), "window 1's permit weighs on all of window 2");
        assertEquals(2_500, limiter.tryAcquire(1, 500), "the same retry time, 3000, from an earlier clock");
        final Decision decision = new Decision();
        assertEquals(2_500, limiter.tryAcquire(1, 500, decision));
        assertEquals(0, decision.remaining());
        assertEquals(2_500, decision.resetAfterNs(), "until the estimate is 0: the start of window 3");
    }
}
