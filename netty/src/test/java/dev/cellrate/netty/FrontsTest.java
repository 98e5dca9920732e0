package dev.cellrate.netty;

import dev.cellrate.ClassedKeyedRateLimiter;
import dev.cellrate.KeyClassifier;
import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.TableFullPolicy;
import dev.cellrate.redis.FailPolicy;
import dev.cellrate.redis.RedisRateLimiter;
import dev.cellrate.redis.RedisServer;
import dev.cellrate.ReconfigurableKeyedRateLimiter;
import dev.cellrate.KeyedShaper;
import dev.cellrate.ShaperMode;
import dev.cellrate.stat.LimiterStats;
import dev.cellrate.observe.ObservedKeyedLimiter;
import dev.cellrate.observe.ObservedKeyedReserver;
import dev.cellrate.stat.StatFile;
import dev.cellrate.stat.StatKind;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The handler takes any front of the engine's contracts as it is: classed, observed (enforced and dry-run),
 * reconfigurable, a keyed shaper in dry-run, and a Redis-backed limiter on a real redis-server, each behind
 * a real server and driven by real TCP clients.
 */
final class FrontsTest
{
    static
    {
        LeakCheck.install();
    }

    private static final long T0 = 1_000_000_000_000L;

    @AfterAll
    static void noLeaks()
    {
        LeakCheck.assertNoLeaks();
    }

    private static CachedNanoClock clockAtT0()
    {
        final CachedNanoClock clock = new CachedNanoClock();
        clock.update(T0);
        return clock;
    }

    /** Keys starting with "pro" are class 1, the rest class 0. */
    private static ClassedKeyedRateLimiter classed(final Limit free, final Limit pro, final CachedNanoClock clock)
    {
        final KeyClassifier classifier = new KeyClassifier()
        {
            public int classOf(final long key)
            {
                return 0;
            }

            public int classOf(final CharSequence key)
            {
                return key.length() >= 3 && 'p' == key.charAt(0) && 'r' == key.charAt(1) && 'o' == key.charAt(2) ? 1 : 0;
            }
        };
        return KeyedRateLimiter.builder(free).slotCount(256).shardCount(4).probeBound(64).seed(7, 7).clock(clock)
            .tableFullPolicy(TableFullPolicy.REJECT).buildClassed(classifier, pro);
    }

    private static ReconfigurableKeyedRateLimiter reconfigurable(final Limit limit, final CachedNanoClock clock)
    {
        return KeyedRateLimiter.builder(limit).slotCount(64).shardCount(1).probeBound(64).seed(7, 7).clock(clock)
            .tableFullPolicy(TableFullPolicy.REJECT).buildReconfigurable();
    }

