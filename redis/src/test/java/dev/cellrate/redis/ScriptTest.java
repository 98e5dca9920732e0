package dev.cellrate.redis;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellrate.Decision;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * The script's storage contract (one key per cell under the prefix, integer us, expiry = TAT - now rounded up
 * to ms), server time, odd inputs that must answer instead of throwing, configuration errors, and the
 * allocation-free local path of the two-tier front.
 */
class ScriptTest
{
    private static final long EPOCH_NS = 1_764_000_000_000_000_000L;
    @RegisterExtension
    static final SharedRedis redis = new SharedRedis();

    @Test
    void oneKeyPerCellHoldingTheTatInMicrosecondsExpiringAtTheTat()
    {
        final Limit limit = Limit.ofGcra(3_000_000_000L, 6_000_000_000L); // one per 3 s, burst 3
        final RedisRateLimiter limiter = builder(limit, FailPolicy.CLOSED)
            .prefix("rl:{tenant}:").extraTtlMs(0).build();
        final long nowNs = System.currentTimeMillis() * 1_000_000L + 1_234; // sub-us part is floored
        final Decision decision = new Decision();
        assertEquals(Result.ADMITTED, limiter.tryAcquire("user-1", 2, nowNs, decision));
        final RedisCommands<String, String> sync = redis.admin.sync();
        final long nowUs = nowNs / 1000;
        assertEquals(Long.toString(nowUs + 6_000_000), sync.get("rl:{tenant}:user-1"), "TAT = now + 2 T in us");
        final long pttl = sync.pttl("rl:{tenant}:user-1");
        assertTrue(pttl > 5_000 && pttl <= 6_000, "expiry = TAT - now: " + pttl);
        assertEquals(1, decision.remaining());
        assertEquals(6_000_000_000L, decision.resetAfterNs());
        assertEquals(3, decision.limit());
        // the exact retry-after of the engine, in whole us
        assertEquals(3_000_000_000L, limiter.tryAcquire("user-1", 2, nowNs));
        limiter.close();
    }

    @Test
    void expiryRoundsUpSoASubMillisecondLagStillExpiresLater()
    {
        // A lag of 1 us: floored to ms it would be PX 0, which Redis refuses (an error, a fallback); rounded up
        // it is PX 1.
        final RedisRateLimiter limiter = builder(Limit.ofGcra(1_000, 0), FailPolicy.CLOSED).prefix("sub-ms:").build();
        for (int i = 0; i < 20; i++)
        {
            assertEquals(Result.ADMITTED, limiter.tryAcquire("k" + i, 1, System.currentTimeMillis() * 1_000_000L));
        }
        assertEquals(0, limiter.fallbacks());
        limiter.close();
    }

    @Test
    void aCallerPausedPastTheKeysExpiryGetsNoFreshBurst() throws Exception
    {
        // A thread reads its clock, then pauses (a GC, descheduled) before its call reaches Redis: its caller time
        // lags the server's clock by the pause. With the key's expiry at exactly TAT - now, a pause longer than
        // that lag meets an expired key, i.e. a fresh cell, and a burst already spent at that same instant is
        // handed out again. The default extra expiry (1 s) covers such pauses.
        final Limit limit = Limit.ofGcra(1_000_000, 9_000_000); // 1000/s, burst 10: a spent burst lags 10 ms
        final RedisRateLimiter limiter = builder(limit, FailPolicy.CLOSED)
            .prefix("paused:" + System.nanoTime() + ":").build();
        final long stampNs = System.currentTimeMillis() * 1_000_000L;
        int admitted = 0;
        while (Result.ADMITTED == limiter.tryAcquire("k", 1, stampNs))
        {
            admitted++;
        }
        assertEquals(10, admitted);
        Thread.sleep(60); // the paused thread: longer than the 10 ms lag, far shorter than the default extra expiry
        assertTrue(Result.ADMITTED != limiter.tryAcquire("k", 1, stampNs), "the burst of that instant is spent");
        assertEquals(0, limiter.fallbacks());
        limiter.close();
    }

    /** Timeouts generous enough for a loaded machine: these tests are not about timeouts. */
    private static RedisRateLimiterBuilder builder(final Limit limit, final FailPolicy policy)
    {
        return RedisRateLimiter.builder(redis.connection, limit, policy).timeoutNs(TimeUnit.SECONDS.toNanos(5));
    }

