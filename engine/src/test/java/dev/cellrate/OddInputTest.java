package dev.cellrate;

import dev.cellrate.layout.CellArray;
import dev.cellrate.layout.CellLayout;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The hot path under odd inputs: extreme times, time going backwards, invalid costs. It never throws, never
 * admits more than the burst, and a rejection never changes the cell.
 */
final class OddInputTest
{
    static final Limit LIMIT = Limit.perSecond(10, 10);
    static final long T_NS = LIMIT.emissionIntervalNs();
    static final long[] ODD_PERMITS = {0, -1, -LIMIT.burst(), LIMIT.burst() + 1, Long.MAX_VALUE, Long.MIN_VALUE};

    @Test
    void nothingIsEverAdmittedAtLongMaxBecauseTheTatIsUnrepresentable()
    {
        final RateLimiter atomic = new RateLimiter(LIMIT);
        final SingleThreadedRateLimiter single = new SingleThreadedRateLimiter(LIMIT);
        final Decision decision = new Decision();
        for (int i = 0; i < 1_000; i++)
        {
            assertEquals(Result.NEVER, atomic.tryAcquire(1, Long.MAX_VALUE));
            assertEquals(Result.NEVER, atomic.tryAcquire(1 + i % LIMIT.burst(), Long.MAX_VALUE));
            assertEquals(Result.NEVER, atomic.tryAcquire(1, Long.MAX_VALUE, decision));
            assertEquals(Long.MAX_VALUE, decision.retryAfterNs());
            assertEquals(LIMIT.burst(), decision.remaining());
            assertEquals(Result.NEVER, single.tryAcquire(1, Long.MAX_VALUE));
            assertEquals(Result.NEVER, single.tryAcquire(1, Long.MAX_VALUE, decision));
        }
        assertEquals(CellArray.FRESH_TAT_NS, atomic.tatNs());
        assertEquals(CellArray.FRESH_TAT_NS, single.tatNs());
    }

    @Test
    void nearLongMaxAdmitsOnlyWhatFitsAndNeverMoreThanTheBurst()
    {
        final long nowNs = Long.MAX_VALUE - 5 * T_NS;
        final RateLimiter atomic = new RateLimiter(LIMIT);
        final SingleThreadedRateLimiter single = new SingleThreadedRateLimiter(LIMIT);
        int admittedAtomic = 0;
        int admittedSingle = 0;
        for (int i = 0; i < 100; i++)
        {
            final long t = nowNs + i % 3;
            admittedAtomic += Result.isAdmitted(atomic.tryAcquire(1, t)) ? 1 : 0;
            admittedSingle += Result.isAdmitted(single.tryAcquire(1, t)) ? 1 : 0;
        }
        // 5 fit below Long.MAX_VALUE; the burst (10) would allow more, but the 6th TAT is unrepresentable.
        assertEquals(5, admittedAtomic);
        assertEquals(5, admittedSingle);
        assertEquals(Long.MAX_VALUE, atomic.tatNs());
        assertEquals(Result.NEVER, atomic.tryAcquire(1, Long.MAX_VALUE));
        assertEquals(T_NS, atomic.tryAcquire(1, Long.MAX_VALUE - T_NS * 10));
    }

    @Test
    void longMinTimeOnAFreshCellAdmitsExactlyTheBurst()
    {
        final RateLimiter atomic = new RateLimiter(LIMIT);
        final SingleThreadedRateLimiter single = new SingleThreadedRateLimiter(LIMIT);
        for (int i = 0; i < LIMIT.burst(); i++)
        {
            assertEquals(Result.ADMITTED, atomic.tryAcquire(1, Long.MIN_VALUE));
            assertEquals(Result.ADMITTED, single.tryAcquire(1, Long.MIN_VALUE));
        }
        assertEquals(T_NS, atomic.tryAcquire(1, Long.MIN_VALUE));
        assertEquals(T_NS, single.tryAcquire(1, Long.MIN_VALUE));
        assertEquals(Long.MIN_VALUE + LIMIT.ceilingNs(), atomic.tatNs());
        assertEquals(Long.MIN_VALUE + LIMIT.ceilingNs(), single.tatNs());
    }

