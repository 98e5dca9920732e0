package dev.cellrate.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A batch decides several keys in one round trip, each exactly as the engine decides it one after the other.
 */
class BatchTest
{
    private static final long EPOCH_NS = 1_764_000_000_000_000_000L;
    @RegisterExtension
    static final SharedRedis redis = new SharedRedis();

    @Test
    void eachKeyOfABatchIsDecidedAsTheEngineDecidesItInOneRoundTrip()
    {
        final Limit limit = Limit.ofGcra(10_000_000, 40_000_000); // 100/s, burst 5
        final String prefix = "batch:" + System.nanoTime() + ":";
        final RedisRateLimiter onRedis = RedisRateLimiter.builder(redis.connection, limit, FailPolicy.CLOSED)
            .prefix(prefix).timeoutNs(TimeUnit.SECONDS.toNanos(5)).build();
        final KeyedRateLimiter engine = KeyedRateLimiter.builder(limit).expectedKeys(64).build();
        redis.admin.sync().hset(prefix + "poisoned", "f", "v");
        final SplittableRandom random = new SplittableRandom(21);
        final CharSequence[] keys = new CharSequence[32];
        final long[] permits = new long[32];
        final long[] codes = new long[32];
        long nowNs = EPOCH_NS;
        long decisions = 0;
        for (int round = 0; round < 40; round++)
        {
            if (round == 20)
            {
                redis.admin.sync().scriptFlush(); // the batch is re-sent with EVAL, once
            }
            nowNs += 1_000_000L * random.nextInt(30);
            for (int i = 0; i < 32; i++)
            {
                keys[i] = random.nextInt(50) == 0 ? "poisoned" : "k" + random.nextInt(12); // repeats in a batch
                permits[i] = random.nextInt(40) == 0 ? 6 : 1 + random.nextInt(2); // 6 > burst: NEVER
            }
            final int admitted = onRedis.tryAcquireBatch(keys, permits, 32, nowNs, codes);
            int expectedAdmitted = 0;
            for (int i = 0; i < 32; i++)
            {
                final long expected = "poisoned".equals(keys[i]) ?
                    RedisRateLimiter.REJECTED_KEY_ERROR : engine.tryAcquire(keys[i], permits[i], nowNs);
                assertEquals(expected, codes[i], "round " + round + " key " + i + " " + keys[i]);
                expectedAdmitted += Result.isAdmitted(expected) ? 1 : 0;
                decisions += permits[i] == 6 ? 0 : 1;
            }
            assertEquals(expectedAdmitted, admitted);
        }
        assertEquals(40, onRedis.roundTrips(), "one round trip per batch");
        assertEquals(1, onRedis.scriptReloads());
        assertEquals(0, onRedis.fallbacks());
        assertTrue(decisions > 1000);
        onRedis.close();
    }

    @Test
    void aBatchOnServerTimeAndOddCounts()
    {
        final RedisRateLimiter onRedis = RedisRateLimiter.builder(redis.connection, Limit.ofGcra(10_000_000_000L, 0),
            FailPolicy.CLOSED).prefix("batch-server:" + System.nanoTime() + ":").timeoutNs(TimeUnit.SECONDS.toNanos(5)).build();
        final long[] codes = new long[3];
        assertEquals(2, onRedis.tryAcquireBatch(new CharSequence[] {"a", "b", "a"}, new long[] {1, 1, 1}, 3, codes));
        assertEquals(Result.ADMITTED, codes[0]);
        assertEquals(Result.ADMITTED, codes[1]);
        assertTrue(codes[2] > 9_000_000_000L && codes[2] <= 10_000_000_000L, "the second 'a' waits: " + codes[2]);
        assertEquals(0, onRedis.tryAcquireBatch(new CharSequence[0], new long[0], 0, codes));
        assertEquals(0, onRedis.tryAcquireBatch(new CharSequence[] {"c"}, new long[] {0}, 1, codes));
        assertEquals(Result.NEVER, codes[0], "no round trip for a batch of NEVERs");
        assertEquals(1, onRedis.roundTrips());
        final IllegalArgumentException tooMany = assertThrows(IllegalArgumentException.class,
            () -> onRedis.tryAcquireBatch(new CharSequence[2], new long[2], 3, new long[3]));
        assertEquals("count must be in [0, 2] but was 3", tooMany.getMessage());
        onRedis.close();
    }

