package dev.cellrate.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellrate.Decision;
import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Faults against a real redis-server: SCRIPT FLUSH mid-run, server stop and restart, connection loss, a slow
 * server (DEBUG SLEEP) against the timeout, and the circuit breaker; for each fail policy, with every fallback
 * counted.
 */
class FaultTest
{
    private static final long EPOCH_NS = 1_764_000_000_000_000_000L;
    private static final long TIMEOUT_NS = TimeUnit.MILLISECONDS.toNanos(100);
    /** Scheduling slack on a loaded 2-core machine; a blocked call would take the whole DEBUG SLEEP instead. */
    private static final long SLACK_NS = TimeUnit.MILLISECONDS.toNanos(400);

    /** Stall the server (single-threaded) for the given seconds without waiting for it. */
    static void debugSleep(final StatefulRedisConnection<String, String> admin, final String seconds)
    {
        admin.async().dispatch(io.lettuce.core.protocol.CommandType.DEBUG,
            new io.lettuce.core.output.StatusOutput<>(StringCodec.UTF8),
            new io.lettuce.core.protocol.CommandArgs<>(StringCodec.UTF8).add("SLEEP").add(seconds));
    }

    /**
     * Until Redis has decided once: a cold JVM on a loaded machine can miss the 100 ms timeout on its first
     * call. Returns the fallbacks counted meanwhile, so assertions can start from there.
     */
    static long warm(final RedisRateLimiter limiter, final String key, final long nowNs) throws InterruptedException
    {
        for (int i = 0; i < 100 && limiter.roundTrips() == 0; i++)
        {
            final long code = limiter.tryAcquire(key, 1, nowNs);
            if (limiter.roundTrips() == 0)
            {
                Thread.sleep(50);
            }
            else
            {
                assertEquals(Result.ADMITTED, code);
            }
        }
        assertEquals(1, limiter.roundTrips(), "Redis decided the warm-up call");
        return limiter.fallbacks();
    }

    private static RedisRateLimiter limiter(
        final StatefulRedisConnection<byte[], byte[]> connection, final Limit limit, final FailPolicy policy)
    {
        return limiter(connection, limit, policy, TIMEOUT_NS);
    }

    private static RedisRateLimiter limiter(
        final StatefulRedisConnection<byte[], byte[]> connection, final Limit limit, final FailPolicy policy,
        final long timeoutNs)
    {
        return RedisRateLimiter.builder(connection, limit, policy)
            .prefix("fault:" + System.nanoTime() + ":")
            .timeoutNs(timeoutNs)
            .circuitBreaker(10, 3, 50, TimeUnit.MILLISECONDS.toNanos(300))
            .extraTtlMs(600_000)
            .build();
    }

    @Test
    void scriptFlushMidRunIsAnsweredByEvalAndChangesNoDecision() throws Exception
    {
        try (RedisFixture redis = new RedisFixture();
             StatefulRedisConnection<String, String> admin = redis.client.connect(StringCodec.UTF8))
        {
            final Limit limit = Limit.ofGcra(10_000_000, 40_000_000); // 100/s, burst 5
            final RedisRateLimiter onRedis = limiter(redis.connection, limit, FailPolicy.CLOSED, TimeUnit.SECONDS.toNanos(5));
            final KeyedRateLimiter engine = KeyedRateLimiter.builder(limit).expectedKeys(64).build();
            final Decision d1 = new Decision();
            final Decision d2 = new Decision();
            long nowNs = EPOCH_NS;
            int flushes = 0;
            for (int i = 0; i < 300; i++)
            {
                if (i % 50 == 25)
                {
                    assertEquals("OK", admin.sync().scriptFlush());
                    flushes++;
                }
                nowNs += 1_000_000L * (i % 7);
                final String key = "k" + (i % 3);
                final long code;
                if (i % 2 == 0)
                {
                    code = onRedis.tryAcquire(key, 1 + i % 2, nowNs, d1);
                }
                else
                {
                    final CompletableFuture<Long> done = new CompletableFuture<>();
                    onRedis.tryAcquireAsync(key, 1 + i % 2, nowNs, d1, done::complete);
                    code = done.get(5, TimeUnit.SECONDS);
                }
                assertEquals(engine.tryAcquire(key, 1 + i % 2, nowNs, d2), code, "step " + i);
                assertEquals(d2.remaining(), d1.remaining(), "step " + i);
            }
            assertEquals(flushes, onRedis.scriptReloads(), "each flush costs exactly one EVAL (the script was loaded at start)");
            assertEquals(0, onRedis.fallbacks());
            onRedis.close();
        }
    }