    @Test
    void timeGoingBackwardsNeverAdmitsAndWritesNothing()
    {
        final RateLimiter atomic = new RateLimiter(LIMIT);
        final SingleThreadedRateLimiter single = new SingleThreadedRateLimiter(LIMIT);
        final long nowNs = 1_700_000_000_000_000_000L;
        for (int i = 0; i < LIMIT.burst(); i++)
        {
            assertEquals(Result.ADMITTED, atomic.tryAcquire(1, nowNs));
            assertEquals(Result.ADMITTED, single.tryAcquire(1, nowNs));
        }
        final long tatNs = atomic.tatNs();
        final long[] earlierNs = {nowNs - 1, nowNs - T_NS, nowNs - LIMIT.ceilingNs(), 0, -1, -nowNs, Long.MIN_VALUE};
        for (final long t : earlierNs)
        {
            final long expected = Math.min(Long.MAX_VALUE, Math.max(0, tatNs - t + T_NS - LIMIT.ceilingNs()));
            final long code = atomic.tryAcquire(1, t);
            assertTrue(code > 0, "rejected going back to " + t);
            assertEquals(single.tryAcquire(1, t), code);
            if (t > 0)
            {
                assertEquals(expected, code);
            }
            assertEquals(tatNs, atomic.tatNs());
            assertEquals(tatNs, single.tatNs());
        }
        // Back to Long.MIN_VALUE: the true retry-after (about 1.1e19 ns) exceeds the long range and saturates.
        assertEquals(Long.MAX_VALUE, atomic.tryAcquire(1, Long.MIN_VALUE));
    }

    @Test
    void invalidCostsAreNeverAndTouchNothing()
    {
        final RateLimiter atomic = new RateLimiter(LIMIT);
        final SingleThreadedRateLimiter single = new SingleThreadedRateLimiter(LIMIT);
        final Decision decision = new Decision();
        final long[] timesNs = {Long.MIN_VALUE, -1, 0, 1_700_000_000_000_000_000L, Long.MAX_VALUE};
        for (final long t : timesNs)
        {
            for (final long permits : ODD_PERMITS)
            {
                assertEquals(Result.NEVER, atomic.tryAcquire(permits, t));
                assertEquals(Result.NEVER, atomic.tryAcquire(permits, t, decision));
                assertEquals(Long.MAX_VALUE, decision.retryAfterNs());
                assertEquals(Result.NEVER, single.tryAcquire(permits, t));
                assertEquals(Result.NEVER, single.tryAcquire(permits, t, decision));
                assertEquals(CellArray.FRESH_TAT_NS, atomic.tatNs());
                assertEquals(CellArray.FRESH_TAT_NS, single.tatNs());
            }
        }
        assertEquals(Result.ADMITTED, atomic.tryAcquire(LIMIT.burst(), 0));
        assertEquals(LIMIT.ceilingNs(), atomic.tatNs());
    }

    @Test
    void aRejectionDoesNotChangeTheTat()
    {
        final RateLimiter atomic = new RateLimiter(LIMIT);
        final SingleThreadedRateLimiter single = new SingleThreadedRateLimiter(LIMIT);
        final Decision decision = new Decision();
        assertEquals(Result.ADMITTED, atomic.tryAcquire(7, 0));
        assertEquals(Result.ADMITTED, single.tryAcquire(7, 0));
        final long tatNs = atomic.tatNs();
        for (long permits = 4; permits <= LIMIT.burst(); permits++)
        {
            assertEquals((permits - 3) * T_NS, atomic.tryAcquire(permits, 0));
            assertEquals((permits - 3) * T_NS, atomic.tryAcquire(permits, 0, decision));
            assertEquals(3, decision.remaining());
            assertEquals(tatNs, decision.resetAfterNs());
            assertEquals((permits - 3) * T_NS, single.tryAcquire(permits, 0));
            assertEquals((permits - 3) * T_NS, single.tryAcquire(permits, 0, decision));
            assertEquals(tatNs, atomic.tatNs());
            assertEquals(tatNs, single.tatNs());
        }
    }

