package dev.cellrate.spring;

import dev.cellrate.Limit;
import dev.cellrate.http.RateLimitFields;
import dev.cellrate.redis.RedisServer;
import dev.cellrate.stat.StatKind;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import java.net.http.HttpResponse;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The Servlet filter in a real Spring MVC application on Tomcat, on a random port, driven by real clients. */
class MvcFilterTest
{
    static final String[] PROPERTIES = {
        "server.port=0",
        "spring.main.banner-mode=off",
        "spring.cloud.gateway.server.webflux.enabled=false",
        "management.endpoints.web.exposure.include=cellrate",
        "cellrate.problem-details=true",
        "cellrate.limits.api.rate=2",
        "cellrate.limits.api.burst=3",
        "cellrate.limits.api.paths=/api/**",
        "cellrate.limits.api.key.source=header",
        "cellrate.limits.api.key.header=X-Client",
        "cellrate.limits.dry.rate=2",
        "cellrate.limits.dry.burst=3",
        "cellrate.limits.dry.paths=/dry/**",
        "cellrate.limits.dry.mode=dry-run",
        "cellrate.limits.dry.key.source=header",
        "cellrate.limits.dry.key.header=X-Client",
        "cellrate.limits.users.rate=1",
        "cellrate.limits.users.burst=2",
        "cellrate.limits.users.paths=/users/{id}/items",
        "cellrate.limits.users.key.source=path-variable",
        "cellrate.limits.users.key.variable=id",
        "cellrate.limits.fwd.rate=1",
        "cellrate.limits.fwd.burst=2",
        "cellrate.limits.fwd.paths=/fwd/**",
        "cellrate.limits.fwd.key.source=forwarded",
        "cellrate.limits.fwd.key.trusted-hops=2",
        "cellrate.limits.addr.rate=1",
        "cellrate.limits.addr.burst=2",
        "cellrate.limits.addr.paths=/addr/**",
        "cellrate.limits.addr.headers=legacy",
        "cellrate.limits.spel.rate=1",
        "cellrate.limits.spel.burst=1",
        "cellrate.limits.spel.paths=/spel/**",
        "cellrate.limits.spel.key.source=spel",
        "cellrate.limits.spel.key.expression=getHeader('X-Tenant') + ':' + getMethod()",
        "cellrate.limits.login.rate=1",
        "cellrate.limits.login.period=1m",
        "cellrate.limits.login.burst=2",
        "cellrate.limits.login.paths=/login",
        "cellrate.limits.login.mode=charge-after",
        "cellrate.limits.login.charge-statuses=401",
        "cellrate.limits.login.key.source=header",
        "cellrate.limits.login.key.header=X-User",
        "cellrate.limits.shape.rate=10",
        "cellrate.limits.shape.burst=6",
        "cellrate.limits.shape.paths=/shape/**",
        "cellrate.limits.shape.mode=shape",
        "cellrate.limits.shape.max-delay=300ms",
        "cellrate.limits.shape.key.source=header",
        "cellrate.limits.shape.key.header=X-Client",
        "cellrate.limits.rapi.rate=1",
        "cellrate.limits.rapi.period=1m",
        "cellrate.limits.rapi.burst=3",
        "cellrate.limits.rapi.paths=/rapi/**",
        "cellrate.limits.rapi.backend=redis",
        "cellrate.limits.rapi.key.source=header",
        "cellrate.limits.rapi.key.header=X-Client",
        "cellrate.redis.fail-policy=closed",
        "cellrate.redis.timeout=2s",
        "cellrate.limits.me.rate=1",
        "cellrate.limits.me.period=1m",
        "cellrate.limits.me.burst=2",
        "cellrate.limits.me.paths=/me/**",
        "cellrate.limits.me.key.source=principal",
        "cellrate.limits.live.rate=1",
        "cellrate.limits.live.period=1m",
        "cellrate.limits.live.burst=2",
        "cellrate.limits.live.paths=/live/**",
        "cellrate.limits.live.reconfigurable=true",
        "cellrate.limits.live.key.source=header",
        "cellrate.limits.live.key.header=X-Client",
        "cellrate.limits.tiers.rate=1",
        "cellrate.limits.tiers.period=1m",
        "cellrate.limits.tiers.burst=1",
        "cellrate.limits.tiers.paths=/tiers/**",
        "cellrate.limits.tiers.key.source=header",
        "cellrate.limits.tiers.key.header=X-Client",
        "cellrate.limits.tiers.classes.gold.rate=1",
        "cellrate.limits.tiers.classes.gold.period=1m",
        "cellrate.limits.tiers.classes.gold.burst=3",
        "cellrate.limits.tiers.classes.gold.keys=vip,partner",
        "cellrate.limits.fn.rate=2",
        "cellrate.limits.fn.burst=3",
        "cellrate.limits.fn.filter=false",
        "cellrate.limits.user.rate=1",
        "cellrate.limits.user.period=1m",
        "cellrate.limits.user.burst=5",
        "cellrate.limits.user.filter=false",
        "cellrate.limits.tenant.rate=1",
        "cellrate.limits.tenant.period=1m",
        "cellrate.limits.tenant.burst=2",
        "cellrate.limits.tenant.filter=false",
    };