    @ParameterizedTest
    @EnumSource(FailPolicy.class)
    void serverStopAndRestartForEachPolicy(final FailPolicy policy) throws Exception
    {
        try (RedisFixture redis = new RedisFixture())
        {
            final Limit limit = Limit.ofGcra(1_000_000_000, 2_000_000_000); // 1/s, burst 3
            final RedisRateLimiter onRedis = limiter(redis.connection, limit, policy);
            final long nowNs = EPOCH_NS;
            final long base = warm(onRedis, "a", nowNs);
            final long reloadsBase = onRedis.scriptReloads();
            final long logLinesBase = onRedis.fallbackLogLines();

            redis.server.stop();
            final int calls = 20;
            int admitted = 0;
            for (int i = 0; i < calls; i++)
            {
                final long startNs = System.nanoTime();
                final long code = onRedis.tryAcquire("a", 1, nowNs);
                assertTrue(System.nanoTime() - startNs < TIMEOUT_NS + SLACK_NS, "a call blocked past the timeout");
                switch (policy)
                {
                    case OPEN -> assertEquals(RedisRateLimiter.ADMITTED_FAIL_OPEN, code);
                    case CLOSED -> assertEquals(RedisRateLimiter.REJECTED_FAIL_CLOSED, code);
                    default -> assertTrue(Result.ADMITTED == code || code > 0, "local cell codes: " + code);
                }
                admitted += Result.isAdmitted(code) ? 1 : 0;
            }
            if (FailPolicy.LOCAL == policy)
            {
                assertEquals(limit.burst(), admitted, "the local cell keeps the limit by itself");
            }
            assertEquals(calls, onRedis.fallbacks() - base, "every fallback counted");
            assertTrue(onRedis.fallbacks(FallbackCause.BREAKER_OPEN) > 0, "the breaker opened once 3 calls were recorded and half failed");
            assertEquals(calls + base, onRedis.fallbacks(FallbackCause.BREAKER_OPEN) + onRedis.fallbacks(FallbackCause.ERROR) +
                onRedis.fallbacks(FallbackCause.TIMEOUT));
            final long lines = onRedis.fallbackLogLines() - logLinesBase;
            assertTrue(lines >= 0 && lines <= 2 && onRedis.fallbackLogLines() >= 1,
                "logged, at a bounded rate: " + onRedis.fallbackLogLines());
            assertEquals(1, onRedis.roundTrips(), "no round trip while the server was down");

            redis.server.launch(); // same port, empty script cache
            final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            long code = Long.MIN_VALUE;
            while (System.nanoTime() < deadlineNs)
            {
                code = onRedis.tryAcquire("b", 1, nowNs);
                if (onRedis.roundTrips() > 1)
                {
                    break;
                }
                Thread.sleep(50);
            }
            assertEquals(Result.ADMITTED, code, "Redis decides again after the restart");
            assertEquals(2, onRedis.roundTrips());
            assertEquals(reloadsBase + 1, onRedis.scriptReloads(), "the restarted server needed the script again");
            assertTrue(!onRedis.breakerOpen());
            onRedis.close();
        }
    }

    @ParameterizedTest
    @EnumSource(FailPolicy.class)
    void slowServerAgainstTheTimeoutSyncAndAsync(final FailPolicy policy) throws Exception
    {
        try (RedisFixture redis = new RedisFixture();
             StatefulRedisConnection<String, String> admin = redis.client.connect(StringCodec.UTF8))
        {
            final Limit limit = Limit.ofGcra(1_000_000_000, 0);
            final RedisRateLimiter onRedis = limiter(redis.connection, limit, policy);
            final long base = warm(onRedis, "warm", EPOCH_NS);
            debugSleep(admin, "1.0"); // the server stalls for 1 s
            Thread.sleep(50);
            final long startNs = System.nanoTime();
            final long code = onRedis.tryAcquire("x", 1, EPOCH_NS);
            final long syncNs = System.nanoTime() - startNs;
            assertTrue(syncNs >= TIMEOUT_NS && syncNs < TIMEOUT_NS + SLACK_NS, "sync call took " + syncNs + " ns");
            assertEquals(base + 1, onRedis.fallbacks());
            assertTrue(onRedis.fallbacks(FallbackCause.TIMEOUT) >= 1);

            final CompletableFuture<Long> done = new CompletableFuture<>();
            final long asyncStartNs = System.nanoTime();
            onRedis.tryAcquireAsync("y", 1, EPOCH_NS, null, done::complete);
            final long asyncCode = done.get(5, TimeUnit.SECONDS);
            final long asyncNs = System.nanoTime() - asyncStartNs;
            assertTrue(asyncNs < TIMEOUT_NS + SLACK_NS, "async call completed after " + asyncNs + " ns");
            assertEquals(base + 2, onRedis.fallbacks());
            assertTrue(onRedis.fallbacks(FallbackCause.TIMEOUT) >= 2);
            for (final long c : new long[] {code, asyncCode})
            {
                switch (policy)
                {
                    case OPEN -> assertEquals(RedisRateLimiter.ADMITTED_FAIL_OPEN, c);
                    case CLOSED -> assertEquals(RedisRateLimiter.REJECTED_FAIL_CLOSED, c);
                    default -> assertEquals(Result.ADMITTED, c); // fresh local cells
                }
            }
            Thread.sleep(1200); // the sleep ends; the late replies are discarded
            final long after = onRedis.tryAcquire("z", 1, EPOCH_NS);
            assertEquals(Result.ADMITTED, after);
            assertEquals(base + 2, onRedis.fallbacks());
            onRedis.close();
        }
    }