    @Test
    void serverTimeDecides()
    {
        final Limit limit = Limit.ofGcra(10_000_000_000L, 0); // one per 10 s
        final RedisRateLimiter limiter = builder(limit, FailPolicy.CLOSED)
            .prefix("server-time:" + System.nanoTime() + ":").build();
        final Decision decision = new Decision();
        assertEquals(Result.ADMITTED, limiter.tryAcquire("k", 1, decision));
        assertEquals(10_000_000_000L, decision.resetAfterNs());
        final long retryNs = limiter.tryAcquire("k", 1);
        assertTrue(retryNs > 9_000_000_000L && retryNs <= 10_000_000_000L, "retry-after on the server clock: " + retryNs);
        assertTrue(retryNs % 1000 == 0);
        final byte[] raw = "k".getBytes(StandardCharsets.UTF_8);
        assertTrue(limiter.tryAcquire(raw, 0, 1, 1) > 0, "byte keys are the same key");
        limiter.close();
    }

    @Test
    void asynchronousFormsOnServerTime() throws Exception
    {
        final Limit limit = Limit.ofGcra(10_000_000_000L, 10_000_000_000L); // one per 10 s, burst 2
        final RedisRateLimiter limiter = builder(limit, FailPolicy.CLOSED).prefix("async:" + System.nanoTime() + ":").build();
        final Decision first = limiter.tryAcquireAsync("k", 1).toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertEquals(Result.ADMITTED, first.code());
        assertEquals(1, first.remaining());
        final java.util.concurrent.CompletableFuture<Long> done = new java.util.concurrent.CompletableFuture<>();
        final Decision second = new Decision();
        limiter.tryAcquireAsync("k", 2, second, done::complete);
        final long code = done.get(5, TimeUnit.SECONDS);
        assertTrue(code > 0 && code == second.retryAfterNs(), "rejected with the retry-after in the holder: " + second);
        final java.util.concurrent.CompletableFuture<Long> never = new java.util.concurrent.CompletableFuture<>();
        limiter.tryAcquireAsync("k", 3, null, never::complete);
        assertEquals(Result.NEVER, never.getNow(0L), "answered at once, no round trip");
        assertEquals(2, limiter.roundTrips());
        limiter.close();
    }

    @Test
    void oddInputsAnswerWithoutThrowingOrCallingRedis()
    {
        final Limit limit = Limit.perSecond(10, 5);
        final RedisRateLimiter limiter = builder(limit, FailPolicy.OPEN)
            .prefix("odd:").build();
        final Decision decision = new Decision();
        assertEquals(Result.NEVER, limiter.tryAcquire("k", 0, EPOCH_NS));
        assertEquals(Result.NEVER, limiter.tryAcquire("k", 6, EPOCH_NS, decision));
        assertEquals(Result.NEVER, decision.code());
        assertEquals(Result.NEVER, limiter.tryAcquire("k", -1));
        assertEquals(Result.NEVER, limiter.tryAcquire("k", Long.MAX_VALUE));
        assertEquals(Result.NEVER, limiter.tryAcquire("k", 1, -5), "a time before the epoch");
        assertEquals(Result.NEVER, limiter.tryAcquire("k", 1, Long.MAX_VALUE), "a time past 2^53 us");
        assertEquals(0, limiter.roundTrips(), "none of these needed Redis");
        assertEquals(0, limiter.fallbacks(), "nor were they fallbacks");

        // a value the script cannot read, or a key of another type, is answered for that key alone (KeyErrorTest)
        redis.admin.sync().set("odd:garbage", "not a number");
        assertEquals(RedisRateLimiter.REJECTED_KEY_ERROR, limiter.tryAcquire("garbage", 1, EPOCH_NS));
        redis.admin.sync().lpush("odd:list", "x");
        assertEquals(RedisRateLimiter.REJECTED_KEY_ERROR, limiter.tryAcquire("list", 1, EPOCH_NS));
        assertEquals(0, limiter.fallbacks());
        assertEquals(2, limiter.keyErrors());
        limiter.close();
    }

    @Test
    void keysAreUtf8AfterThePrefix()
    {
        final byte[] prefix = "p:".getBytes(StandardCharsets.UTF_8);
        for (final String key : new String[] {"", "plain", "é", "€uro", "😀x", "a\uD800b", "\uDC00"})
        {
            final byte[] expected = ("p:" + key).getBytes(StandardCharsets.UTF_8);
            assertArrayEquals(expected, RedisKeys.encode(prefix, key), key);
            assertArrayEquals(expected, RedisKeys.encode(prefix, new StringBuilder(key)), key);
        }
    }

    @Test
    void longKeysAreTheirDecimalDigits()
    {
        final byte[] prefix = "p:".getBytes(StandardCharsets.UTF_8);
        for (final long key : new long[] {0, 7, -7, 10, 1234567890123L, Long.MAX_VALUE, Long.MIN_VALUE})
        {
            assertArrayEquals(("p:" + key).getBytes(StandardCharsets.UTF_8), RedisKeys.encode(prefix, key), "" + key);
        }
        final RedisRateLimiter limiter = builder(Limit.ofGcra(1_000_000_000, 0), FailPolicy.CLOSED).prefix("long:" + System.nanoTime() + ":").build();
        assertEquals(Result.ADMITTED, limiter.tryAcquire(42L, 1, EPOCH_NS));
        assertTrue(limiter.tryAcquire("42", 1, EPOCH_NS) > 0, "the long key 42 is the key \"42\"");
        final dev.cellrate.KeyedLimiter asContract = limiter;
        assertTrue(asContract.tryAcquire(42L, 1, EPOCH_NS, new Decision()) > 0);
        limiter.close();
    }