    static RedisServer redis;
    static ConfigurableApplicationContext context;
    static int port;
    static LimitRegistry registry;

    @BeforeAll
    static void start() throws Exception
    {
        redis = RedisServer.start();
        context = new SpringApplicationBuilder(MvcApp.class).web(WebApplicationType.SERVLET).properties(PROPERTIES)
            .properties("cellrate.redis.uri=" + redis.url()).run();
        port = ((WebServerApplicationContext)context).getWebServer().getPort();
        registry = context.getBean(LimitRegistry.class);
    }

    @AfterAll
    static void stop() throws Exception
    {
        if (null != context)
        {
            context.close();
        }
        if (null != redis)
        {
            redis.close();
        }
    }

    @Test
    void exactCountsAndHeadersEqualTheEngines()
    {
        final EngineTwin twin = new EngineTwin("api", Limit.of(2, 1, TimeUnit.SECONDS, 3));
        int ok = 0;
        int rejected = 0;
        for (int i = 0; i < 10; i++)
        {
            final HttpResponse<String> r = Http.get(port, "/api/x", "X-Client", "exact");
            final Map<String, String> expected = twin.decide("exact", MvcApp.CLOCK.nanoTime());
            assertEquals(twin.admitted() ? 200 : 429, r.statusCode(), "request " + i);
            for (final Map.Entry<String, String> e : expected.entrySet())
            {
                assertEquals(e.getValue(), r.headers().firstValue(e.getKey()).orElse(null), e.getKey() + " of " + i);
            }
            if (200 == r.statusCode())
            {
                ok++;
                assertTrue(r.headers().firstValue("retry-after").isEmpty());
            }
            else
            {
                rejected++;
                assertEquals("application/problem+json", r.headers().firstValue("content-type").orElse(null));
                assertTrue(r.body().contains("\"status\":429"), r.body());
                assertTrue(r.body().contains("\"limit\":\"api\""), r.body());
            }
        }
        assertEquals(3, ok);
        assertEquals(7, rejected);
        // another key has its own burst
        assertEquals(200, Http.get(port, "/api/x", "X-Client", "exact-other").statusCode());
    }

    @Test
    void aRetryAtTheAdvertisedSecondIsAdmitted()
    {
        final String key = "retry";
        HttpResponse<String> r;
        do
        {
            r = Http.get(port, "/api/x", "X-Client", key);
        }
        while (200 == r.statusCode());
        assertEquals(429, r.statusCode());
        final long seconds = Long.parseLong(r.headers().firstValue("retry-after").orElseThrow());
        assertTrue(seconds >= 1);
        // rate 2/s: the engine's retry-after is 0.5 s, advertised rounded up
        assertEquals(1, seconds);
        MvcApp.CLOCK.advanceNs(TimeUnit.SECONDS.toNanos(seconds));
        assertEquals(200, Http.get(port, "/api/x", "X-Client", key).statusCode(), "at the advertised second");
    }