    @Test
    void clockOverloadsReadTheInjectedClock()
    {
        final CachedNanoClock clock = new CachedNanoClock();
        final RateLimiter atomic = new RateLimiter(LIMIT, clock);
        final SingleThreadedRateLimiter single = new SingleThreadedRateLimiter(LIMIT, clock);
        final RateLimiter explicit = new RateLimiter(LIMIT);
        final Decision decision = new Decision();
        final Decision explicitDecision = new Decision();
        final SplittableRandom random = new SplittableRandom(42);
        long nowNs = -3_000_000_000L;
        for (int i = 0; i < 5_000; i++)
        {
            nowNs += random.nextInt(4) * (T_NS / 2);
            clock.update(nowNs);
            final long permits = 1 + random.nextInt((int)LIMIT.burst() + 1);
            final long expected;
            switch (i % 3)
            {
                case 0:
                    expected = explicit.tryAcquire(1, nowNs);
                    assertEquals(expected, atomic.tryAcquire());
                    assertEquals(expected, single.tryAcquire());
                    break;
                case 1:
                    expected = explicit.tryAcquire(permits, nowNs);
                    assertEquals(expected, atomic.tryAcquire(permits));
                    assertEquals(expected, single.tryAcquire(permits));
                    break;
                default:
                    expected = explicit.tryAcquire(permits, nowNs, explicitDecision);
                    assertEquals(expected, atomic.tryAcquire(permits, decision));
                    assertEquals(explicitDecision.toString(), decision.toString());
                    assertEquals(expected, single.tryAcquire(permits, decision));
                    assertEquals(explicitDecision.toString(), decision.toString());
                    break;
            }
            assertEquals(explicit.tatNs(), atomic.tatNs());
            assertEquals(explicit.tatNs(), single.tatNs());
        }
        assertEquals(clock, atomic.clock());
        assertEquals(clock, single.clock());
    }

    @Test
    void limitersOnOneSharedCellArrayStayIndependent()
    {
        final Limit[] limits = {LIMIT, Limit.ofGcra(1, 0), Limit.ofGcra(3, 10), Limit.perSecond(1_000, 1), LIMIT};
        final CellArray cells = CellArray.allocate(limits.length + 1);
        final RateLimiter[] limiters = new RateLimiter[limits.length];
        final ReferenceGcra[] references = new ReferenceGcra[limits.length];
        for (int i = 0; i < limits.length; i++)
        {
            limiters[i] = new RateLimiter(limits[i], cells, i, SystemNanoClock.INSTANCE);
            references[i] = new ReferenceGcra(limits[i].emissionIntervalNs(), limits[i].toleranceNs());
        }
        final SplittableRandom random = new SplittableRandom(7);
        long nowNs = 0;
        for (int i = 0; i < 20_000; i++)
        {
            nowNs += random.nextInt(3) * 1_000L;
            final int cell = random.nextInt(limits.length);
            final long permits = 1 + random.nextLong(limits[cell].burst() + 1);
            assertEquals(references[cell].decide(permits, nowNs), limiters[cell].tryAcquire(permits, nowNs));
            for (int j = 0; j < limits.length; j++)
            {
                assertEquals(references[j].tatNs(), limiters[j].tatNs());
            }
        }
        // The padding of every cell and the spare last cell were never written.
        final AtomicBuffer buffer = cells.buffer();
        for (int cell = 0; cell <= limits.length; cell++)
        {
            for (int offset = Long.BYTES; offset < CellLayout.CELL_LENGTH; offset += Long.BYTES)
            {
                assertEquals(0, buffer.getLong(cell * CellLayout.CELL_LENGTH + offset));
            }
        }
        assertEquals(CellArray.FRESH_TAT_NS, buffer.getLong(CellArray.tatOffset(limits.length)));
        assertEquals(0, buffer.addressOffset() % CellLayout.CELL_ALIGNMENT);
        assertEquals(limits.length + 1, cells.cellCount());
        assertEquals(cells, limiters[0].cells());
    }
}
