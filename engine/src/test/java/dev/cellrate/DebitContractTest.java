package dev.cellrate;

import dev.cellrate.composite.TestComposites;
import dev.cellrate.layout.CellArray;
import dev.cellrate.composite.CompositeRateLimiter;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * peek, debit and the initial fill on every {@link DebitLimiter}: peek never charges, a debit is charged
 * with its debt bounded at one burst, and the fronts agree with each other on random traces.
 */
final class DebitContractTest
{
    private static final long T_NS = 100_000_000L;
    private static final Limit LIMIT = Limit.perSecond(10, 5); // T = 100 ms, burst 5, ceiling 500 ms

    private static DebitLimiter[] fronts(final CachedNanoClock clock)
    {
        return new DebitLimiter[]{
            new RateLimiter(LIMIT, clock),
            new SingleThreadedRateLimiter(LIMIT, clock),
            TestComposites.composite(CellArray.allocate(1), new Limit[]{LIMIT}, new int[]{0}, clock),
        };
    }

    @Test
    void peekNeverCharges()
    {
        final CachedNanoClock clock = new CachedNanoClock();
        for (final DebitLimiter front : fronts(clock))
        {
            final String name = front.getClass().getSimpleName();
            for (int i = 0; i < 10; i++)
            {
                assertEquals(Result.ADMITTED, front.peek(5, 0), name);
            }
            assertEquals(Result.NEVER, front.peek(6, 0), name);
            assertEquals(Result.ADMITTED, front.tryAcquire(5, 0), name);
            assertEquals(T_NS, front.peek(1, 0), name);
            assertEquals(front.peek(1, 0), front.tryAcquire(1, 0), name);
            assertEquals(T_NS, front.peek(1), name + ": the clock form reads the clock (0)");
        }
    }

    @Test
    void debitGoesIntoBoundedDebt()
    {
        final CachedNanoClock clock = new CachedNanoClock();
        for (final DebitLimiter front : fronts(clock))
        {
            final String name = front.getClass().getSimpleName();
            assertEquals(Result.ADMITTED, front.debit(3, 0), name + ": 2 of 5 left");
            assertEquals(Result.ADMITTED, front.tryAcquire(2, 0), name);
            assertEquals(2 * T_NS, front.debit(1, 0), name + ": empty plus one permit of debt: one permit in 2 T");
            assertEquals(2 * T_NS, front.tryAcquire(1, 0), name);
            assertEquals(Result.NEVER, front.debit(0, 0), name);
            final long paybackNs = front.debit(1_000_000, 0);
            assertEquals(5 * T_NS + T_NS, paybackNs, name + ": clamped at one burst of debt (TAT = 2 ceilings)");
            assertEquals(paybackNs, front.tryAcquire(1, 0), name);
            assertEquals(Result.ADMITTED, front.tryAcquire(1, paybackNs), name);
        }
    }

    @Test
    void keyedCellsPeekAndDebitAsTheSingleCell()
    {
        final SplittableRandom random = new SplittableRandom(11);
        for (int trace = 0; trace < 100; trace++)
        {
            final KeyedRateLimiter keyed = KeyedRateLimiter.builder(LIMIT).slotCount(64).shardCount(1).build();
            final RateLimiter single = new RateLimiter(LIMIT);
            final long key = random.nextLong();
            long nowNs = random.nextLong(-1_000 * T_NS, 1_000 * T_NS);
            for (int step = 0; step < 100; step++)
            {
                nowNs += random.nextLong(-T_NS, 3 * T_NS);
                final int op = random.nextInt(3);
                final long permits = 2 == op && random.nextInt(10) == 0 ? 1_000_000 : 1 + random.nextInt(6);
                final long expected = 0 == op ? single.tryAcquire(permits, nowNs) :
                    1 == op ? single.peek(permits, nowNs) : single.debit(permits, nowNs);
                final long actual = 0 == op ? keyed.tryAcquire(key, permits, nowNs) :
                    1 == op ? keyed.peek(key, permits, nowNs) : keyed.debit(key, permits, nowNs);
                assertEquals(expected, actual, "op " + op + " permits " + permits + " step " + step);
            }
        }
        final KeyedRateLimiter keyed = KeyedRateLimiter.builder(LIMIT).slotCount(64).shardCount(1).build();
        assertEquals(Result.ADMITTED, keyed.peek("absent", 5, 0), "an absent key peeks as a full bucket");
        assertEquals(Result.NEVER, keyed.debit("user", 0, 0));
        assertEquals(6 * T_NS, keyed.debit("user", 1_000_000, 0), "clamped at one burst of debt");
        assertEquals(6 * T_NS, keyed.tryAcquire("user", 1, 0));
    }

