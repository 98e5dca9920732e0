package dev.cellrate.rls;

import dev.cellrate.redis.RedisServer;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.cellrate.rls.Rls.d;
import static dev.cellrate.rls.Rls.withHits;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code --redis} decides a request's descriptors all or nothing, in one round trip, against a real
 * redis-server: a refused request takes nothing from its other descriptors, on one replica or two at once.
 */
class RedisAllOrNothingTest
{
    private static final String CONFIG =
        "domain: d\ndescriptors:\n" +
        "  - key: user\n    rate_limit:\n      unit: hour\n      requests_per_unit: 3\n" +
        "  - key: route\n    rate_limit:\n      unit: hour\n      requests_per_unit: 100\n" +
        "  - key: shadow\n    shadow_mode: true\n    rate_limit:\n      unit: hour\n      requests_per_unit: 1\n" +
        "  - key: none\n    rate_limit:\n      unit: hour\n      requests_per_unit: 0\n";

    private static Rls replica(final RedisServer redis, final String config) throws Exception
    {
        final Path directory = Files.createTempDirectory("rls-config");
        Files.writeString(directory.resolve("c.yaml"), config, StandardCharsets.UTF_8);
        final RlsServer.Options options = Rls.options(directory);
        options.redisUri = redis.url();
        options.redisTimeoutMs = 5_000;
        return new Rls(options, null);
    }

    private static long remaining(final Rls rls, final String key, final String value)
    {
        return rls.call("d", withHits(d(key, value), 0)).getStatuses(0).getLimitRemaining();
    }

    @Test
    void aRefusedRequestTakesNothingFromItsOtherDescriptors() throws Exception
    {
        try (RedisServer redis = RedisServer.start(); Rls rls = replica(redis, CONFIG))
        {
            for (int i = 0; i < 3; i++)
            {
                assertEquals(Code.OK, rls.call("d", d("user", "u1"), d("route", "r")).getOverallCode());
            }
            final RateLimitResponse refused = rls.call("d", d("user", "u1"), d("route", "r"));
            assertEquals(Code.OVER_LIMIT, refused.getOverallCode());
            assertEquals(Code.OVER_LIMIT, refused.getStatuses(0).getCode());
            assertEquals(Code.OK, refused.getStatuses(1).getCode());
            assertEquals(97, refused.getStatuses(1).getLimitRemaining(), "route untouched by the refusal");
            assertEquals(97, remaining(rls, "route", "r"));

            // different hits per descriptor: user u2 can take 3, route takes 10 per request
            final RateLimitResponse big = rls.stub.shouldRateLimit(
                Rls.request("d", 0, withHits(d("user", "u2"), 4), withHits(d("route", "r"), 10)));
            assertEquals(Code.OVER_LIMIT, big.getOverallCode());
            assertEquals(97, remaining(rls, "route", "r"), "a cost above the burst takes nothing from route");
            assertEquals(3, remaining(rls, "user", "u2"));

            // a check (hits 0) on a spent descriptor refuses the request and charges nothing
            assertEquals(Code.OVER_LIMIT,
                rls.call("d", withHits(d("user", "u1"), 0), d("route", "r"), d("user", "u3")).getOverallCode());
            assertEquals(97, remaining(rls, "route", "r"));
            assertEquals(3, remaining(rls, "user", "u3"));

            // a rule of 0 requests refuses the request; the others keep their permits
            assertEquals(Code.OVER_LIMIT, rls.call("d", d("none", "x"), d("route", "r")).getOverallCode());
            assertEquals(97, remaining(rls, "route", "r"));

            // a shadow-mode descriptor is charged on its own and never refuses the others
            assertEquals(Code.OK, rls.call("d", d("shadow", "s"), d("route", "r")).getOverallCode());
            assertEquals(Code.OK, rls.call("d", d("shadow", "s"), d("route", "r")).getOverallCode());
            assertEquals(95, remaining(rls, "route", "r"));
            assertEquals(1, rls.server.service().stats().get("d.shadow").shadowMode.sum());
        }
    }

    @Test
    void theSameDescriptorTwiceInOneRequestIsChargedTwice() throws Exception
    {
        try (RedisServer redis = RedisServer.start(); Rls rls = replica(redis, CONFIG))
        {
            assertEquals(Code.OK, rls.call("d", d("user", "twice"), d("user", "twice")).getOverallCode());
            final RateLimitResponse second = rls.call("d", d("user", "twice"), d("user", "twice"));
            assertEquals(Code.OVER_LIMIT, second.getOverallCode(), "2 + 2 > 3");
            assertEquals(1, remaining(rls, "user", "twice"), "the refused request charged neither");
        }
    }