    @Test
    void dryRunMarksExactlyWhatEnforcingRejects()
    {
        final long wouldBefore = registry.get("dry").stats().outcome(StatKind.WOULD_REJECT);
        int marked = 0;
        int enforcedRejections = 0;
        for (int i = 0; i < 12; i++)
        {
            final HttpResponse<String> dry = Http.get(port, "/dry/x", "X-Client", "twin");
            assertEquals(200, dry.statusCode());
            if ("would-reject".equals(dry.headers().firstValue("x-ratelimit-dry-run").orElse(null)))
            {
                marked++;
            }
            if (429 == Http.get(port, "/api/x", "X-Client", "twin").statusCode())
            {
                enforcedRejections++;
            }
            if (i % 4 == 3)
            {
                MvcApp.CLOCK.advanceNs(700_000_000L);
            }
        }
        assertTrue(enforcedRejections > 0);
        assertEquals(enforcedRejections, marked);
        assertEquals(enforcedRejections, registry.get("dry").stats().outcome(StatKind.WOULD_REJECT) - wouldBefore);
    }

    @Test
    void eachClientAddressHasItsOwnBudget() throws Exception
    {
        for (int i = 0; i < 2; i++)
        {
            assertEquals(200, Http.rawGet("127.0.0.2", port, "/addr/x").status());
        }
        final Http.Raw refused = Http.rawGet("127.0.0.2", port, "/addr/x");
        assertEquals(429, refused.status());
        assertNotNull(refused.headers().get("retry-after"));
        assertEquals("2", refused.headers().get("x-ratelimit-limit"));
        assertEquals("0", refused.headers().get("x-ratelimit-remaining"));
        assertNull(refused.headers().get("ratelimit"), "legacy headers only");
        assertEquals(200, Http.rawGet("127.0.0.3", port, "/addr/x").status(), "another client");
        assertEquals(200, Http.rawGet("127.0.0.4", port, "/addr/x").status(), "another client");
    }

    @Test
    void forwardedAddressesAreCountedFromTheRightOverEveryLine()
    {
        // two trusted proxies: the client is the second entry from the right, whatever the client forged on the left
        for (int i = 0; i < 2; i++)
        {
            assertEquals(200, Http.get(port, "/fwd/x", "X-Forwarded-For", "6.6.6." + i + ", 203.0.113.7",
                "X-Forwarded-For", "10.0.0.1").statusCode());
        }
        assertEquals(429, Http.get(port, "/fwd/x", "X-Forwarded-For", "9.9.9.9, 203.0.113.7, 10.0.0.2").statusCode());
        // the same client's IPv6 /64 is one key
        assertEquals(200, Http.get(port, "/fwd/x", "X-Forwarded-For", "2001:db8:1:2::1, 10.0.0.1").statusCode());
        assertEquals(200, Http.get(port, "/fwd/x", "X-Forwarded-For", "2001:db8:1:2:ffff::9, 10.0.0.1").statusCode());
        assertEquals(429, Http.get(port, "/fwd/x", "X-Forwarded-For", "[2001:db8:1:2::42], 10.0.0.1").statusCode());
        assertEquals(200, Http.get(port, "/fwd/x", "X-Forwarded-For", "2001:db8:1:3::1, 10.0.0.1").statusCode());
    }

    @Test
    void malformedHeadersFallBackAndNeverFail()
    {
        final String[] garbage = {"", ",,,", "not-an-ip, 10.0.0.1", "999.1.1.1, 10.0.0.1", "1::2::3, 10.0.0.1",
            "x".repeat(5000), "\u00e9, 10.0.0.1"};
        int fallbackOk = 0;
        for (final String g : garbage)
        {
            final int status = Http.get(port, "/fwd/x", "X-Forwarded-For", g).statusCode();
            assertTrue(200 == status || 429 == status, "status " + status + " for " + g);
            fallbackOk += 200 == status ? 1 : 0;
        }
        assertEquals(2, fallbackOk, "all malformed lists share the one fallback key (burst 2)");
        assertEquals(200, Http.get(port, "/api/x").statusCode(), "no key header: the fallback key");
    }

