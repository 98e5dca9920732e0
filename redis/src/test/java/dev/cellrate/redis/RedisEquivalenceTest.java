package dev.cellrate.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellrate.Decision;
import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Decision-for-decision equality of the Lua script with the in-process engine on seeded traces with explicit
 * time: many keys, costs 1..b+1, times going backwards now and then, every code and every {@link Decision}
 * field; and the rounding of limits that are not whole microseconds, in both directions.
 */
class RedisEquivalenceTest
{
    private static final long EPOCH_NS = 1_764_000_000_000_000_000L; // late 2025, ns since the Unix epoch
    private static RedisFixture redis;

    @BeforeAll
    static void start() throws Exception
    {
        redis = new RedisFixture();
    }

    @AfterAll
    static void stop() throws Exception
    {
        redis.close();
    }

    private static RedisRateLimiter redisLimiter(final Limit limit, final String prefix)
    {
        // Simulated time runs faster than the real one: keep keys alive past their simulated expiry.
        return RedisRateLimiter.builder(redis.connection, limit, FailPolicy.CLOSED)
            .prefix(prefix).extraTtlMs(600_000).timeoutNs(TimeUnit.SECONDS.toNanos(5)).build();
    }

    @Test
    void sameDecisionsAsTheEngineOnWholeMicrosecondLimits()
    {
        final Random random = new Random(12);
        for (int round = 0; round < 4; round++)
        {
            final long intervalUs = 1_000 + random.nextInt(40_000);
            final long burst = 1 + random.nextInt(8);
            final Limit limit = Limit.ofGcra(intervalUs * 1000, (burst - 1) * intervalUs * 1000 + (round % 2) * 1000L * random.nextInt((int)intervalUs));
            final MicrosLimit micros = MicrosLimit.of(limit);
            assertEquals(limit, micros.effective(), "whole-us limits are not rounded");
            runTrace(random, limit, limit, 1000, 1000, "eq" + round);
        }
    }

    @Test
    void sameDecisionsAsTheEngineWithTheRoundedLimitOtherwise()
    {
        final Random random = new Random(34);
        for (int round = 0; round < 4; round++)
        {
            final long intervalNs = 1_000_000 + random.nextInt(40_000_000) | 1; // odd: never whole us
            final long toleranceNs = random.nextInt(8) * intervalNs + random.nextInt((int)intervalNs);
            final Limit limit = Limit.ofGcra(intervalNs, toleranceNs);
            final MicrosLimit micros = MicrosLimit.of(limit);
            // caller times with sub-us parts too: both sides see them floored to whole us
            runTrace(random, limit, micros.effective(), 1000, 1, "rd" + round);
        }
    }

    @Test
    void roundingNeverLoosensTheLimitAndIsTight()
    {
        final Random random = new Random(56);
        for (int i = 0; i < 200_000; i++)
        {
            final long intervalNs = 1 + (random.nextBoolean() ? random.nextInt(5_000) : (random.nextLong() >>> 24));
            final long maxTolerance = Math.min(Limit.MAX_CEILING_NS / 2000, Long.MAX_VALUE / 4) - intervalNs;
            final long toleranceNs = random.nextBoolean() ? random.nextInt(10) * intervalNs + random.nextInt(1000) :
                Math.floorMod(random.nextLong(), Math.max(1, maxTolerance));
            final Limit limit = Limit.ofGcra(intervalNs, toleranceNs);
            final MicrosLimit m = MicrosLimit.of(limit);
            final long t1 = m.emissionIntervalUs() * 1000;
            // T' rounds up: never a faster rate, and by less than 1 us.
            assertTrue(t1 >= intervalNs && t1 - intervalNs < 1000, limit::toString);
            // tau'/T' <= tau/T (never a larger burst), and tau' is the largest such integer (tight).
            final BigInteger tau = BigInteger.valueOf(toleranceNs);
            final BigInteger t = BigInteger.valueOf(intervalNs);
            final BigInteger tPrime = BigInteger.valueOf(m.emissionIntervalUs());
            assertTrue(BigInteger.valueOf(m.toleranceUs()).multiply(t).compareTo(tau.multiply(tPrime)) <= 0, limit::toString);
            assertTrue(BigInteger.valueOf(m.toleranceUs() + 1).multiply(t).compareTo(tau.multiply(tPrime)) > 0, limit::toString);
            assertTrue(m.burst() <= limit.burst(), limit::toString);
        }
    }

