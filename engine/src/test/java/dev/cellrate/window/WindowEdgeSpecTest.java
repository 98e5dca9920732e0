package dev.cellrate.window;

import dev.cellrate.layout.CellArray;
import dev.cellrate.Decision;
import dev.cellrate.Result;
import org.agrona.concurrent.NanoClock;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the window limiters answer at their edges: the diagnostics, a decision after an idle window, the last
 * windows before {@link Long#MAX_VALUE}, a clock going back, the sliding counter's estimate carried by the
 * previous window alone, and the sliding log's count of expired admissions (against a plain list of times).
 */
class WindowEdgeSpecTest
{
    private static final NanoClock CLOCK = () -> 0;
    private static final long MAX = Long.MAX_VALUE;

    private static FixedWindowLimiter fixed(final long limit, final long windowNs)
    {
        return new FixedWindowLimiter(limit, windowNs, CellArray.allocate(1), 0, CLOCK);
    }

    private static SlidingCounterLimiter counter(final long limit, final long windowNs)
    {
        return new SlidingCounterLimiter(limit, windowNs, CellArray.allocate(1), 0, CLOCK);
    }

    @Test
    void fixedWindowReportsTheWindowAndCountItHolds()
    {
        final FixedWindowLimiter limiter = fixed(3, 1_000);
        assertEquals(Result.ADMITTED, limiter.tryAcquire(2, 5_500));
        assertEquals(5, limiter.windowIndex());
        assertEquals(2, limiter.count());
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 7_000));
        assertEquals(7, limiter.windowIndex());
        assertEquals(1, limiter.count());
    }

    @Test
    void fixedWindowDecisionOnAnImpossibleCostAfterAnIdleWindowShowsAnEmptyWindow()
    {
        final FixedWindowLimiter limiter = fixed(3, 1_000);
        assertEquals(Result.ADMITTED, limiter.tryAcquire(3, 500), "window 0 is full");
        final Decision decision = new Decision();
        assertEquals(Result.NEVER, limiter.tryAcquire(4, 1_500, decision));
        assertEquals(3, decision.remaining(), "window 1 has nothing counted yet");
        assertEquals(0, decision.resetAfterNs());
        assertEquals(Result.NEVER, limiter.tryAcquire(4, 700, decision), "the clock went back into window 0");
        assertEquals(0, decision.remaining());
        assertEquals(300, decision.resetAfterNs());
    }

    @Test
    void fixedWindowInTheLastWindowsOfTime()
    {
        final long windowNs = 1_000;
        final long lastIndex = MAX / windowNs;
        final FixedWindowLimiter last = fixed(2, windowNs);
        final Decision decision = new Decision();
        assertEquals(Result.ADMITTED, last.tryAcquire(1, MAX - 1, decision));
        assertEquals(MAX, decision.resetAfterNs(), "the last window never ends within the long range");
        assertEquals(Result.NEVER, last.tryAcquire(2, MAX - 1), "no later window to retry in");

        final FixedWindowLimiter beforeLast = fixed(2, windowNs);
        final long nowNs = (lastIndex - 1) * windowNs + 10;
        assertEquals(Result.ADMITTED, beforeLast.tryAcquire(2, nowNs));
        assertEquals(990, beforeLast.tryAcquire(1, nowNs), "the last window starts within the long range");
        assertEquals(Result.ADMITTED, beforeLast.tryAcquire(2, lastIndex * windowNs));
    }

    @Test
    void slidingCounterReportsItsWindowAndBothCounts()
    {
        final SlidingCounterLimiter limiter = counter(5, 1_000);
        assertEquals(Result.ADMITTED, limiter.tryAcquire(2, 500));
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 1_500));
        assertEquals(1, limiter.windowIndex());
        assertEquals(2, limiter.previousCount());
        assertEquals(1, limiter.currentCount());
    }

    @Test
    void slidingCounterRemainingWeighsThePreviousWindowByWhatIsLeftOfIt()
    {
        final SlidingCounterLimiter limiter = counter(4, 1_000);
        assertEquals(Result.ADMITTED, limiter.tryAcquire(4, 500));
        final Decision decision = new Decision();
        // At 1500 the previous window weighs 4 * 500 / 1000 = 2: one admitted, one more would fit.
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 1_500, decision));
        assertEquals(1, decision.remaining());
        // The clock goes back to window 0: evaluated at the start of window 1, where 4 + 1 > 4: nothing left,
        // and the request waits until prev's weight is 2 (at 1500), i.e. 1000 from 500.
        assertEquals(1_000, limiter.tryAcquire(1, 500, decision));
        assertEquals(0, decision.remaining(), "an estimate above the limit leaves 0, not less");
        assertEquals(2_500, decision.resetAfterNs(), "until the end of window 2");
    }

    @Test
    void slidingCounterCarriedByThePreviousWindowAloneResetsWhenThatWindowHasSlidOut()
    {
        final SlidingCounterLimiter limiter = counter(2, 1_000);
        assertEquals(Result.ADMITTED, limiter.tryAcquire(2, 999));
        final Decision decision = new Decision();
        // At 1100 the previous window weighs 2 * 900 / 1000 = 1.8: one more does not fit until 1500.
        assertEquals(400, limiter.tryAcquire(1, 1_100, decision));
        assertEquals(0, decision.remaining());
        assertEquals(900, decision.resetAfterNs(), "the previous window's weight is 0 at 2000");
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 1_500));
    }

    @Test
    void slidingCounterWithAWindowOfTheWholeRangeSaturates()
    {
        final SlidingCounterLimiter limiter = counter(1, MAX);
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 0));
        final Decision decision = new Decision();
        // The next admission could come at the start of window 2, 2 * MAX: beyond the long range.
        assertEquals(Result.NEVER, limiter.tryAcquire(1, 0, decision), "not a finite wait from 0");
        assertEquals(MAX, decision.resetAfterNs(), "saturated");
        assertEquals(Result.NEVER, limiter.tryAcquire(1, 1, decision));
        assertEquals(MAX, decision.resetAfterNs());
        assertEquals(0, decision.remaining());
    }

    @Test
    void slidingLogRemainingCountsTheAdmissionsThatHaveLeftTheWindow()
    {
        final SlidingLogLimiter limiter = new SlidingLogLimiter(3, 100, CLOCK);
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 0));
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 50));
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 60));
        final Decision decision = new Decision();
        assertEquals(40, limiter.tryAcquire(3, 120, decision), "the third oldest (60) leaves at 160");
        assertEquals(1, decision.remaining(), "only the admission at 0 has left");
        assertEquals(40, decision.resetAfterNs(), "until the newest (60) leaves");
        assertEquals(Result.NEVER, limiter.tryAcquire(4, 155, decision));
        assertEquals(2, decision.remaining(), "0 and 50 have left");
        assertEquals(Result.NEVER, limiter.tryAcquire(4, 10_000, decision));
        assertEquals(3, decision.remaining(), "all have left");
        assertEquals(0, decision.resetAfterNs(), "nothing left to reset");
    }

    @Test
    void slidingLogDecisionMatchesAListOfAdmissionTimes()
    {
        final Random random = new Random(15);
        final Decision decision = new Decision();
        for (final int limit : new int[]{1, 2, 3, 5, 8, 16})
        {
            final long windowNs = 1 + random.nextInt(200);
            final SlidingLogLimiter limiter = new SlidingLogLimiter(limit, windowNs, CLOCK);
            final List<Long> admitted = new ArrayList<>();
            long nowNs = 1_000;
            for (int step = 0; step < 2_000; step++)
            {
                nowNs += random.nextInt(10) == 0 ? -random.nextInt(300) : random.nextInt((int)windowNs / 2 + 2);
                final long permits = 1 + random.nextInt(limit + 1);
                final long newestNs = admitted.isEmpty() ? Long.MIN_VALUE : admitted.get(admitted.size() - 1);
                final long decisionNs = Math.max(nowNs, newestNs);
                final long code = limiter.tryAcquire(permits, nowNs, decision);
                final int oldest = admitted.size() - limit + (int)permits - 1;
                final boolean fits = permits <= limit && (oldest < 0 || admitted.get(oldest) <= decisionNs - windowNs);
                final String where = "limit " + limit + ", step " + step + ", t " + nowNs;
                assertEquals(fits, Result.ADMITTED == code, where);
                if (fits)
                {
                    for (int i = 0; i < permits; i++)
                    {
                        admitted.add(decisionNs);
                    }
                }
                long free = Math.max(0, limit - admitted.size());
                for (int i = Math.max(0, admitted.size() - limit); i < admitted.size(); i++)
                {
                    free += admitted.get(i) <= decisionNs - windowNs ? 1 : 0;
                }
                assertEquals(free, decision.remaining(), where);
                final long newest = admitted.isEmpty() ? 0 : admitted.get(admitted.size() - 1);
                assertEquals(free < limit ? newest + windowNs - nowNs : 0, decision.resetAfterNs(), where);
            }
        }
    }

    @Test
    void slidingLogAtTheEndOfTime()
    {
        final SlidingLogLimiter limiter = new SlidingLogLimiter(1, 100, CLOCK);
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, MAX - 100));
        assertEquals(50, limiter.tryAcquire(1, MAX - 50), "it leaves the window at Long.MAX_VALUE exactly");
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, MAX));
        assertEquals(Result.NEVER, limiter.tryAcquire(1, MAX), "it would leave after Long.MAX_VALUE");

        final SlidingLogLimiter two = new SlidingLogLimiter(2, 100, CLOCK);
        final Decision decision = new Decision();
        assertEquals(Result.ADMITTED, two.tryAcquire(1, MAX - 10, decision));
        assertEquals(1, decision.remaining());
        assertEquals(MAX, decision.resetAfterNs(), "the newest never leaves within the long range: saturated");
    }

    @Test
    void anEmptyInitialFillHoldsForEveryRingSize()
    {
        for (int limit = 1; limit <= 48; limit++)
        {
            final SlidingLogLimiter limiter = new SlidingLogLimiter(limit, 1_000, () -> 5_000, 0);
            assertEquals(limit, limiter.admissions());
            assertEquals(1_000, limiter.tryAcquire(1, 5_000), "limit " + limit);
            assertEquals(Result.ADMITTED, limiter.tryAcquire(limit, 6_000), "limit " + limit);
            final SlidingLogLimiter full = new SlidingLogLimiter(limit, 1_000, () -> 5_000, limit);
            assertEquals(0, full.admissions());
            assertEquals(Result.ADMITTED, full.tryAcquire(limit, 5_000));
        }
        final SlidingLogLimiter partly = new SlidingLogLimiter(16, 1_000, () -> 5_000, 10);
        assertEquals(6, partly.admissions());
        assertEquals(Result.ADMITTED, partly.tryAcquire(10, 5_000));
        assertTrue(partly.tryAcquire(1, 5_999) > 0);
    }
}
