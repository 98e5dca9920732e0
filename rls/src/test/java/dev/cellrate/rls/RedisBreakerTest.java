package dev.cellrate.rls;

import dev.cellrate.redis.RedisServer;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static dev.cellrate.rls.Rls.d;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code --redis}'s circuit breaker against a real redis-server: calls that time out open it, so the fail policy
 * answers at once without asking Redis; after the open period one probe closes it again. A key that holds
 * something else refuses its own descriptor and never opens the breaker for the other keys.
 */
class RedisBreakerTest
{
    private static final String CONFIG =
        "domain: d\ndescriptors:\n  - key: k\n    rate_limit:\n      unit: hour\n      requests_per_unit: 10\n";

    private static RlsServer.Options options(final RedisServer redis) throws Exception
    {
        final Path directory = Files.createTempDirectory("rls-config");
        Files.writeString(directory.resolve("c.yaml"), CONFIG, StandardCharsets.UTF_8);
        final RlsServer.Options options = Rls.options(directory);
        options.redisUri = redis.url();
        options.redisTimeoutMs = 200;
        options.redisBreakerWindowCalls = 8;
        options.redisBreakerMinimumCalls = 4;
        options.redisBreakerFailureRatePercent = 50;
        options.redisBreakerOpenMs = 3_000;
        return options;
    }

    private static long counter(final Rls rls, final String name)
    {
        return rls.server.service().deciderCounters().getOrDefault(name, 0L);
    }

    @Test
    void timeoutsOpenTheBreakerThenTheFailPolicyAnswersWithoutAskingRedisUntilAProbeCloses() throws Exception
    {
        try (RedisServer redis = RedisServer.start();
            Rls rls = new Rls(options(redis), null))
        {
            final RedisClient client = redis.client();
            try (StatefulRedisConnection<byte[], byte[]> admin = RedisServer.connect(client))
            {
                assertEquals(Code.OK, rls.call("d", d("k", "a")).getOverallCode(), "Redis decides");
                admin.sync().clientPause(2_000); // every other client waits 2 s: each call times out after 200 ms
                for (int i = 0; i < 3; i++)
                {
                    assertEquals(Code.OVER_LIMIT, rls.call("d", d("k", "a")).getOverallCode(), "fail closed");
                }
                assertEquals(3, counter(rls, "cellrate_rls_redis_failures"));
                assertEquals(1, counter(rls, "cellrate_rls_redis_breaker_openings"),
                    "3 of the 4 recorded calls failed: at least 50 %");
                assertEquals(1, counter(rls, "cellrate_rls_redis_breaker_open"));

                for (int i = 0; i < 10; i++)
                {
                    assertEquals(Code.OVER_LIMIT, rls.call("d", d("k", "a")).getOverallCode(), "fail closed");
                }
                assertTrue(counter(rls, "cellrate_rls_redis_breaker_refusals") >= 9,
                    "open: answered without a call to Redis " + rls.server.service().deciderCounters());
                assertTrue(counter(rls, "cellrate_rls_redis_failures") <= 4, "at most one probe sent meanwhile");

                // once the open period is over, one probe reaches Redis (no longer paused) and closes the breaker
                final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (Code.OK != rls.call("d", d("k", "a")).getOverallCode())
                {
                    assertTrue(System.nanoTime() < deadlineNs, "Redis never decided again");
                    Thread.sleep(100);
                }
                assertEquals(0, counter(rls, "cellrate_rls_redis_breaker_open"));
                final long roundTrips = counter(rls, "cellrate_rls_redis_round_trips");
                assertEquals(Code.OK, rls.call("d", d("k", "a")).getOverallCode());
                assertEquals(roundTrips + 1, counter(rls, "cellrate_rls_redis_round_trips"), "Redis decides again");
            }
            finally
            {
                client.shutdown();
            }
        }
    }

    @Test
    void aKeyOfTheWrongTypeRefusesItsDescriptorAndNeverOpensTheBreaker() throws Exception
    {
        try (RedisServer redis = RedisServer.start();
            Rls rls = new Rls(options(redis), null))
        {
            final RedisClient client = redis.client();
            try (StatefulRedisConnection<byte[], byte[]> admin = RedisServer.connect(client))
            {
                admin.sync().hset("rls:d.k:d_k_bad_".getBytes(StandardCharsets.UTF_8),
                    "f".getBytes(StandardCharsets.UTF_8), "v".getBytes(StandardCharsets.UTF_8));
                for (int i = 0; i < 20; i++)
                {
                    assertEquals(Code.OVER_LIMIT, rls.call("d", d("k", "bad")).getOverallCode(), "the bad key refuses");
                }
                final Map<String, Long> counters = rls.server.service().deciderCounters();
                assertEquals(0, counters.get("cellrate_rls_redis_breaker_openings"), counters.toString());
                assertEquals(0, counters.get("cellrate_rls_redis_failures"), counters.toString());
                assertEquals(20, counters.get("cellrate_rls_redis_round_trips"), "each one answered by Redis");
                assertEquals(9, rls.call("d", d("k", "good")).getStatuses(0).getLimitRemaining(),
                    "another key is still decided by Redis");
                assertEquals("hash", new String(admin.sync().type("rls:d.k:d_k_bad_".getBytes(StandardCharsets.UTF_8))),
                    "the bad key is left as it was");
            }
            finally
            {
                client.shutdown();
            }
        }
    }
}