    /**
     * Runs one trace through Redis (limit) and the engine (engineLimit) and compares every decision; also checks
     * that Redis's admissions per key respect the GCRA bound of the limit as given.
     */
    private static void runTrace(
        final Random random, final Limit limit, final Limit engineLimit, final int steps, final long grainNs,
        final String name)
    {
        final String prefix = "cellrate-test:" + name + ":" + random.nextLong() + ":";
        final RedisRateLimiter onRedis = redisLimiter(limit, prefix);
        final KeyedRateLimiter engine = KeyedRateLimiter.builder(engineLimit).expectedKeys(1024).build();
        final Decision fromRedis = new Decision();
        final Decision fromEngine = new Decision();
        final int keys = 64;
        final List<List<long[]>> admitted = new ArrayList<>();
        for (int k = 0; k < keys; k++)
        {
            admitted.add(new ArrayList<>());
        }
        final long intervalNs = limit.emissionIntervalNs();
        long nowNs = EPOCH_NS + random.nextInt(1_000_000) * 1000L;
        int admissions = 0;
        int rejections = 0;
        for (int i = 0; i < steps; i++)
        {
            final int k = random.nextInt(4) == 0 ? random.nextInt(keys) : random.nextInt(4);
            final String key = "k" + k;
            final long permits = 1 + random.nextInt((int)limit.burst() + 1); // 1 .. b+1
            final long step = Math.floorMod(random.nextLong(), intervalNs / 2 + 1);
            nowNs += random.nextInt(20) == 0 ? -step : step; // sometimes backwards
            nowNs -= Math.floorMod(nowNs, grainNs);
            final boolean async = i % 7 == 3;
            final long code = async ?
                asyncDecision(onRedis, key, permits, nowNs, fromRedis) :
                onRedis.tryAcquire(key, permits, nowNs, fromRedis);
            final long engineNowNs = nowNs - Math.floorMod(nowNs, 1000);
            final long expected = engine.tryAcquire(key, permits, engineNowNs, fromEngine);
            final String where = name + " step " + i + " key " + key + " permits " + permits + " limit " + limit;
            assertEquals(expected, code, where);
            assertEquals(fromEngine.code(), fromRedis.code(), where);
            assertEquals(fromEngine.retryAfterNs(), fromRedis.retryAfterNs(), where);
            assertEquals(fromEngine.remaining(), fromRedis.remaining(), where);
            assertEquals(fromEngine.resetAfterNs(), fromRedis.resetAfterNs(), where);
            assertEquals(fromEngine.limit(), fromRedis.limit(), where);
            if (Result.ADMITTED == code)
            {
                admissions++;
                admitted.get(k).add(new long[] {engineNowNs, permits});
            }
            else
            {
                rejections++;
            }
        }
        assertEquals(0, onRedis.fallbacks(), "no fallback on a healthy server");
        assertTrue(admissions > steps / 10 && rejections > steps / 10,
            name + ": a trace must exercise both outcomes: " + admissions + " admitted, " + rejections + " rejected");
        for (final List<long[]> perKey : admitted)
        {
            assertGcraBound(perKey, limit, name);
        }
        onRedis.close();
    }

    /**
     * Every window [t_i, t_j] between admissions (in arrival order, times possibly unsorted): the permits admitted
     * at times inside it cost at most tau + T + (t_j - t_i) of the limit as given.
     */
    static void assertGcraBound(final List<long[]> admissions, final Limit limit, final String name)
    {
        final List<long[]> sorted = new ArrayList<>(admissions);
        sorted.sort((a, b) -> Long.compare(a[0], b[0]));
        final int n = sorted.size();
        for (int i = 0; i < n; i++)
        {
            long permits = 0;
            for (int j = i; j < n; j++)
            {
                permits += sorted.get(j)[1];
                final long windowNs = sorted.get(j)[0] - sorted.get(i)[0];
                assertTrue(
                    BigInteger.valueOf(permits).multiply(BigInteger.valueOf(limit.emissionIntervalNs()))
                        .compareTo(BigInteger.valueOf(limit.ceilingNs() + windowNs)) <= 0,
                    name + ": " + permits + " permits in " + windowNs + " ns exceed " + limit);
            }
        }
    }

    private static long asyncDecision(
        final RedisRateLimiter limiter, final String key, final long permits, final long nowNs, final Decision decision)
    {
        final CompletableFuture<Long> done = new CompletableFuture<>();
        limiter.tryAcquireAsync(key, permits, nowNs, decision, done::complete);
        return done.join();
    }
}
