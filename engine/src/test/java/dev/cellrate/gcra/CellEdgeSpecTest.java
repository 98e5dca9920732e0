package dev.cellrate.gcra;

import dev.cellrate.TestFronts;
import dev.cellrate.Limit;
import dev.cellrate.RateLimiter;
import dev.cellrate.Result;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a single cell answers at the edges a user can reach: an initial fill at the burst, at a negative
 * creation time and near the end of time; a debit near the end of time and up to the debt ceiling; a clock
 * that jumps back across the whole long range; 1-ns permits; and costs below one permit at every entry point.
 */
class CellEdgeSpecTest
{
    private static final long T_NS = 100;

    /** A clock that always reads the same time. */
    private static final class FixedClock implements org.agrona.concurrent.NanoClock
    {
        private final long nowNs;

        FixedClock(final long nowNs)
        {
            this.nowNs = nowNs;
        }

        @Override
        public long nanoTime()
        {
            return nowNs;
        }
    }

    @Test
    void anInitialFillAtTheBurstIsAFullBucketEvenWhenTheCapacityIsFractional()
    {
        // tau + T = 250: capacity 2.5 tokens, integer burst 2. "At or above the burst = full": the half token too.
        final Limit limit = Limit.ofGcra(T_NS, 150);
        assertEquals(2, limit.burst());
        final RateLimiter filled = new RateLimiter(limit, new FixedClock(1_000), 2);
        final RateLimiter fresh = new RateLimiter(limit, new FixedClock(1_000));
        for (final RateLimiter limiter : new RateLimiter[] {filled, fresh})
        {
            assertEquals(Result.ADMITTED, limiter.tryAcquire(2, 1_000));
            assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 1_050), "the half token refills in 50 ns");
            assertEquals(T_NS, limiter.tryAcquire(1, 1_050));
        }
    }

    @Test
    void aFullLimiterCreatedAtANegativeTimeAdmitsItsBurstAtOnce()
    {
        // System.nanoTime() may be negative: "full" must not mean "full from time 0 on".
        final Limit limit = Limit.ofGcra(T_NS, 2 * T_NS);
        final RateLimiter limiter = new RateLimiter(limit, new FixedClock(-10_000), 3);
        assertEquals(Result.ADMITTED, limiter.peek(3, -10_000));
        assertEquals(Result.ADMITTED, limiter.tryAcquire(3, -10_000));
        assertEquals(T_NS, limiter.tryAcquire(1, -10_000));
    }

    @Test
    void anEmptyLimiterCreatedNearTheEndOfTimeStaysEmpty()
    {
        // Created empty 200 ns before Long.MAX_VALUE: its first TAT (now + 250) saturates at Long.MAX_VALUE
        // instead of wrapping to a full bucket.
        final long createdNs = Long.MAX_VALUE - 200;
        final Limit limit = Limit.ofGcra(T_NS, 150);
        final RateLimiter limiter = new RateLimiter(limit, new FixedClock(createdNs), 0);
        assertEquals(Long.MAX_VALUE, TestFronts.tatNs(limiter));
        assertEquals(50, limiter.tryAcquire(1, createdNs), "lag 200 + T 100 - ceiling 250");
        assertEquals(Long.MAX_VALUE, TestFronts.tatNs(limiter), "nothing charged");
        final RateLimiter midway = new RateLimiter(limit, new FixedClock(Long.MAX_VALUE - 250), 0);
        assertEquals(Long.MAX_VALUE, TestFronts.tatNs(midway), "exactly representable: now + 250");
    }

    @Test
    void aDebitNearTheEndOfTimeIsChargedUpToLongMax()
    {
        final Limit limit = Limit.ofGcra(T_NS, 2 * T_NS);
        final RateLimiter limiter = new RateLimiter(limit);
        final long nowNs = Long.MAX_VALUE - 10;
        limiter.debit(1, nowNs);
        assertEquals(Long.MAX_VALUE, TestFronts.tatNs(limiter), "now + debt ceiling saturates at Long.MAX_VALUE");
        assertTrue(limiter.tryAcquire(1, nowNs) != Result.ADMITTED, "the debt is kept: no admission after it");
    }

    @Test
    void theDebtCeilingIsTwiceTheCeilingSaturatedAtLongMax()
    {
        // tau + T = 2^62 - 1 (= Long.MAX_VALUE / 2): twice it still fits, one below Long.MAX_VALUE.
        final Limit justFits = Limit.ofGcra(1L << 40, Long.MAX_VALUE / 2 - (1L << 40));
        assertEquals(Long.MAX_VALUE / 2, justFits.ceilingNs());
        assertEquals(Long.MAX_VALUE - 1, justFits.debtCeilingNs());
        final RateLimiter limiter = new RateLimiter(justFits);
        limiter.debit(Long.MAX_VALUE, 0);
        assertEquals(Long.MAX_VALUE - 1, TestFronts.tatNs(limiter), "a huge debit leaves now + debt ceiling");
        // tau + T = 2^62, the largest ceiling: twice it would wrap.
        final Limit largest = Limit.ofGcra(1L << 40, Limit.MAX_CEILING_NS - (1L << 40));
        assertEquals(Long.MAX_VALUE, largest.debtCeilingNs());
    }

    @Test
    void aClockThatJumpsBackAcrossTheWholeRangeIsNeverAdmitted()
    {
        final RateLimiter limiter = new RateLimiter(Limit.ofGcra(T_NS, 2 * T_NS));
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, Long.MAX_VALUE - 1_000));
        final long tatNs = TestFronts.tatNs(limiter);
        // The true lag is about 2^64: retry after Long.MAX_VALUE, nothing charged.
        assertEquals(Long.MAX_VALUE, limiter.tryAcquire(1, Long.MIN_VALUE));
        assertEquals(Long.MAX_VALUE, limiter.peek(1, Long.MIN_VALUE));
        assertEquals(tatNs, TestFronts.tatNs(limiter));
    }

    @Test
    void costsBelowOnePermitAreNeverAndChargeNothingOnACellWithLag()
    {
        final RateLimiter limiter = new RateLimiter(Limit.ofGcra(T_NS, 2 * T_NS));
        assertEquals(Result.ADMITTED, limiter.tryAcquire(2, 0));
        final long tatNs = TestFronts.tatNs(limiter);
        for (final long permits : new long[] {0, -1, Long.MIN_VALUE})
        {
            assertEquals(Result.NEVER, limiter.tryAcquire(permits, 0), "permits " + permits);
            assertEquals(Result.NEVER, limiter.peek(permits, 0));
            assertEquals(Result.NEVER, limiter.debit(permits, 0));
            assertEquals(tatNs, TestFronts.tatNs(limiter), "nothing charged, nothing refunded");
        }
    }

    @Test
    void everyCellEntryPointAnswersNeverForAnIncrementBelowOne()
    {
        // The cell loop's contract: an increment below 1 is an impossible cost, whatever the cell's lag.
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64]);
        buffer.putLongVolatile(8, 500);
        final long addressNs = buffer.addressOffset() + 8;
        for (final long incrementNs : new long[] {0, Result.NEVER})
        {
            assertEquals(Result.NEVER, AtomicGcra.acquireAt(buffer.byteArray(), addressNs, incrementNs, 300, 0));
            assertEquals(Result.NEVER, AtomicGcra.acquire(buffer, 8, incrementNs, 300, 0));
            assertEquals(Result.NEVER, AtomicGcra.peek(buffer, 8, incrementNs, 300, 0));
            assertEquals(Result.NEVER, AtomicGcra.debit(buffer, 8, incrementNs, 300, 600, T_NS, 0));
            assertEquals(500, buffer.getLongVolatile(8));
        }
    }

    @Test
    void oneNanosecondPermitsArePeekedChargedAndDebited()
    {
        // T = 1 ns: one permit is an increment of exactly 1, the smallest possible cost.
        final Limit limit = Limit.ofGcra(1, 2);
        final RateLimiter limiter = new RateLimiter(limit);
        assertEquals(Result.ADMITTED, limiter.peek(1, 0));
        assertEquals(Result.ADMITTED, limiter.debit(1, 0), "lag 1 after the debit: still room for one");
        assertEquals(1, TestFronts.tatNs(limiter));
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 0));
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 0));
        assertEquals(1, limiter.peek(1, 0), "three 1-ns permits taken at once: full for 1 ns");
    }

    @Test
    void theCellLoopDecidesAsGcraOnEveryWordTimeAndCostItCanBeGiven()
    {
        // The loop's test (lag against slack, unsigned) against Gcra's saturating functions, on words, times,
        // costs and ceilings at and around every boundary of the long range.
        final long[] edges = {Long.MIN_VALUE, Long.MIN_VALUE + 1, -(1L << 62) - 1, -(1L << 62), -1_000, -1, 0, 1, 99,
            100, 101, 1_000, (1L << 62) - 1, 1L << 62, (1L << 62) + 1, Long.MAX_VALUE - 300, Long.MAX_VALUE - 1,
            Long.MAX_VALUE};
        final long[] increments = {Long.MIN_VALUE, -1, 0, 1, 100, 299, 300, 301, 1L << 62, Long.MAX_VALUE};
        final long[] ceilings = {1, 100, 300, 1L << 61, 1L << 62};
        final java.util.SplittableRandom random = new java.util.SplittableRandom(25);
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64]);
        final long address = buffer.addressOffset() + 8;
        int decisions = 0;
        for (int i = 0; i < 200_000; i++)
        {
            final long tatNs = i < 50_000 ? edges[random.nextInt(edges.length)] + random.nextLong(-2, 3) :
                random.nextLong();
            final long nowNs = i % 3 == 0 ? tatNs + random.nextLong(-400, 400) : edges[random.nextInt(edges.length)];
            final long incrementNs = increments[random.nextInt(increments.length)];
            final long ceilingNs = ceilings[random.nextInt(ceilings.length)];
            // A cost outside [1, ceiling] never conforms (Gcra's functions take costs inside it only).
            final long expected = incrementNs < 1 || incrementNs > ceilingNs ? Result.NEVER :
                Gcra.decide(tatNs, nowNs, incrementNs, ceilingNs);
            buffer.putLongVolatile(8, tatNs);
            final long code = AtomicGcra.acquireAt(buffer.byteArray(), address, incrementNs, ceilingNs, nowNs);
            final String what = "tat " + tatNs + ", now " + nowNs + ", I " + incrementNs + ", ceiling " + ceilingNs;
            assertEquals(expected, code, what);
            assertEquals(Result.ADMITTED == expected ? Gcra.nextTatNs(tatNs, nowNs, incrementNs) : tatNs,
                buffer.getLongVolatile(8), what);
            decisions++;
        }
        assertEquals(200_000, decisions);
    }
}
