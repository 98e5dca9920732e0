package dev.cellrate.netty;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.net.SocketException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * HTTP/1.1 pipelining over a real socket at every depth from 1 to 64 (past the handler's
 * {@link HttpRateLimitHandler#MAX_OUTSTANDING} owed responses, where it stops reading until responses
 * drain), malformed requests in a pipeline, and requests still unread when the client leaves.
 */
final class PipeliningTest
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

    private static KeyedRateLimiter keyed(final Limit limit)
    {
        final CachedNanoClock clock = new CachedNanoClock();
        clock.update(T0);
        return KeyedRateLimiter.builder(limit).expectedKeys(1024).clock(clock).build();
    }

    private static String pipeline(final String key, final int depth, final String query)
    {
        final StringBuilder b = new StringBuilder();
        for (int i = 0; i < depth; i++)
        {
            b.append(RawClient.request("/" + key + "/" + i + query, "x-api-key: " + key));
        }
        return b.toString();
    }

    /**
     * Depth d in one write, each answered a few ms later by the application: every response arrives, in
     * order; exactly min(d, 20) are admitted (burst 20 per key, one key per depth) and the rest refused; one
     * more request on the same connection is refused, so the counts charged are exact.
     */
    @Test
    void everyPipelinedRequestIsAnsweredInOrderAtDepths1To64() throws Exception
    {
        final int burst = 20;
        final HttpRateLimit config = HttpRateLimit.enforce(keyed(Limit.perSecond(1, burst)))
            .keyExtractor(new HeaderKey("x-api-key", 32)).build();
        long admitted = 0;
        long rejected = 0;
        try (TestServer server = new TestServer(config, false))
        {
            for (int depth = 1; depth <= 64; depth++)
            {
                final String key = "depth" + depth;
                try (RawClient client = new RawClient("127.0.0.1", "127.0.0.1", server.port()))
                {
                    client.write(pipeline(key, depth, "?delayMs=1"));
                    final List<RawClient.Response> responses = client.read(depth);
                    for (int i = 0; i < depth; i++)
                    {
                        final RawClient.Response r = responses.get(i);
                        if (i < burst)
                        {
                            assertEquals(200, r.status(), "depth " + depth + ", request " + i);
                            assertEquals("/" + key + "/" + i, r.body(), "in order at depth " + depth);
                        }
                        else
                        {
                            assertEquals(429, r.status(), "depth " + depth + ", request " + i);
                        }
                    }
                    client.write(RawClient.request("/more", "x-api-key: " + key));
                    assertEquals(depth < burst ? 200 : 429, client.read().status(), "depth " + depth + " + 1");
                }
                admitted += Math.min(depth + 1, burst);
                rejected += depth + 1 - Math.min(depth + 1, burst);
                assertEquals(admitted, config.admittedCount(), "depth " + depth);
                assertEquals(rejected, config.rejectedCount(), "depth " + depth);
            }
        }
    }

    /**
     * 24 pipelined POSTs with bodies, past the 16 owed responses: each body waits with its request and reaches
     * the application with it (echoed back, in order); the bodies of the 4 refused requests are dropped.
     */
    @Test
    void pipelinedBodiesWaitWithTheirRequests() throws Exception
    {
        final HttpRateLimit config = HttpRateLimit.enforce(keyed(Limit.perSecond(1, 20)))
            .keyExtractor(new HeaderKey("x-api-key", 32)).build();
        try (TestServer server = new TestServer(config, false);
            RawClient client = new RawClient("127.0.0.3", "127.0.0.1", server.port()))
        {
            final StringBuilder pipeline = new StringBuilder();
            for (int i = 0; i < 24; i++)
            {
                final String body = "payload-" + i + "-" + "x".repeat(i * 37);
                pipeline.append("POST /e/").append(i).append("?echo&delayMs=1 HTTP/1.1\r\nHost: x\r\nx-api-key: post\r\n")
                    .append("Content-Length: ").append(body.length()).append("\r\n\r\n").append(body);
            }
            client.write(pipeline.toString());
            final List<RawClient.Response> responses = client.read(24);
            for (int i = 0; i < 24; i++)
            {
                if (i < 20)
                {
                    assertEquals(200, responses.get(i).status(), "request " + i);
                    assertEquals("payload-" + i + "-" + "x".repeat(i * 37), responses.get(i).body(), "request " + i);
                }
                else
                {
                    assertEquals(429, responses.get(i).status(), "request " + i);
                }
            }
            client.write(RawClient.request("/after", "x-api-key: other"));
            assertEquals(200, client.read().status(), "the connection is in step after the dropped bodies");
        }
    }

    /**
     * A client that pipelines 40 slow requests and resets the connection before reading: the handler decided
     * the 16 it owed responses to and stopped reading; the 24 still waiting are released undecided, so the key
     * was charged exactly 16.
     */
    @Test
    void requestsStillWaitingWhenTheClientLeavesAreNeverCharged() throws Exception
    {
        final KeyedRateLimiter limiter = keyed(Limit.perSecond(1, 100));
        final HttpRateLimit config = HttpRateLimit.enforce(limiter).keyExtractor(new HeaderKey("x-api-key", 32)).build();
        try (TestServer server = new TestServer(config, false))
        {
            final RawClient client = new RawClient("127.0.0.2", "127.0.0.1", server.port());
            client.write(pipeline("gone", 40, "?delayMs=300"));
            final long deadline = System.nanoTime() + 5_000_000_000L;
            while (config.admittedCount() < HttpRateLimitHandler.MAX_OUTSTANDING && System.nanoTime() < deadline)
            {
                Thread.sleep(5);
            }
            client.resetAndClose();
            Thread.sleep(600); // the application answers at 300 ms into a reset connection
            assertEquals(HttpRateLimitHandler.MAX_OUTSTANDING, config.admittedCount());
            assertEquals(0, config.rejectedCount());
            final long nowNs = limiter.clock().nanoTime();
            assertEquals(Result.ADMITTED, limiter.peek("gone", 100 - HttpRateLimitHandler.MAX_OUTSTANDING, nowNs),
                "only the decided requests were charged");
            assertTrue(limiter.peek("gone", 101 - HttpRateLimitHandler.MAX_OUTSTANDING, nowNs) > 0);
        }
    }

    /** Malformed requests, each after a good one on the same connection, as a client or a fuzzer sends them. */
    static final List<String> MALFORMED = List.of(
        "GARBAGE\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: x\r\nNoColonHere\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: x\r\nX-A: a\u0000b\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + "a".repeat(20_000) + "\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\nhello",
        "GET /" + "a".repeat(20_000) + " HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
        "GET / HTTP/1.1\r\nHo st: x\r\n\r\n",
        "GET /\u0001 HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET / HTTP/1.1\nHost: x\n\n");

    /**
     * Each malformed request reaches the application behind the handler undecided (it answers 400 or 431 and
     * closes), after the good request before it was answered; the handler charges only the good one.
     */
    @Test
    void malformedRequestsArePassedOnUndecidedInTheirPlace() throws Exception
    {
        final HttpRateLimit config = HttpRateLimit.enforce(keyed(Limit.perSecond(1, 1000))).build();
        try (TestServer server = new TestServer(config, false))
        {
            int n = 0;
            for (final String malformed : MALFORMED)
            {
                n++;
                try (RawClient client = new RawClient("127.0.1." + n, "127.0.0.1", server.port()))
                {
                    client.write(RawClient.request("/ok") + malformed);
                    final RawClient.Response ok = client.read();
                    assertEquals(200, ok.status(), malformed);
                    assertEquals("/ok", ok.body());
                    final RawClient.Response bad = client.read();
                    assertTrue(400 == bad.status() || 431 == bad.status(), bad.status() + " for #" + n + " " + shorten(malformed));
                    try
                    {
                        assertTrue(client.closedByServer(), "closed after " + shorten(malformed));
                    }
                    catch (final SocketException reset)
                    {
                        // closed with unread input: a reset is a close too
                    }
                }
                assertEquals(n, config.admittedCount(), "only the good request is decided: " + shorten(malformed));
            }
            assertEquals(0, config.rejectedCount());
        }
    }

    private static String shorten(final String s)
    {
        return s.length() > 60 ? s.substring(0, 60) + "..." : s;
    }
}