    @Test
    void pathVariableAndSpelKeys()
    {
        assertEquals(200, Http.get(port, "/users/7/items").statusCode());
        assertEquals(200, Http.get(port, "/users/7/items").statusCode());
        assertEquals(429, Http.get(port, "/users/7/items").statusCode());
        assertEquals(200, Http.get(port, "/users/8/items").statusCode());

        assertEquals(200, Http.get(port, "/spel/x", "X-Tenant", "t1").statusCode());
        assertEquals(429, Http.get(port, "/spel/x", "X-Tenant", "t1").statusCode());
        assertEquals(200, Http.get(port, "/spel/x", "X-Tenant", "t2").statusCode());
    }

    @Test
    void chargeAfterCountsOnlyTheChargedStatuses()
    {
        for (int i = 0; i < 5; i++)
        {
            assertEquals(200, Http.get(port, "/login", "X-User", "alice", "pw", "secret").statusCode());
        }
        assertEquals(401, Http.get(port, "/login", "X-User", "alice", "pw", "wrong").statusCode());
        assertEquals(401, Http.get(port, "/login", "X-User", "alice", "pw", "wrong").statusCode());
        final HttpResponse<String> locked = Http.get(port, "/login", "X-User", "alice", "pw", "secret");
        assertEquals(429, locked.statusCode());
        assertEquals(String.valueOf(RateLimitFields.ceilSeconds(TimeUnit.MINUTES.toNanos(1))),
            locked.headers().firstValue("retry-after").orElse(null));
        assertEquals(200, Http.get(port, "/login", "X-User", "bob", "pw", "secret").statusCode());
        assertFalse(registry.limits().isEmpty());
    }

    @Test
    void repeatedLimitsAreAllOrNothing()
    {
        final Quotes quotes = context.getBean(Quotes.class);
        assertEquals("quote for u1@t1", quotes.both("u1", "t1"));
        assertEquals("quote for u1@t1", quotes.both("u1", "t1"));
        final RateLimitedException byTenant = assertThrows(RateLimitedException.class, () -> quotes.both("u1", "t1"));
        assertEquals("tenant", byTenant.limitName());
        assertEquals(60, byTenant.retryAfterSeconds());
        // the refused call took nothing from the user limit: 5 - 2 = 3 more calls for u1
        for (int i = 0; i < 3; i++)
        {
            quotes.both("u1", "t-other-" + i);
        }
        final RateLimitedException byUser = assertThrows(RateLimitedException.class, () -> quotes.both("u1", "t9"));
        assertEquals("user", byUser.limitName());
        // t9 was not charged by the refused call
        quotes.both("u2", "t9");
        quotes.both("u2", "t9");
        assertThrows(RateLimitedException.class, () -> quotes.both("u2", "t9"));
    }

    @Test
    void rateLimitedCostAndNumericKeys()
    {
        final Quotes quotes = context.getBean(Quotes.class);
        quotes.expensive(42);
        quotes.expensive(42);
        final RateLimitedException refused = assertThrows(RateLimitedException.class, () -> quotes.expensive(42));
        assertEquals("user", refused.limitName());
        assertEquals(60, refused.retryAfterSeconds(), "cost 2 with 1 left: one more period");
        final IllegalStateException unknown = assertThrows(IllegalStateException.class, () -> quotes.unknown("x"));
        assertTrue(unknown.getMessage().contains("@RateLimited(name = \"nope\"): name must be one of cellrate.limits"),
            unknown.getMessage());
    }

    @Test
    void aRateLimitedRefusalIsAnswered429WithTheLimitsHeaders()
    {
        assertEquals(200, Http.get(port, "/quote?user=web&tenant=webt").statusCode());
        assertEquals(200, Http.get(port, "/quote?user=web&tenant=webt").statusCode());
        final HttpResponse<String> r = Http.get(port, "/quote?user=web&tenant=webt");
        assertEquals(429, r.statusCode());
        assertEquals("60", r.headers().firstValue("retry-after").orElse(null));
        assertEquals("\"tenant\";q=2;w=120", r.headers().firstValue("ratelimit-policy").orElse(null));
        assertEquals("\"tenant\";r=0;t=120", r.headers().firstValue("ratelimit").orElse(null));
        assertTrue(r.body().contains("\"limit\":\"tenant\""), r.body());
    }

