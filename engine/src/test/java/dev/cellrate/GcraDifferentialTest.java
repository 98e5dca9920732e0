package dev.cellrate;

import dev.cellrate.layout.CellArray;
import dev.cellrate.testing.Trace;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Decision-for-decision comparison of the engine with {@link ReferenceGcra} (exact {@code BigInteger} GCRA) on
 * seeded random traces: result codes (including every retry-after), the stored TAT, and every field of the
 * {@link Decision} holder against the formulas of docs/design.md §3. Four engine paths run side by side on four
 * cells of one {@link CellArray}: {@link RateLimiter} and {@link SingleThreadedRateLimiter}, each with and
 * without a {@link Decision}. Traces include simultaneous arrivals, 1 ms grids, multiples of T, costs 1..b+1
 * and invalid costs, negative times, times near 1.7e18 ns and near {@link Long#MAX_VALUE}, and time going
 * backwards (including jumps to {@link Long#MIN_VALUE}).
 */
final class GcraDifferentialTest
{
    static final int TRACES = 264;
    static final int EVENTS_PER_TRACE = 1_000;
    static final long MIN_DECISIONS = 200_000;

    @Test
    void engineMatchesExactGcraOnRandomTraces()
    {
        final long[] counts = new long[4];
        long decisions = 0;
        for (int trace = 0; trace < TRACES; trace++)
        {
            final long seed = 0x6C3A_0000L + trace;
            final Limit limit = Trace.LIMITS[trace % Trace.LIMITS.length];
            final long startNs = startNs(trace / Trace.LIMITS.length, limit, new SplittableRandom(~seed));
            decisions += runTrace(seed, limit, startNs, 0 == (trace & 1), counts);
        }
        assertTrue(decisions >= MIN_DECISIONS, "only " + decisions + " decisions");
        // The traces must exercise every branch, not only one: admissions (some exactly on the boundary
        // lag + I = tau + T), retry-afters and NEVERs.
        System.out.println("GcraDifferentialTest: " + decisions + " decisions, admitted " + counts[0] +
            " (on the boundary " + counts[1] + "), retry-after " + counts[2] + ", never " + counts[3]);
        assertTrue(counts[0] > decisions / 5, "admitted " + counts[0]);
        assertTrue(counts[1] > decisions / 100, "admitted on the boundary " + counts[1]);
        assertTrue(counts[2] > decisions / 5, "retry-after " + counts[2]);
        assertTrue(counts[3] > decisions / 50, "never " + counts[3]);
    }

    /**
     * Start times cycle through zero, a large positive time of today's epoch-ns size, large and small negative
     * times, and the two ends of the long range.
     */
    static long startNs(final int variant, final Limit limit, final SplittableRandom random)
    {
        final long jitterNs = random.nextLong(1_000_000_000L);
        switch (variant % 6)
        {
            case 0:
                return 0;
            case 1:
                return 1_700_000_000_000_000_000L + jitterNs;
            case 2:
                return -1_700_000_000_000_000_000L - jitterNs;
            case 3:
                return -5_000_000_000L + jitterNs;
            case 4:
                return Trace.saturatedAdd(Long.MAX_VALUE,
                    -random.nextLong(Trace.saturatedAdd(limit.ceilingNs(), limit.ceilingNs())));
            default:
                return Long.MIN_VALUE + jitterNs;
        }
    }

    static long runTrace(
        final long seed, final Limit limit, final long startNs, final boolean backwards, final long[] counts)
    {
        final Trace trace = Trace.gcraEdges(seed, limit, startNs, backwards);
        final ReferenceGcra reference = new ReferenceGcra(limit.emissionIntervalNs(), limit.toleranceNs());
        final CellArray cells = CellArray.allocate(4);
        final RateLimiter atomicWithDecision = new RateLimiter(limit, cells, 0, SystemNanoClock.INSTANCE);
        final SingleThreadedRateLimiter singleWithDecision =
            new SingleThreadedRateLimiter(limit, cells, 1, SystemNanoClock.INSTANCE);
        final RateLimiter atomicPlain = new RateLimiter(limit, cells, 2, SystemNanoClock.INSTANCE);
        final SingleThreadedRateLimiter singlePlain =
            new SingleThreadedRateLimiter(limit, cells, 3, SystemNanoClock.INSTANCE);
        final Decision atomicDecision = new Decision();
        final Decision singleDecision = new Decision();

        for (int i = 0; i < EVENTS_PER_TRACE; i++)
        {
            final long nowNs = trace.nextTimeNs();
            final long permits = trace.nextPermits();
            final long expected = reference.decide(permits, nowNs);
            final Context context = new Context(seed, i, limit, nowNs, permits);

            context.check("RateLimiter+Decision code", expected,
                atomicWithDecision.tryAcquire(permits, nowNs, atomicDecision));
            context.check("SingleThreaded+Decision code", expected,
                singleWithDecision.tryAcquire(permits, nowNs, singleDecision));
            context.check("RateLimiter code", expected,
                1 == permits && 0 == (i & 1) ? atomicPlain.tryAcquire(1, nowNs) : atomicPlain.tryAcquire(permits, nowNs));
            context.check("SingleThreaded code", expected,
                1 == permits && 0 == (i & 1) ? singlePlain.tryAcquire(1, nowNs) : singlePlain.tryAcquire(permits, nowNs));

            final long tatNs = reference.tatNs();
            context.check("RateLimiter+Decision TAT", tatNs, atomicWithDecision.tatNs());
            context.check("SingleThreaded+Decision TAT", tatNs, singleWithDecision.tatNs());
            context.check("RateLimiter TAT", tatNs, atomicPlain.tatNs());
            context.check("SingleThreaded TAT", tatNs, singlePlain.tatNs());

            context.checkDecision("RateLimiter", expected, reference, atomicDecision);
            context.checkDecision("SingleThreaded", expected, reference, singleDecision);
        }
        counts[0] += reference.admitted;
        counts[1] += reference.admittedOnBoundary;
        counts[2] += reference.retryAfters;
        counts[3] += reference.nevers;
        return EVENTS_PER_TRACE;
    }

    /** Where a check happened; the failure message is only built when a check fails. */
    static final class Context
    {
        final long seed;
        final int index;
        final Limit limit;
        final long nowNs;
        final long permits;

        Context(final long seed, final int index, final Limit limit, final long nowNs, final long permits)
        {
            this.seed = seed;
            this.index = index;
            this.limit = limit;
            this.nowNs = nowNs;
            this.permits = permits;
        }

        void check(final String what, final long expected, final long actual)
        {
            if (expected != actual)
            {
                fail(what + ": expected " + expected + " but was " + actual + " (seed " + seed + ", event " + index +
                    ", " + limit + ", nowNs " + nowNs + ", permits " + permits + ")");
            }
        }

        void checkDecision(
            final String what, final long expected, final ReferenceGcra reference, final Decision decision)
        {
            check(what + " Decision.code", expected, decision.code());
            check(what + " Decision.retryAfterNs",
                expected > 0 ? expected : (Result.ADMITTED == expected ? 0 : Long.MAX_VALUE), decision.retryAfterNs());
            check(what + " Decision.remaining", reference.remaining(nowNs), decision.remaining());
            check(what + " Decision.resetAfterNs", reference.resetAfterNs(nowNs), decision.resetAfterNs());
            check(what + " Decision.limit", limit.burst(), decision.limit());
        }
    }
}