    @Test
    void breakerStopsAskingAfterRepeatedTimeoutsThenProbes() throws Exception
    {
        try (RedisFixture redis = new RedisFixture();
             StatefulRedisConnection<String, String> admin = redis.client.connect(StringCodec.UTF8))
        {
            final RedisRateLimiter onRedis = limiter(redis.connection, Limit.ofGcra(1_000_000, 0), FailPolicy.CLOSED);
            debugSleep(admin, "1.5");
            Thread.sleep(50);
            for (int i = 0; i < 3; i++)
            {
                assertEquals(RedisRateLimiter.REJECTED_FAIL_CLOSED, onRedis.tryAcquire("k" + i, 1, EPOCH_NS));
            }
            assertEquals(3, onRedis.fallbacks(FallbackCause.TIMEOUT));
            assertTrue(onRedis.breakerOpen());
            final long startNs = System.nanoTime();
            for (int i = 0; i < 1000; i++)
            {
                assertEquals(RedisRateLimiter.REJECTED_FAIL_CLOSED, onRedis.tryAcquire("k", 1, EPOCH_NS));
            }
            assertTrue(System.nanoTime() - startNs < TIMEOUT_NS, "an open breaker answers without waiting");
            assertEquals(1000, onRedis.fallbacks(FallbackCause.BREAKER_OPEN));
            assertEquals(1, onRedis.breakerOpenings());
            Thread.sleep(2000); // server awake, breaker period over: one probe closes it
            assertEquals(Result.ADMITTED, onRedis.tryAcquire("p", 1, EPOCH_NS));
            assertTrue(!onRedis.breakerOpen());
            onRedis.close();
        }
    }

    @Test
    void connectionLossIsCountedAndRecovered() throws Exception
    {
        try (RedisFixture redis = new RedisFixture())
        {
            final RedisClient other = redis.server.client();
            try (StatefulRedisConnection<String, String> admin = other.connect(StringCodec.UTF8))
            {
                final RedisRateLimiter onRedis = limiter(redis.connection, Limit.ofGcra(1_000, 0), FailPolicy.OPEN);
                final RedisCommands<String, String> sync = admin.sync();
                int calls = 0;
                long nowNs = EPOCH_NS;
                for (int round = 0; round < 3; round++)
                {
                    // kill every normal client but the admin one: the limiter's connection drops
                    sync.clientKill(io.lettuce.core.KillArgs.Builder.typeNormal().skipme());
                    final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                    final long before = onRedis.roundTrips();
                    while (onRedis.roundTrips() == before && System.nanoTime() < deadlineNs)
                    {
                        nowNs += 1_000_000;
                        final long code = onRedis.tryAcquire("c", 1, nowNs);
                        calls++;
                        assertTrue(Result.ADMITTED == code || RedisRateLimiter.ADMITTED_FAIL_OPEN == code, "code " + code);
                        Thread.sleep(5);
                    }
                    assertTrue(onRedis.roundTrips() > before, "reconnected");
                }
                assertEquals(calls, onRedis.roundTrips() + onRedis.fallbacks(), "every call either decided or counted");
                onRedis.close();
            }
            finally
            {
                other.shutdown();
            }
        }
    }

    @Test
    void underMaxmemoryNoevictionARejectionIsStillDecidedAndAnAdmissionIsAFallback() throws Exception
    {
        try (RedisFixture redis = new RedisFixture();
             StatefulRedisConnection<String, String> admin = redis.client.connect(StringCodec.UTF8))
        {
            final RedisRateLimiter onRedis = RedisRateLimiter.builder(redis.connection, Limit.perSecond(1000, 50),
                FailPolicy.CLOSED).prefix("oom:").timeoutNs(TimeUnit.SECONDS.toNanos(2)).build();
            final long nowNs = System.currentTimeMillis() * 1_000_000L;
            admin.sync().set("oom:full", Long.toString(nowNs / 1000 + 10_000_000)); // a cell 10 s in debt
            admin.sync().configSet("maxmemory-policy", "noeviction");
            admin.sync().configSet("maxmemory", "1");
            try
            {
                assertEquals(9_951_000_000L, onRedis.tryAcquire("full", 1, nowNs), "Redis decides a rejection");
                assertEquals(0, onRedis.fallbacks());
                assertEquals(RedisRateLimiter.REJECTED_FAIL_CLOSED, onRedis.tryAcquire("fresh", 1, nowNs),
                    "an admission needs a SET, which Redis refuses (OOM): the policy answers");
                assertEquals(1, onRedis.fallbacks(FallbackCause.ERROR));
                assertEquals(null, admin.sync().get("oom:fresh"), "nothing charged");
            }
            finally
            {
                admin.sync().configSet("maxmemory", "0");
            }
            assertEquals(Result.ADMITTED, onRedis.tryAcquire("fresh", 1, nowNs));
            onRedis.close();
        }
    }
}
