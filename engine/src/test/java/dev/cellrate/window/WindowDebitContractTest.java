package dev.cellrate.window;

import dev.cellrate.DebitLimiter;
import dev.cellrate.Result;
import dev.cellrate.ZeroAllocation;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * peek, debit and the initial fill of the three window fronts, each against its BigInteger reference (the
 * {@code Reference} of its own test) extended by the documented debt rule: fixed window and sliding counter
 * clamp the charged window's count at the limit (no debt beyond it; the counter's estimate carries it into the
 * next window), the sliding log logs {@code min(n, L)} copies of the time (debt at most one window). Exact,
 * code for code, on seeded traces mixing the three calls with odd times (MIN/MAX values, the clock going back).
 */
final class WindowDebitContractTest
{
    private static final long[] ODD_TIMES = {Long.MIN_VALUE, Long.MIN_VALUE + 1, -1, 0, 1, Long.MAX_VALUE - 1,
        Long.MAX_VALUE};

    /** One reference model, whichever front: each front's test {@code Reference} implements it. */
    interface Model
    {
        long offer(long permits, long nowNs);

        long peek(long permits, long nowNs);

        long debit(long permits, long nowNs);
    }

    /** The front and its model, fresh or with an initial fill of {@code initial} (-1 = the default constructor). */
    private static Object[] pair(
        final int kind, final long limit, final long windowNs, final CachedNanoClock clock, final long initial)
    {
        final long createdNs = clock.nanoTime();
        final boolean filled = initial >= 0 && initial < limit;
        switch (kind)
        {
            case 0:
                return new Object[]{
                    initial < 0 ? new FixedWindowLimiter(limit, windowNs) :
                        new FixedWindowLimiter(limit, windowNs, clock, initial),
                    (filled ? new FixedWindowLimiterTest.Reference(limit, windowNs, createdNs, initial) :
                        new FixedWindowLimiterTest.Reference(limit, windowNs))};
            case 1:
                return new Object[]{
                    initial < 0 ? new SlidingCounterLimiter(limit, windowNs) :
                        new SlidingCounterLimiter(limit, windowNs, clock, initial),
                    (filled ? new SlidingCounterLimiterTest.Reference(limit, windowNs, createdNs, initial) :
                        new SlidingCounterLimiterTest.Reference(limit, windowNs))};
            default:
                return new Object[]{
                    initial < 0 ? new SlidingLogLimiter(limit, windowNs, clock) :
                        new SlidingLogLimiter(limit, windowNs, clock, initial),
                    (filled ? new SlidingLogLimiterTest.Reference(limit, windowNs, createdNs, initial) :
                        new SlidingLogLimiterTest.Reference(limit, windowNs))};
        }
    }