    @Test
    void twoReplicasAtOnceNeverChargeARefusedRequestsOtherDescriptor() throws Exception
    {
        final String config = "domain: d\ndescriptors:\n" +
            "  - key: user\n    rate_limit:\n      unit: hour\n      requests_per_unit: 20\n" +
            "  - key: route\n    rate_limit:\n      unit: hour\n      requests_per_unit: 50\n";
        try (RedisServer redis = RedisServer.start(); Rls one = replica(redis, config); Rls two = replica(redis, config))
        {
            final AtomicInteger admitted = new AtomicInteger();
            final List<Thread> threads = new ArrayList<>();
            for (final Rls rls : new Rls[]{ one, two, one, two })
            {
                final Thread t = new Thread(() ->
                {
                    for (int i = 0; i < 15; i++)
                    {
                        if (Code.OK == rls.call("d", d("user", "hot"), d("route", "shared")).getOverallCode())
                        {
                            admitted.incrementAndGet();
                        }
                    }
                });
                threads.add(t);
                t.start();
            }
            for (final Thread t : threads)
            {
                t.join();
            }
            assertEquals(20, admitted.get(), "60 requests, user allows 20");
            assertEquals(30, remaining(one, "route", "shared"), "route charged for the 20 admitted only, not 60");
            assertEquals(0, remaining(two, "user", "hot"));
        }
    }

    @Test
    void aFlushedScriptIsSentAgain() throws Exception
    {
        try (RedisServer redis = RedisServer.start(); Rls rls = replica(redis, CONFIG))
        {
            assertEquals(Code.OK, rls.call("d", d("user", "f"), d("route", "f")).getOverallCode());
            final RedisClient client = RedisClient.create(redis.url());
            try (StatefulRedisConnection<String, String> c = client.connect(StringCodec.UTF8))
            {
                c.sync().scriptFlush();
            }
            finally
            {
                client.shutdown();
            }
            assertEquals(Code.OK, rls.call("d", d("user", "f"), d("route", "f")).getOverallCode());
            assertEquals(1, remaining(rls, "user", "f"));
            assertTrue(rls.server.service().deciderCounters().get("cellrate_rls_redis_script_reloads") >= 1);
        }
    }

    @Test
    void withRedisGoneTheFailPoliciesAnswerTheWholeRequest() throws Exception
    {
        final Path directory = Files.createTempDirectory("rls-config");
        Files.writeString(directory.resolve("c.yaml"), CONFIG, StandardCharsets.UTF_8);
        final RedisServer redis = RedisServer.start();
        final RlsServer.Options closed = Rls.options(directory);
        closed.redisUri = redis.url();
        closed.redisTimeoutMs = 200;
        final RlsServer.Options local = Rls.options(directory);
        local.redisUri = redis.url();
        local.redisTimeoutMs = 200;
        local.redisFailPolicy = dev.cellrate.redis.FailPolicy.LOCAL;
        try (Rls c = new Rls(closed, null); Rls l = new Rls(local, null))
        {
            assertEquals(Code.OK, c.call("d", d("route", "r")).getOverallCode());
            redis.close();
            assertEquals(Code.OVER_LIMIT, c.call("d", d("route", "r")).getOverallCode(), "CLOSED refuses");
            for (int i = 0; i < 3; i++)
            {
                assertEquals(Code.OK, l.call("d", d("user", "u"), d("route", "r")).getOverallCode());
            }
            assertEquals(Code.OVER_LIMIT, l.call("d", d("user", "u"), d("route", "r")).getOverallCode(),
                "LOCAL keeps the limit in this process");
            final RateLimitResponse route = l.call("d", d("route", "r"));
            assertEquals(Code.OK, route.getOverallCode());
            assertEquals(96, route.getStatuses(0).getLimitRemaining(), "all or nothing locally too: 3 + this one");
        }
    }

    @Test
    void aRequestOfSeveralDescriptorsIsOneRoundTrip() throws Exception
    {
        try (RedisServer redis = RedisServer.start(); Rls rls = replica(redis, CONFIG))
        {
            final long before = rls.server.service().deciderCounters().get("cellrate_rls_redis_round_trips");
            for (int i = 0; i < 10; i++)
            {
                rls.call("d", d("user", "rt" + i), d("route", "rt"), d("shadow", "rt" + i));
            }
            assertEquals(10, rls.server.service().deciderCounters().get("cellrate_rls_redis_round_trips") - before,
                "10 requests of 3 descriptors: 10 round trips");
        }
    }
}
