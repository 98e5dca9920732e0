package dev.cellrate;

import dev.cellrate.layout.CellArray;
import dev.cellrate.testing.Trace;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The token-bucket / GCRA equivalence (Le Boudec &amp; Thiran, Network Calculus, Prop. 1.2.4; ATM Forum TM 4.0
 * annex C; {@code docs/design.md}), checked: on non-decreasing arrival times the engine decides exactly as a token bucket
 * that starts full, holds {@code (&tau; + T) / T} tokens (= burst when T divides &tau;) and refills one token per
 * T, kept in exact arithmetic ({@link ReferenceTokenBucket}). Codes, retry-afters and the {@link Decision}
 * fields are compared with the bucket's own reading of them: remaining = whole tokens left, reset-after =
 * time to refill.
 */
final class TokenBucketEquivalenceTest
{
    static final int TRACES = 144;
    static final int EVENTS_PER_TRACE = 1_000;

    @Test
    void engineMatchesExactTokenBucketOnNonDecreasingTraces()
    {
        long decisions = 0;
        for (int trace = 0; trace < TRACES; trace++)
        {
            final long seed = 0x7B0C_0000L + trace;
            final Limit limit = Trace.LIMITS[trace % Trace.LIMITS.length];
            final int variant = (trace / Trace.LIMITS.length) % 4;
            final long startNs = GcraDifferentialTest.startNs(variant, limit, new SplittableRandom(~seed));
            decisions += runTrace(seed, limit, startNs);
        }
        System.out.println("TokenBucketEquivalenceTest: " + decisions + " decisions");
        assertTrue(decisions >= 100_000, "only " + decisions + " decisions");
    }

    @Test
    void integerBurstIsTheCapacityWhenTDividesTau()
    {
        final Limit limit = Limit.perSecond(10, 10);
        assertEquals(0, limit.toleranceNs() % limit.emissionIntervalNs());
        assertEquals(limit.burst() * limit.emissionIntervalNs(), limit.ceilingNs());
    }

    @Test
    void capacityIsFractionalWhenTDoesNotDivideTau()
    {
        // GCRA(10, 15): burst 2, but at t = 5 after two admissions at t = 0 it admits a third request: a token
        // bucket of integer capacity 2 would hold only 0.5 tokens, one of capacity 2.5 holds exactly 1.
        final RateLimiter limiter = new RateLimiter(Limit.ofGcra(10, 15));
        final ReferenceTokenBucket bucket = new ReferenceTokenBucket(10, 15);
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 0));
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 0));
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 5));
        assertEquals(Result.ADMITTED, bucket.offer(1, 0));
        assertEquals(Result.ADMITTED, bucket.offer(1, 0));
        assertEquals(Result.ADMITTED, bucket.offer(1, 5));
        assertEquals(2, limiter.limit().burst());
    }

    static long runTrace(final long seed, final Limit limit, final long startNs)
    {
        final Trace trace = Trace.gcraEdges(seed, limit, startNs, false);
        final ReferenceTokenBucket bucket = new ReferenceTokenBucket(limit.emissionIntervalNs(), limit.toleranceNs());
        final CellArray cells = CellArray.allocate(2);
        final RateLimiter atomic = new RateLimiter(limit, cells, 0, SystemNanoClock.INSTANCE);
        final SingleThreadedRateLimiter single =
            new SingleThreadedRateLimiter(limit, cells, 1, SystemNanoClock.INSTANCE);
        final Decision atomicDecision = new Decision();
        final Decision singleDecision = new Decision();
        final long lastRepresentableNs = Long.MAX_VALUE - limit.ceilingNs();

        long decisions = 0;
        for (int i = 0; i < EVENTS_PER_TRACE; i++)
        {
            final long nowNs = trace.nextTimeNs();
            if (nowNs > lastRepresentableNs)
            {
                break;
            }
            final long permits = trace.nextPermits();
            final long expected = bucket.offer(permits, nowNs);
            final GcraDifferentialTest.Context context =
                new GcraDifferentialTest.Context(seed, i, limit, nowNs, permits);
            context.check("RateLimiter code", expected, atomic.tryAcquire(permits, nowNs, atomicDecision));
            context.check("SingleThreaded code", expected, single.tryAcquire(permits, nowNs, singleDecision));
            checkDecision(context, "RateLimiter", expected, bucket, atomicDecision);
            checkDecision(context, "SingleThreaded", expected, bucket, singleDecision);
            decisions++;
        }
        return decisions;
    }

    static void checkDecision(
        final GcraDifferentialTest.Context context,
        final String what,
        final long expected,
        final ReferenceTokenBucket bucket,
        final Decision decision)
    {
        context.check(what + " Decision.retryAfterNs",
            expected > 0 ? expected : (Result.ADMITTED == expected ? 0 : Long.MAX_VALUE), decision.retryAfterNs());
        context.check(what + " Decision.remaining", bucket.wholeTokens(), decision.remaining());
        context.check(what + " Decision.resetAfterNs", bucket.nsToFull(), decision.resetAfterNs());
    }
}