    @Test
    void peekDebitAndTryAcquireMatchTheReferenceOnSeededTracesWithOddTimes()
    {
        final long[][] configs = {{1, 16}, {3, 1_000}, {10, 1_000}, {7, 777_777}, {100, 50_000}, {5, Long.MAX_VALUE / 8}};
        final long[] counts = new long[3];
        long debitsIntoFullWindows = 0;
        for (int kind = 0; kind < 3; kind++)
        {
            for (int c = 0; c < configs.length; c++)
            {
                final long limit = configs[c][0];
                final long windowNs = configs[c][1];
                for (int trace = 0; trace < 8; trace++)
                {
                    final SplittableRandom random = new SplittableRandom(1_000 * kind + 10 * c + trace);
                    final CachedNanoClock clock = new CachedNanoClock();
                    long nowNs = random.nextInt(4) == 0 ? ODD_TIMES[random.nextInt(ODD_TIMES.length)] :
                        random.nextLong(-4 * windowNs, 4 * windowNs);
                    clock.update(nowNs);
                    final long initial = trace < 2 ? -1 : random.nextLong(0, limit + 2);
                    final Object[] pair = pair(kind, limit, windowNs, clock, initial);
                    final DebitLimiter front = (DebitLimiter)pair[0];
                    final Model model = (Model)pair[1];
                    final String name = front.getClass().getSimpleName() + " L=" + limit + " W=" + windowNs +
                        " trace=" + trace + " initial=" + initial;
                    for (int step = 0; step < 600; step++)
                    {
                        final int move = random.nextInt(100);
                        if (move < 3)
                        {
                            nowNs = ODD_TIMES[random.nextInt(ODD_TIMES.length)];
                        }
                        else if (move < 8)
                        {
                            nowNs = saturatedAdd(nowNs, -random.nextLong(1, 3 * windowNs / limit + 2)); // back
                        }
                        else if (move < 30)
                        {
                            nowNs += 0;
                        }
                        else
                        {
                            nowNs = saturatedAdd(nowNs, random.nextLong(0, 2 * windowNs / limit + 2));
                        }
                        final int op = random.nextInt(10);
                        final long permits = random.nextInt(12) == 0 ?
                            (random.nextBoolean() ? random.nextLong(-2, 1) : Long.MAX_VALUE - random.nextInt(2)) :
                            random.nextLong(1, limit + 2);
                        final String at = name + " step=" + step + " op=" + op + " n=" + permits + " t=" + nowNs;
                        if (op < 5)
                        {
                            final long peeked = front.peek(permits, nowNs);
                            assertEquals(model.peek(permits, nowNs), peeked, at + " peek");
                            final long code = front.tryAcquire(permits, nowNs);
                            assertEquals(model.offer(permits, nowNs), code, at + " tryAcquire");
                            assertEquals(peeked, code, at + ": peek answered what tryAcquire then did");
                            counts[0]++;
                        }
                        else if (op < 7)
                        {
                            assertEquals(model.peek(permits, nowNs), front.peek(permits, nowNs), at + " peek");
                            counts[1]++;
                        }
                        else
                        {
                            debitsIntoFullWindows += front.peek(1, nowNs) != Result.ADMITTED ? 1 : 0;
                            final long code = front.debit(permits, nowNs);
                            assertEquals(model.debit(permits, nowNs), code, at + " debit");
                            assertTrue(code >= Result.NEVER, at);
                            counts[2]++;
                        }
                    }
                }
            }
        }
        System.out.println("window peek/debit contract: tryAcquire=" + counts[0] + " peek=" + counts[1] + " debit=" +
            counts[2] + " (debits on a full window: " + debitsIntoFullWindows + ")");
        assertTrue(counts[2] > 10_000 && debitsIntoFullWindows > 1_000, Arrays.toString(counts));
    }

    @Test
    void debitOnAFixedWindowFillsItUntilTheWindowEndsAndIsForgivenThen()
    {
        final FixedWindowLimiter limiter = new FixedWindowLimiter(5, 1_000);
        assertEquals(Result.ADMITTED, limiter.debit(3, 100), "2 of 5 left");
        assertEquals(Result.ADMITTED, limiter.peek(2, 100));
        assertEquals(900, limiter.peek(3, 100));
        assertEquals(900, limiter.debit(1_000_000, 100), "clamped at the limit: full until the window ends");
        assertEquals(5, limiter.count());
        assertEquals(900, limiter.tryAcquire(1, 100));
        assertEquals(Result.ADMITTED, limiter.tryAcquire(5, 1_000), "no debt carried into the next window");
        assertEquals(Result.NEVER, limiter.debit(0, 1_000));
        assertEquals(Result.NEVER, limiter.debit(-5, 1_000));
        assertEquals(Result.NEVER, limiter.peek(6, 1_000));
        assertEquals(2_000 - 10, limiter.debit(1, 10), "the clock went back: charged to the newest (full) window 1");
    }

    @Test
    void debitOnASlidingCounterIsPaidBackThroughTheNextWindowsEstimate()
    {
        final SlidingCounterLimiter limiter = new SlidingCounterLimiter(10, 1_000);
        assertEquals(1_000 - 100 + 100, limiter.debit(50, 100),
            "clamped at 10 in window 0; one permit passes at e = W/L = 100 of window 1");
        assertEquals(10, limiter.currentCount());
        assertEquals(1_000, limiter.peek(1, 100));
        assertEquals(Result.ADMITTED, limiter.peek(1, 1_100));
        assertEquals(1, limiter.peek(1, 1_099));
        assertEquals(500, limiter.peek(5, 1_000), "5 permits wait for half of window 1");
        assertEquals(Result.ADMITTED, limiter.tryAcquire(10, 2_000), "nothing left two windows later");
    }

