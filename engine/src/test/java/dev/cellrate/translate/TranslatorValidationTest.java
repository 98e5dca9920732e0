package dev.cellrate.translate;

import dev.cellrate.TestFronts;
import dev.cellrate.Limit;
import dev.cellrate.PayLaterRateLimiter;
import dev.cellrate.Result;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every translator factory rejects bad configuration with a message naming the field and its range, and
 * maps the documented parameters to the documented GCRA(T, &tau;).
 */
class TranslatorValidationTest
{
    static void rejects(final String fieldAndRange, final Executable factory)
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, factory);
        assertTrue(ex.getMessage().startsWith(fieldAndRange), "message '" + ex.getMessage() + "' should start with '" +
            fieldAndRange + "'");
    }

    @Test
    void nginx()
    {
        rejects("rate must be in [1, 1000000000]", () -> Nginx.limitReq(0, Nginx.RateUnit.PER_SECOND, 1));
        rejects("burst must be in [0, ", () -> Nginx.limitReq(1, Nginx.RateUnit.PER_SECOND, -1));
        rejects("burst must be in [0, 4611686017]", () -> Nginx.limitReq(1, Nginx.RateUnit.PER_SECOND, 1L << 40));
        rejects("unit must not be null", () -> Nginx.limitReq(1, null, 1));
        rejects("mode must not be null", () -> Nginx.limitReq(1, Nginx.RateUnit.PER_SECOND, 1, null));
        rejects("delay must be a non-negative integer", () -> Nginx.parse("rate=1r/s delay=-1"));
        rejects("rate must end in r/s or r/m", () -> Nginx.parse("rate=10r/h"));
        rejects("rate must be given", () -> Nginx.parse("burst=5"));
        rejects("burst must be a non-negative integer", () -> Nginx.parse("rate=1r/s burst=x"));
        rejects("unknown limit_req parameter: zone=one", () -> Nginx.parse("zone=one rate=1r/s"));
        rejects("at most one of nodelay and delay=N", () -> Nginx.parse("rate=1r/s nodelay delay=2"));
        assertEquals(Limit.ofGcra(100_000_000L, 900_000_000L), Nginx.parse("rate=10r/s burst=9").limit());
    }

    @Test
    void redisCell()
    {
        rejects("period must be in [1, 9007199]", () -> RedisCell.throttle(1, 1, 0));
        rejects("count must be in [1, 1000000000]", () -> RedisCell.throttle(1, 0, 1));
        rejects("max_burst must be in [0, ", () -> RedisCell.throttle(-1, 1, 1));
        assertEquals(Limit.ofGcra(100_000_000L, 900_000_000L), RedisCell.throttle(9, 10, 1));
        assertEquals(333_333_333L, RedisCell.throttle(0, 3, 1).emissionIntervalNs());
    }

    @Test
    void envoy()
    {
        rejects("max_tokens must be in [1, ", () -> Envoy.tokenBucket(0, 1, 1, TimeUnit.SECONDS));
        rejects("tokens_per_fill must be in [1, 1000000000]", () -> Envoy.tokenBucket(1, 0, 1, TimeUnit.SECONDS));
        rejects("fill_interval must be in [1, ", () -> Envoy.tokenBucket(1, 1, 0, TimeUnit.SECONDS));
        rejects("fill_interval (in ns) must be in [1, ", () -> Envoy.tokenBucket(1, 1, 1L << 62, TimeUnit.SECONDS));
        rejects("unit must not be null", () -> Envoy.tokenBucket(1, 1, 1, null));
        assertEquals(Limit.ofGcra(100_000_000L, 900_000_000L), Envoy.tokenBucket(10, 10, 1, TimeUnit.SECONDS));
    }

    @Test
    void bucket4j()
    {
        rejects("capacity must be in [1, ", () -> Bucket4j.greedy(0, 1, 1, TimeUnit.SECONDS));
        rejects("refillTokens must be in [1, 1000]", () -> Bucket4j.greedy(1, 1001, 1, TimeUnit.MICROSECONDS));
        rejects("refillPeriod must be in [1, ", () -> Bucket4j.greedy(1, 1, -5, TimeUnit.SECONDS));
        rejects("unit must not be null", () -> Bucket4j.simple(1, 1, null));
        assertEquals(Limit.ofGcra(100_000_000L, 900_000_000L), Bucket4j.simple(10, 1, TimeUnit.SECONDS));
    }

    @Test
    void xTimeRate()
    {
        rejects("r must be in [1, 1000000000]", () -> XTimeRate.newLimiter(0, 1));
        rejects("b must be in [1, ", () -> XTimeRate.newLimiter(1, 0));
        rejects("interval (ns) must be in [1, ", () -> XTimeRate.every(0, 1));
        assertEquals(Limit.ofGcra(100_000_000L, 900_000_000L), XTimeRate.newLimiter(10, 10));
        assertEquals(Limit.ofGcra(200_000_000L, 0), XTimeRate.every(200_000_000L, 1));
    }

    @Test
    void guava()
    {
        rejects("permitsPerSecond must be in [1, 1000000000]", () -> Guava.create(0));
        rejects("permits must be in [1, 2000000000]", () -> Guava.create(0, 2, TimeUnit.SECONDS));
        rejects("period (in ns) must be in [1, ", () -> Guava.create(1, 1L << 62, TimeUnit.NANOSECONDS));
        rejects("unit must not be null", () -> Guava.create(1, 1, null));
        assertEquals(Limit.ofGcra(100_000_000L, 1_000_000_000L), Guava.create(10).limit());
        assertEquals(11, Guava.create(10).limit().burst());
        // create(0.5): one permit per 2 s, half a permit stored: b = 1
        assertEquals(Limit.ofGcra(2_000_000_000L, 1_000_000_000L), Guava.create(1, 2, TimeUnit.SECONDS).limit());
        // r = 3 does not divide 10^9: T rounded up, tau = ceil(3 T) so 4 still pass at once
        final Limit three = Guava.create(3).limit();
        assertEquals(333_333_334L, three.emissionIntervalNs());
        assertEquals(1_000_000_002L, three.toleranceNs());
        assertEquals(4, three.burst());
        assertEquals(Long.MAX_VALUE,
            TestFronts.tatNs(Guava.create(10).newRateLimiter(Long.MAX_VALUE - 5, SystemNanoClock.INSTANCE)),
            "an empty start near the end of the long range saturates");
    }

    @Test
    void payLaterFront()
    {
        final Limit limit = Limit.ofGcra(1L << 40, 0);
        rejects("maxPermits must be in [1, 4194304]", () -> new PayLaterRateLimiter(limit, 0));
        rejects("maxPermits must be in [1, 4194304]", () -> new PayLaterRateLimiter(limit, 4194305));
        rejects("limit must not be null", () -> new PayLaterRateLimiter(null, 1));
        final PayLaterRateLimiter limiter = TestFronts.payLaterAtTat(limit, 4194304, 0, SystemNanoClock.INSTANCE);
        assertEquals(Result.NEVER, limiter.tryAcquire(0, 0));
        assertEquals(Result.NEVER, limiter.tryAcquire(4194305, 0));
        assertEquals(Result.ADMITTED, limiter.tryAcquire(4194304, 0));
        assertEquals(1L << 62, TestFronts.tatNs(limiter));
        // the debt is 2^62 ns: the next caller waits that long, without overflow
        assertEquals(1L << 62, limiter.tryAcquire(1, 0));
        assertEquals(1L, limiter.tryAcquire(1, (1L << 62) - 1));
        // a time at the edge of the long range cannot hold the new TAT: NEVER, not a wrap
        final PayLaterRateLimiter edge = TestFronts.payLaterAtTat(limit, 4, Long.MIN_VALUE, SystemNanoClock.INSTANCE);
        assertEquals(Result.NEVER, edge.tryAcquire(4, Long.MAX_VALUE - 5));
    }
}