    @Test
    void debitNeverLowersTheTat()
    {
        final RateLimiter limiter = new RateLimiter(LIMIT);
        limiter.debit(1_000, 0);
        final long tatNs = limiter.tatNs();
        limiter.debit(1, -10 * T_NS); // a clock far behind: the cap would be below the TAT
        assertTrue(limiter.tatNs() >= tatNs);
        limiter.debit(1, Long.MAX_VALUE - 1);
        assertTrue(limiter.tatNs() > 0, "saturates, never wraps");
    }

    @Test
    void initialFillFullEmptyOrK()
    {
        final CachedNanoClock clock = new CachedNanoClock();
        clock.update(42 * T_NS);
        for (final long initial : new long[]{0, 1, 3, 5, 6, Long.MAX_VALUE})
        {
            final RateLimiter atomic = new RateLimiter(LIMIT, clock, initial);
            final SingleThreadedRateLimiter single = new SingleThreadedRateLimiter(LIMIT, clock, initial);
            final long expected = Math.min(initial, 5);
            for (int i = 0; i < expected; i++)
            {
                assertEquals(Result.ADMITTED, atomic.tryAcquire(), "initial " + initial);
                assertEquals(Result.ADMITTED, single.tryAcquire(), "initial " + initial);
            }
            assertEquals(T_NS, atomic.tryAcquire(), "initial " + initial + ": then empty");
            assertEquals(T_NS, single.tryAcquire(), "initial " + initial + ": then empty");
        }
    }

    @Test
    void frontsAgreeOnRandomTraces()
    {
        final SplittableRandom random = new SplittableRandom(7);
        for (int trace = 0; trace < 200; trace++)
        {
            final DebitLimiter[] fronts = fronts(new CachedNanoClock());
            final PayLaterRateLimiter payLater = new PayLaterRateLimiter(LIMIT, 1);
            final RateLimiter reference = new RateLimiter(LIMIT);
            long nowNs = random.nextLong(-1_000 * T_NS, 1_000 * T_NS);
            for (int step = 0; step < 100; step++)
            {
                nowNs += random.nextLong(-T_NS, 3 * T_NS);
                final int op = random.nextInt(3);
                final long permits = 0 == op ? 1 + random.nextInt(6) : 1 + random.nextInt(3);
                long expected = 0;
                for (int f = 0; f < fronts.length; f++)
                {
                    final long code = 0 == op ? fronts[f].tryAcquire(permits, nowNs) :
                        1 == op ? fronts[f].peek(permits, nowNs) : fronts[f].debit(permits, nowNs);
                    if (0 == f)
                    {
                        expected = code;
                    }
                    assertEquals(expected, code, fronts[f].getClass().getSimpleName() + " op " + op + " step " + step);
                }
                final long single = 0 == op ? payLater.tryAcquire(1, nowNs) : 1 == op ? payLater.peek(1, nowNs) :
                    payLater.debit(permits, nowNs);
                final long gcra = 0 == op ? reference.tryAcquire(1, nowNs) : 1 == op ? reference.peek(1, nowNs) :
                    reference.debit(permits, nowNs);
                assertEquals(gcra, single, "pay-later decides single permits and debits as GCRA, op " + op);
            }
        }
    }
}