    @Test
    void debitOnASlidingLogBlocksForAtMostOneWindow()
    {
        final SlidingLogLimiter limiter = new SlidingLogLimiter(4, 1_000);
        assertEquals(Result.ADMITTED, limiter.tryAcquire(2, 0));
        assertEquals(1_000, limiter.debit(1_000_000, 500), "4 copies of 500 logged: the next in 1000 ns");
        assertEquals(1_000, limiter.tryAcquire(1, 500));
        assertEquals(1, limiter.peek(4, 1_499));
        assertEquals(Result.ADMITTED, limiter.tryAcquire(4, 1_500));
        assertEquals(Result.NEVER, limiter.debit(0, 1_500));
    }

    @Test
    void initialFillFullEmptyOrK()
    {
        final CachedNanoClock clock = new CachedNanoClock();
        clock.update(42_500);
        for (final long initial : new long[]{0, 1, 3, 5, 6, Long.MAX_VALUE})
        {
            final long left = Math.min(initial, 5);
            final DebitLimiter[] fronts = {
                new FixedWindowLimiter(5, 1_000, clock, initial),
                new SlidingCounterLimiter(5, 1_000, clock, initial),
                new SlidingLogLimiter(5, 1_000, clock, initial),
            };
            for (final DebitLimiter front : fronts)
            {
                final String name = front.getClass().getSimpleName() + " initial " + initial;
                if (left > 0)
                {
                    assertEquals(Result.ADMITTED, front.peek(left), name);
                }
                if (left < 5)
                {
                    assertTrue(front.peek(left + 1) > 0, name + ": only " + left + " left");
                }
                for (int i = 0; i < left; i++)
                {
                    assertEquals(Result.ADMITTED, front.tryAcquire(), name);
                }
                assertTrue(front.tryAcquire() > 0, name + ": then empty");
            }
        }
        assertEquals(500, new FixedWindowLimiter(5, 1_000, clock, 0).tryAcquire(1), "empty: until the next window");
        assertEquals(1_000, new SlidingLogLimiter(5, 1_000, clock, 0).tryAcquire(1), "empty: one whole window");
        assertEquals(500 + 200, new SlidingCounterLimiter(5, 1_000, clock, 0).tryAcquire(1),
            "empty: 5 counted weigh on the next window until e = W/L");
    }

    @Test
    void peekAndDebitAllocateNothing()
    {
        final FixedWindowLimiter fixed = new FixedWindowLimiter(100, 1_000_000);
        final SlidingCounterLimiter counter = new SlidingCounterLimiter(100, 1_000_000);
        final SlidingLogLimiter log = new SlidingLogLimiter(100, 1_000_000);
        final CachedNanoClock clock = new CachedNanoClock();
        final DebitLimiter[] fronts = {fixed, counter, log};
        ZeroAllocation.assertAllocatesNothing("window peek/debit", () ->
        {
            long sink = 0;
            long nowNs = 0;
            for (int i = 0; i < 300_000; i++)
            {
                nowNs += 3_000 * (i & 7);
                clock.update(nowNs);
                final DebitLimiter front = fronts[i % 3];
                final long permits = 1 + (i & 3);
                sink += (i & 4) == 0 ? front.peek(permits, nowNs) : front.debit(permits, nowNs);
                sink += front.peek(permits) + front.tryAcquire(permits, nowNs);
            }
            return sink;
        });
    }

    private static long saturatedAdd(final long a, final long b)
    {
        final long sum = a + b;
        if (((a ^ sum) & (b ^ sum)) < 0)
        {
            return b > 0 ? Long.MAX_VALUE : Long.MIN_VALUE;
        }
        return sum;
    }
}
