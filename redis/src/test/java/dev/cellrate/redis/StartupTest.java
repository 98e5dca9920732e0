package dev.cellrate.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellrate.Limit;
import dev.cellrate.Result;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Start-up: a Redis that is down when the limiter is built is covered by the fail policy (building never throws
 * for it), the limiter connects when Redis appears, and the script is loaded before the first decision.
 */
class StartupTest
{
    private static final long EPOCH_NS = 1_764_000_000_000_000_000L;
    /** The longest from Redis listening to Redis deciding: a retry interval (1 s at most) plus a loaded machine. */
    private static final long RECONNECT_BOUND_NS = TimeUnit.SECONDS.toNanos(5);

    @ParameterizedTest
    @EnumSource(FailPolicy.class)
    void redisDownAtStartUpIsCoveredByTheFailPolicyThenDecidesOnceItIsUp(final FailPolicy policy) throws Exception
    {
        final RedisServer server = RedisServer.unstarted();
        final RedisClient client = RedisClient.create();
        try
        {
            final Limit limit = Limit.perSecond(10, 5);
            final long buildStartNs = System.nanoTime();
            final RedisRateLimiter limiter = RedisRateLimiter.builder(client, server.uri(), limit, policy)
                .startupWaitNs(TimeUnit.MILLISECONDS.toNanos(200)).timeoutNs(TimeUnit.SECONDS.toNanos(2)).build();
            assertTrue(System.nanoTime() - buildStartNs < TimeUnit.SECONDS.toNanos(3), "build waited at most its start-up wait");
            assertFalse(limiter.connected());
            int admitted = 0;
            for (int i = 0; i < 30; i++)
            {
                final long code = limiter.tryAcquire("k", 1, EPOCH_NS);
                switch (policy)
                {
                    case OPEN -> assertEquals(RedisRateLimiter.ADMITTED_FAIL_OPEN, code);
                    case CLOSED -> assertEquals(RedisRateLimiter.REJECTED_FAIL_CLOSED, code);
                    default -> assertTrue(Result.ADMITTED == code || code > 0, "local cell codes: " + code);
                }
                admitted += Result.isAdmitted(code) ? 1 : 0;
            }
            final CompletableFuture<Long> async = new CompletableFuture<>();
            limiter.tryAcquireAsync("k", 1, EPOCH_NS, null, async::complete);
            async.get(5, TimeUnit.SECONDS);
            if (FailPolicy.LOCAL == policy)
            {
                assertEquals(limit.burst(), admitted, "the local cell keeps the limit");
            }
            assertEquals(31, limiter.fallbacks(FallbackCause.NOT_CONNECTED), "every answer named its cause");
            assertEquals(31, limiter.fallbacks());
            assertEquals(0, limiter.roundTrips());
            assertEquals(0, limiter.breakerOpenings(), "start-up does not count against the breaker");

            server.launch();
            final long upNs = System.nanoTime();
            long code = Long.MIN_VALUE;
            while (System.nanoTime() - upNs < 2 * RECONNECT_BOUND_NS && limiter.roundTrips() == 0)
            {
                code = limiter.tryAcquire("fresh", 1, EPOCH_NS);
                Thread.sleep(10);
            }
            final long tookNs = System.nanoTime() - upNs;
            assertEquals(Result.ADMITTED, code, "Redis decides");
            assertTrue(tookNs < RECONNECT_BOUND_NS, "Redis decided " + tookNs / 1_000_000 + " ms after it listened");
            assertTrue(limiter.connected());
            assertEquals(0, limiter.scriptReloads(), "the script was loaded before the first decision");
            assertFalse(limiter.breakerOpen());
            limiter.close();
        }
        finally
        {
            client.shutdown();
            server.stop();
        }
    }

    @Test
    void theScriptIsLoadedBeforeTheFirstDecisionAndTheWarmUpIsNotADecision() throws Exception
    {
        try (RedisFixture redis = new RedisFixture();
             StatefulRedisConnection<String, String> admin = redis.client.connect(StringCodec.UTF8))
        {
            admin.sync().scriptFlush();
            final RedisRateLimiter limiter = RedisRateLimiter.builder(redis.connection, Limit.perSecond(10, 5),
                FailPolicy.CLOSED).prefix("warm:").timeoutNs(TimeUnit.SECONDS.toNanos(2)).build();
            assertTrue(limiter.connected());
            assertTrue(admin.sync().scriptExists(GcraScript.sha1()).get(0), "loaded by build()");
            assertEquals(0, limiter.roundTrips(), "the warm-up call is not a decision");
            assertEquals(0L, admin.sync().dbsize(), "the warm-up call wrote nothing");
            assertEquals(Result.ADMITTED, limiter.tryAcquire("k", 1));
            assertEquals(0, limiter.scriptReloads(), "no NOSCRIPT on the first decision");
            assertEquals(1, limiter.roundTrips());
            limiter.close();
            assertEquals(RedisRateLimiter.REJECTED_FAIL_CLOSED, limiter.tryAcquire("k", 1), "closed: the policy answers");
        }
    }

    @Test
    void aLocalCellThatStartsSpentAddsNoBurstOnTopOfRedis() throws Exception
    {
        final RedisServer server = RedisServer.unstarted(); // down: every call is a LOCAL fallback
        final RedisClient client = RedisClient.create();
        try
        {
            final Limit limit = Limit.perSecond(10, 5); // T = 100 ms
            final RedisRateLimiter limiter = RedisRateLimiter.builder(client, server.uri(), limit, FailPolicy.LOCAL)
                .localInitialPermits(0).startupWaitNs(0).build();
            int admitted = 0;
            for (int i = 0; i < 20; i++)
            {
                admitted += Result.isAdmitted(limiter.tryAcquire("k", 1, EPOCH_NS)) ? 1 : 0;
            }
            assertEquals(0, admitted, "no burst from the local cell");
            assertEquals(Result.ADMITTED, limiter.tryAcquire("k", 1, EPOCH_NS + 100_000_000L), "then the rate");
            assertTrue(limiter.tryAcquire("k", 1, EPOCH_NS + 100_000_000L) > 0);
            final IllegalArgumentException bad = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> RedisRateLimiter.builder(client, server.uri(), limit, FailPolicy.LOCAL).localInitialPermits(6));
            assertEquals("localInitialPermits must be in [0, 5] but was 6", bad.getMessage());
            limiter.close();
        }
        finally
        {
            client.shutdown();
        }
    }
}