    @Test
    void anAsynchronousBatchFillsTheCodesThenCallsBackOnce() throws Exception
    {
        final Limit limit = Limit.ofGcra(10_000_000, 40_000_000); // 100/s, burst 5
        final String prefix = "batch-async:" + System.nanoTime() + ":";
        final RedisRateLimiter onRedis = RedisRateLimiter.builder(redis.connection, limit, FailPolicy.CLOSED)
            .prefix(prefix).timeoutNs(TimeUnit.SECONDS.toNanos(5)).build();
        final KeyedRateLimiter engine = KeyedRateLimiter.builder(limit).expectedKeys(64).build();
        redis.admin.sync().set(prefix + "poisoned", "not a TAT");
        final CharSequence[] keys = new CharSequence[16];
        final long[] permits = new long[16];
        long nowNs = EPOCH_NS;
        for (int round = 0; round < 10; round++)
        {
            nowNs += 7_000_000L;
            for (int i = 0; i < 16; i++)
            {
                keys[i] = i == 5 ? "poisoned" : "k" + (i % 4);
                permits[i] = i == 9 ? 0 : 1;
            }
            final long[] codes = new long[16];
            final CompletableFuture<Integer> done = new CompletableFuture<>();
            onRedis.tryAcquireBatchAsync(keys, permits, 16, nowNs, codes, done::complete);
            final int admitted = done.get(5, TimeUnit.SECONDS);
            int expectedAdmitted = 0;
            for (int i = 0; i < 16; i++)
            {
                final long expected = i == 5 ? RedisRateLimiter.REJECTED_KEY_ERROR :
                    i == 9 ? Result.NEVER : engine.tryAcquire(keys[i], permits[i], nowNs);
                assertEquals(expected, codes[i], "round " + round + " key " + i);
                expectedAdmitted += Result.isAdmitted(expected) ? 1 : 0;
            }
            assertEquals(expectedAdmitted, admitted);
        }
        assertEquals(0, onRedis.fallbacks());
        onRedis.close();
    }

    @Test
    void anAsynchronousBatchTimesOutByThePolicyAndALateReplyLeavesTheCodesAlone() throws Exception
    {
        final RedisRateLimiter onRedis = RedisRateLimiter.builder(redis.connection, Limit.perSecond(1000, 10),
            FailPolicy.CLOSED).prefix("batch-late:" + System.nanoTime() + ":").timeoutNs(TimeUnit.MILLISECONDS.toNanos(100))
            .build();
        FaultTest.debugSleep(redis.admin, "1.0");
        Thread.sleep(50);
        final long[] codes = new long[4];
        final CompletableFuture<Integer> done = new CompletableFuture<>();
        final long startNs = System.nanoTime();
        onRedis.tryAcquireBatchAsync(new CharSequence[] {"a", "b", "c", "d"}, new long[] {1, 1, 1, 1}, 4, codes,
            done::complete);
        assertEquals(0, done.get(5, TimeUnit.SECONDS));
        assertTrue(System.nanoTime() - startNs < TimeUnit.MILLISECONDS.toNanos(500), "answered by the timeout");
        for (final long code : codes)
        {
            assertEquals(RedisRateLimiter.REJECTED_FAIL_CLOSED, code);
        }
        assertEquals(4, onRedis.fallbacks(FallbackCause.TIMEOUT));
        Thread.sleep(1200); // Redis wakes and answers the batch: admitted, but too late
        for (final long code : codes)
        {
            assertEquals(RedisRateLimiter.REJECTED_FAIL_CLOSED, code, "the late reply did not touch the codes");
        }
        onRedis.close();
    }
}