    @Test
    void actuatorListsLimitsLiveKeysAndTopRejectedKeysAndMetersCountOutcomes()
    {
        for (int i = 0; i < 200; i++)
        {
            Http.get(port, "/api/x", "X-Client", "flood");
        }
        final HttpResponse<String> all = Http.get(port, "/actuator/cellrate");
        assertEquals(200, all.statusCode());
        for (final String name : new String[] {"api", "dry", "users", "fwd", "addr", "spel", "login", "user", "tenant"})
        {
            assertTrue(all.body().contains("\"" + name + "\":{"), name + " in " + all.body());
        }
        final HttpResponse<String> api = Http.get(port, "/actuator/cellrate/api");
        assertEquals(200, api.statusCode());
        assertTrue(api.body().contains("\"topRejectedKeys\":[{\"key\":\"flood\""), api.body());
        assertTrue(api.body().contains("\"liveKeys\":"), api.body());
        assertTrue(api.body().contains("\"policy\":\"\\\"api\\\";q=3;w=2\""), api.body());
        assertEquals(404, Http.get(port, "/actuator/cellrate/none").statusCode());

        final io.micrometer.core.instrument.MeterRegistry meters =
            context.getBean(io.micrometer.core.instrument.MeterRegistry.class);
        final double rejected = meters.get("cellrate.decisions").tags("limiter", "api", "outcome", "rejected")
            .functionCounter().count();
        assertEquals(registry.get("api").stats().outcome(StatKind.REJECTED), (long)rejected);
        assertTrue(rejected >= 197, "rejected " + rejected);
    }

    @Test
    void shapeHoldsRequestsUpToMaxDelayThenRefuses()
    {
        // rate 10/s, burst 6, the clock held still: the n-th request is due (n - 1) x 100 ms later; past
        // max-delay 300 ms the reservation is cancelled and the request refused
        int ok = 0;
        long refusedAt = -1;
        final long startNs = System.nanoTime();
        for (int i = 0; i < 6; i++)
        {
            final HttpResponse<String> r = Http.get(port, "/shape/x", "X-Client", "shaped");
            if (200 == r.statusCode())
            {
                ok++;
            }
            else
            {
                assertEquals(429, r.statusCode());
                assertEquals("1", r.headers().firstValue("retry-after").orElse(null));
                refusedAt = refusedAt < 0 ? i : refusedAt;
            }
        }
        final long tookMs = (System.nanoTime() - startNs) / 1_000_000;
        assertEquals(4, ok, "delays 0, 100, 200 and 300 ms fit max-delay 300 ms");
        assertEquals(4, refusedAt);
        assertTrue(tookMs >= 600, "the admitted requests were held: " + tookMs + " ms");
    }

    @Test
    void redisBackendCountsExactlyOnTheServer()
    {
        int ok = 0;
        HttpResponse<String> refused = null;
        for (int i = 0; i < 6; i++)
        {
            final HttpResponse<String> r = Http.get(port, "/rapi/x", "X-Client", "servlet-redis");
            if (200 == r.statusCode())
            {
                ok++;
            }
            else
            {
                refused = r;
            }
        }
        assertEquals(3, ok);
        assertEquals(429, refused.statusCode());
        final long seconds = Long.parseLong(refused.headers().firstValue("retry-after").orElseThrow());
        assertTrue(seconds >= 59 && seconds <= 60, "rate 1/min, rounded up: " + seconds);
        assertTrue(refused.headers().firstValue("ratelimit").orElse("").startsWith("\"rapi\";r=0;t="));
        assertEquals(200, Http.get(port, "/rapi/x", "X-Client", "servlet-redis-2").statusCode());
    }

    @Test
    void functionalRouteFilterCountsExactlyWithTheEnginesHeaders()
    {
        final EngineTwin twin = new EngineTwin("fn", Limit.of(2, 1, TimeUnit.SECONDS, 3));
        int ok = 0;
        for (int i = 0; i < 7; i++)
        {
            final HttpResponse<String> r = Http.get(port, "/fn/a", "X-Client", "fn-exact");
            final Map<String, String> expected = twin.decide("fn-exact", MvcApp.CLOCK.nanoTime());
            assertEquals(twin.admitted() ? 200 : 429, r.statusCode(), "request " + i);
            for (final Map.Entry<String, String> e : expected.entrySet())
            {
                assertEquals(e.getValue(), r.headers().firstValue(e.getKey()).orElse(null), e.getKey() + " of " + i);
            }
            if (200 == r.statusCode())
            {
                ok++;
                assertEquals("fn a", r.body());
            }
        }
        assertEquals(3, ok);
    }