    private static List<Integer> get(final TestServer server, final int n, final String... headerLines) throws Exception
    {
        final List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < n; i++)
        {
            statuses.add(RawClient.get("127.0.0.1", "127.0.0.1", server.port(), "/" + i, headerLines));
        }
        return statuses;
    }

    @Test
    void aClassedFrontGivesEachClassItsLimit() throws Exception
    {
        final HttpRateLimit config = HttpRateLimit.enforce(
                classed(Limit.perSecond(1, 2), Limit.perSecond(1, 4), clockAtT0()))
            .keyExtractor(new HeaderKey("x-api-key", 32)).build();
        try (TestServer server = new TestServer(config, false))
        {
            assertEquals(List.of(200, 200, 429, 429), get(server, 4, "x-api-key: free-1"));
            assertEquals(List.of(200, 200, 200, 200, 429, 429), get(server, 6, "x-api-key: pro-1"));
        }
    }

    @Test
    void aReconfigurableFrontDecidesUnderItsNewLimit() throws Exception
    {
        final ReconfigurableKeyedRateLimiter limiter = reconfigurable(Limit.perSecond(1, 2), clockAtT0());
        final HttpRateLimit config = HttpRateLimit.enforce(limiter).keyExtractor(new HeaderKey("x-api-key", 32))
            .legacyHeaders(true).build();
        try (TestServer server = new TestServer(config, false))
        {
            assertEquals(List.of(200, 200, 429), get(server, 3, "x-api-key: k"));
            limiter.setLimit(Limit.perSecond(1, 5)); // the cell keeps its TAT (T0 + 2 s): 3 more fit under burst 5
            assertEquals(List.of(200, 200, 200, 429), get(server, 4, "x-api-key: k"));
            try (RawClient client = new RawClient("127.0.0.1", "127.0.0.1", server.port()))
            {
                client.write(RawClient.request("/limit", "x-api-key: k"));
                final RawClient.Response r = client.read();
                assertEquals(429, r.status());
                assertEquals("5", r.header("x-ratelimit-limit"), "the Decision of the new limit");
                assertEquals("0", r.header("x-ratelimit-remaining"));
            }
        }
    }

    @Test
    void anObservedFrontCountsWhatTheHandlerAsked() throws Exception
    {
        final LimiterStats stats = StatFile.inMemory().limiter("observed");
        final HttpRateLimit config = HttpRateLimit.enforce(ObservedKeyedLimiter.enforced(
                KeyedRateLimiter.builder(Limit.perSecond(1, 3)).expectedKeys(64).clock(clockAtT0()).build(), stats))
            .build();
        try (TestServer server = new TestServer(config, false))
        {
            assertEquals(List.of(200, 200, 200, 429, 429), get(server, 5));
            assertEquals(3, stats.outcome(StatKind.ADMITTED));
            assertEquals(2, stats.outcome(StatKind.REJECTED));
            assertEquals(3, config.admittedCount());
            assertEquals(2, config.rejectedCount());
        }
    }

    @Test
    void aShaperInDryRunDelaysNothingAndMarksWouldBeRefusals() throws Exception
    {
        final LimiterStats stats = StatFile.inMemory().limiter("shadow");
        final KeyedShaper shaper = KeyedRateLimiter.builder(Limit.perSecond(1, 1)).expectedKeys(64).clock(clockAtT0())
            .buildShaper(ShaperMode.delay());
        final HttpRateLimit config = HttpRateLimit.shape(ObservedKeyedReserver.dryRun(shaper, stats)).build();
        try (TestServer server = new TestServer(config, false))
        {
            int marked = 0;
            for (int i = 0; i < 3; i++)
            {
                try (RawClient client = new RawClient("127.0.0.1", "127.0.0.1", server.port()))
                {
                    client.write(RawClient.request("/s"));
                    final RawClient.Response r = client.read();
                    assertEquals(200, r.status());
                    marked += "would-reject".equals(r.header("x-ratelimit-dry-run")) ? 1 : 0;
                }
            }
            assertEquals(2, marked);
            assertEquals(2, config.wouldRejectCount());
            assertEquals(2, stats.outcome(StatKind.WOULD_REJECT));
        }
    }

    /**
     * A Redis-backed front on a real redis-server (server time): three TCP clients from three source
     * addresses get 5 of 7 each; a second server with its own limiter on the same Redis shares the limit, as two
     * gateway processes do.
     */
    @Test
    void aRedisFrontOnARealRedisServer() throws Exception
    {
        final Limit limit = Limit.of(1, 1, TimeUnit.HOURS, 5);
        try (RedisServer redis = RedisServer.start())
        {
            final RedisClient client = RedisClient.create(RedisURI.builder().withHost("127.0.0.1").withPort(redis.port)
                .withTimeout(Duration.ofSeconds(5)).build());
            final StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE);
            try (RedisRateLimiter a = RedisRateLimiter.builder(connection, limit, FailPolicy.CLOSED)
                    .timeoutNs(TimeUnit.SECONDS.toNanos(5)).build();
                RedisRateLimiter b = RedisRateLimiter.builder(connection, limit, FailPolicy.CLOSED)
                    .timeoutNs(TimeUnit.SECONDS.toNanos(5)).build())
            {
                final HttpRateLimit configA = HttpRateLimit.enforce(a).policy("per-client", limit).build();
                final HttpRateLimit configB = HttpRateLimit.enforce(b).policy("per-client", limit).build();
                try (TestServer serverA = new TestServer(configA, false);
                    TestServer serverB = new TestServer(configB, false))
                {
                    for (int c = 2; c <= 4; c++)
                    {
                        final List<Integer> statuses = new ArrayList<>();
                        RawClient.Response last = null;
                        for (int i = 0; i < 7; i++)
                        {
                            try (RawClient http = new RawClient("127.0.0." + c, "127.0.0.1", serverA.port()))
                            {
                                http.write(RawClient.request("/r"));
                                last = http.read();
                                statuses.add(last.status());
                            }
                        }
                        assertEquals(List.of(200, 200, 200, 200, 200, 429, 429), statuses, "client 127.0.0." + c);
                        assertNotNull(last.header("retry-after"));
                        assertTrue(Long.parseLong(last.header("retry-after")) > 3000, last.head());
                        assertTrue(last.header("ratelimit").startsWith("\"per-client\";r=0;t="), last.head());
                    }
                    final List<Integer> shared = new ArrayList<>();
                    for (int i = 0; i < 3; i++)
                    {
                        shared.add(RawClient.get("127.0.0.5", "127.0.0.1", serverA.port(), "/a"));
                    }
                    for (int i = 0; i < 3; i++)
                    {
                        shared.add(RawClient.get("127.0.0.5", "127.0.0.1", serverB.port(), "/b"));
                    }
                    assertEquals(List.of(200, 200, 200, 200, 200, 429), shared, "one limit across the two servers");
                    assertEquals(3 * 5 + 3, configA.admittedCount());
                    assertEquals(2, configB.admittedCount());
                }
            }
            finally
            {
                connection.close();
                client.shutdown();
            }
        }
    }
}