    @Test
    void badConfigurationFailsAtConstructionNamingTheField()
    {
        final Limit limit = Limit.perSecond(10, 5);
        assertThrows(IllegalArgumentException.class, () -> RedisRateLimiter.builder(redis.connection, limit, null));
        final IllegalArgumentException timeout = assertThrows(IllegalArgumentException.class,
            () -> RedisRateLimiter.builder(redis.connection, limit, FailPolicy.OPEN).timeoutNs(0));
        assertTrue(timeout.getMessage().startsWith("timeoutNs must be in ["), timeout.getMessage());
        final IllegalArgumentException huge = assertThrows(IllegalArgumentException.class,
            () -> RedisRateLimiter.builder(redis.connection, Limit.ofGcra(1L << 61, 1L << 61), FailPolicy.OPEN));
        assertTrue(huge.getMessage().contains("ceiling in us"), huge.getMessage());
        for (final String[] bad : new String[][] {
            {"circuitBreaker windowCalls must be in [1, 10000] but was 0", "0", "1", "50", "1000000"},
            {"circuitBreaker minimumCalls must be in [1, 10] but was 11", "10", "11", "50", "1000000"},
            {"circuitBreaker failureRatePercent must be in [1, 100] but was 101", "10", "5", "101", "1000000"},
            {"circuitBreaker openNs must be in [1000000, 3600000000000] but was 999", "10", "5", "50", "999"}})
        {
            final IllegalArgumentException breaker = assertThrows(IllegalArgumentException.class,
                () -> RedisRateLimiter.builder(redis.connection, limit, FailPolicy.OPEN).circuitBreaker(
                    Integer.parseInt(bad[1]), Integer.parseInt(bad[2]), Integer.parseInt(bad[3]), Long.parseLong(bad[4])));
            assertEquals(bad[0], breaker.getMessage());
        }
        final IllegalArgumentException wait = assertThrows(IllegalArgumentException.class,
            () -> RedisRateLimiter.builder(redis.connection, limit, FailPolicy.OPEN).startupWaitNs(-1));
        assertTrue(wait.getMessage().startsWith("startupWaitNs must be in [0, "), wait.getMessage());
        final RedisRateLimiter limiter = RedisRateLimiter.builder(redis.connection, limit, FailPolicy.OPEN).build();
        final IllegalArgumentException lease = assertThrows(IllegalArgumentException.class,
            () -> new LeasingRateLimiter(limiter, 0, 1_000_000_000, 16));
        assertTrue(lease.getMessage().startsWith("leaseIntervals must be in ["), lease.getMessage());
        limiter.close();
    }

    @Test
    void twoTierLocalAdmissionsAllocateNothing()
    {
        final java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean)bean;
        assertTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled());
        final Limit limit = Limit.ofGcra(1_000, (1L << 40) * 1_000); // 1 per us, a huge burst
        final RedisRateLimiter limiter = builder(limit, FailPolicy.CLOSED)
            .prefix("alloc:" + System.nanoTime() + ":").build();
        final LeasingRateLimiter leasing = new LeasingRateLimiter(limiter, 1 << 20, TimeUnit.HOURS.toNanos(1), 16);
        final String key = "hot";
        final long nowNs = System.currentTimeMillis() * 1_000_000L;
        final long threadId = Thread.currentThread().getId();
        long minBytes = Long.MAX_VALUE;
        for (int round = 0; round < 6 && minBytes != 0; round++)
        {
            assertEquals(Result.ADMITTED, leasing.tryAcquire(key, 1, nowNs, null)); // may renew: outside the count
            final long before = threads.getThreadAllocatedBytes(threadId);
            long admitted = 0;
            for (int i = 0; i < 100_000; i++)
            {
                admitted += Result.ADMITTED == leasing.tryAcquire(key, 1, nowNs, null) ? 1 : 0;
            }
            minBytes = Math.min(minBytes, threads.getThreadAllocatedBytes(threadId) - before);
            assertEquals(100_000, admitted);
        }
        assertEquals(0, minBytes, "bytes allocated by 100,000 local admissions");
        assertTrue(leasing.localAdmissions() >= 100_000, "decided locally: " + leasing.localAdmissions());
        limiter.close();
    }

    @Test
    void scriptShaIsWhatRedisComputes()
    {
        assertEquals(GcraScript.sha1(), redis.admin.sync().scriptLoad(new String(GcraScript.SOURCE, StandardCharsets.UTF_8)));
    }
}