    @Test
    void principalKeys()
    {
        assertEquals(200, Http.get(port, "/me/x", "X-User", "ann").statusCode());
        assertEquals(200, Http.get(port, "/me/x", "X-User", "ann").statusCode());
        assertEquals(429, Http.get(port, "/me/x", "X-User", "ann").statusCode());
        assertEquals(200, Http.get(port, "/me/x", "X-User", "bob").statusCode());
        assertEquals(200, Http.get(port, "/me/x").statusCode(), "no principal: the fallback key");
    }

    @Test
    void theEndpointChangesARateAtRunTimeAndEveryKeyKeepsItsState()
    {
        assertEquals(200, Http.get(port, "/live/x", "X-Client", "spent").statusCode());
        assertEquals(200, Http.get(port, "/live/x", "X-Client", "spent").statusCode());
        final HttpResponse<String> before = Http.get(port, "/live/x", "X-Client", "spent");
        assertEquals(429, before.statusCode());
        assertEquals("\"live\";q=2;w=120", before.headers().firstValue("ratelimit-policy").orElse(null));
        assertEquals("60", before.headers().firstValue("retry-after").orElse(null));

        final HttpResponse<String> changed = Http.postJson(port, "/actuator/cellrate/live",
            "{\"rate\": 60, \"burst\": 2, \"period\": \"1m\"}");
        assertEquals(200, changed.statusCode(), changed.body());
        assertTrue(changed.body().contains("\"emissionIntervalNs\":1000000000"), changed.body());

        // the spent key is still 120 s in debt (a reset would have admitted it): 120 + 1 - 2 = 119 s
        final HttpResponse<String> kept = Http.get(port, "/live/x", "X-Client", "spent");
        assertEquals(429, kept.statusCode());
        assertEquals("119", kept.headers().firstValue("retry-after").orElse(null));
        assertEquals("\"live\";q=2;w=2", kept.headers().firstValue("ratelimit-policy").orElse(null));
        // a fresh key gets the new limit
        assertEquals(200, Http.get(port, "/live/x", "X-Client", "fresh").statusCode());
        assertEquals(200, Http.get(port, "/live/x", "X-Client", "fresh").statusCode());
        final HttpResponse<String> fresh = Http.get(port, "/live/x", "X-Client", "fresh");
        assertEquals(429, fresh.statusCode());
        assertEquals("1", fresh.headers().firstValue("retry-after").orElse(null));
        MvcApp.CLOCK.advanceNs(TimeUnit.SECONDS.toNanos(119));
        assertEquals(200, Http.get(port, "/live/x", "X-Client", "spent").statusCode(), "at the advertised second");

        final HttpResponse<String> bad = Http.postJson(port, "/actuator/cellrate/live", "{\"rate\": 0}");
        assertEquals(400, bad.statusCode(), bad.body());
        final HttpResponse<String> fixed = Http.postJson(port, "/actuator/cellrate/api", "{\"rate\": 5}");
        assertEquals(400, fixed.statusCode(), fixed.body());
    }

    @Test
    void perKeyClassesGiveListedKeysTheirClassesLimit()
    {
        for (final String key : new String[] {"vip", "partner"})
        {
            for (int i = 0; i < 3; i++)
            {
                assertEquals(200, Http.get(port, "/tiers/x", "X-Client", key).statusCode(), key + " " + i);
            }
            assertEquals(429, Http.get(port, "/tiers/x", "X-Client", key).statusCode(), key);
        }
        assertEquals(200, Http.get(port, "/tiers/x", "X-Client", "anyone").statusCode());
        final HttpResponse<String> r = Http.get(port, "/tiers/x", "X-Client", "anyone");
        assertEquals(429, r.statusCode(), "the default class: burst 1");
        assertEquals("60", r.headers().firstValue("retry-after").orElse(null));
    }
}
