package dev.cellrate.netty;

import dev.cellrate.Decision;
import dev.cellrate.KeyedDebitLimiter;
import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.http.RateLimitFields;
import dev.cellrate.KeyedShaper;
import dev.cellrate.ShaperMode;
import dev.cellrate.stat.LimiterStats;
import dev.cellrate.observe.ObservedKeyedLimiter;
import dev.cellrate.stat.StatFile;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The handler behind a real Netty HTTP/1.1 server on loopback, driven by the JDK {@link HttpClient} and by a
 * raw socket (pipelining), with Netty's leak detector at PARANOID.
 */
final class HttpRateLimitHandlerTest
{
    static
    {
        LeakCheck.install();
    }

    private static final long T0 = 1_000_000_000_000L;
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5)).build();

    @AfterAll
    static void noLeaks()
    {
        LeakCheck.assertNoLeaks();
    }

    static KeyedRateLimiter keyed(final Limit limit, final CachedNanoClock clock)
    {
        return KeyedRateLimiter.builder(limit).expectedKeys(1024).clock(clock).build();
    }

    private HttpResponse<String> get(final int port, final String path, final String... headers) throws Exception
    {
        final HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(10));
        for (int i = 0; i < headers.length; i += 2)
        {
            b.header(headers[i], headers[i + 1]);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void burstGivesExactly200sThen429sWithTheEngineHeaders() throws Exception
    {
        final CachedNanoClock clock = new CachedNanoClock();
        clock.update(T0);
        final Limit limit = Limit.perSecond(1, 5);
        final HttpRateLimit config = HttpRateLimit.enforce(keyed(limit, clock))
            .policy("per-client", limit).headersOnAdmitted(true).legacyHeaders(true).build();
        // the same decisions on a twin limiter, formatted by the engine
        final KeyedRateLimiter twin = keyed(limit, clock);
        final Decision d = new Decision();
        final RateLimitFields fields = new RateLimitFields("per-client", limit);
        final byte[] v = new byte[fields.maxValueLength()];
        try (TestServer server = new TestServer(config, false))
        {
            final List<Integer> statuses = new ArrayList<>();
            for (int i = 0; i < 8; i++)
            {
                final HttpResponse<String> r = get(server.port(), "/x");
                statuses.add(r.statusCode());
                twin.tryAcquire("k", 1, T0, d);
                assertEquals(ascii(v, fields.writeRateLimit(d, v, 0)), r.headers().firstValue("ratelimit").orElse(null));
                assertEquals("\"per-client\";q=5;w=5", r.headers().firstValue("ratelimit-policy").orElse(null));
                assertEquals(Long.toString(d.remaining()), r.headers().firstValue("x-ratelimit-remaining").orElse(null));
                assertEquals("5", r.headers().firstValue("x-ratelimit-limit").orElse(null));
                if (429 == r.statusCode())
                {
                    assertEquals(ascii(v, fields.writeRetryAfter(d, v, 0)), r.headers().firstValue("retry-after").get());
                    assertEquals("1", r.headers().firstValue("retry-after").get());
                    assertEquals("Too Many Requests\n", r.body());
                }
            }
            assertEquals(List.of(200, 200, 200, 200, 200, 429, 429, 429), statuses);
            assertEquals(5, config.admittedCount());
            assertEquals(3, config.rejectedCount());
        }
    }

    @Test
    void retryAfterIsNeverEarly() throws Exception
    {
        final CachedNanoClock clock = new CachedNanoClock();
        clock.update(T0);
        // 2 per 3 s: T = 1.5 s, so a retry-after of 1.5 s is advertised as 2
        final HttpRateLimit config = HttpRateLimit.enforce(keyed(Limit.of(2, 3, TimeUnit.SECONDS, 1), clock))
            .policy("default", Limit.of(2, 3, TimeUnit.SECONDS, 1)).build();
        try (TestServer server = new TestServer(config, false))
        {
            assertEquals(200, get(server.port(), "/a").statusCode());
            clock.update(T0 + 1);
            final HttpResponse<String> rejected = get(server.port(), "/a");
            assertEquals(429, rejected.statusCode());
            final long retrySeconds = Long.parseLong(rejected.headers().firstValue("retry-after").get());
            assertEquals(2, retrySeconds); // 1.5 s - 1 ns, rounded up
            // the rejection's fields are the engine's Decision, formatted by the engine
            final KeyedRateLimiter twin = keyed(Limit.of(2, 3, TimeUnit.SECONDS, 1), clock);
            final Decision d = new Decision();
            twin.tryAcquire("k", 1, T0, d);
            twin.tryAcquire("k", 1, T0 + 1, d);
            final RateLimitFields fields = new RateLimitFields("default", Limit.of(2, 3, TimeUnit.SECONDS, 1));
            final byte[] v = new byte[fields.maxValueLength()];
            assertEquals(ascii(v, fields.writeRateLimit(d, v, 0)), rejected.headers().firstValue("ratelimit").get());
            assertEquals(ascii(v, fields.writeRetryAfter(d, v, 0)), Long.toString(retrySeconds));
            clock.update(T0 + 1 + retrySeconds * 1_000_000_000L);
            assertEquals(200, get(server.port(), "/a").statusCode(), "a retry at the advertised second is admitted");
        }
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrderAndRejectedBodiesAreDropped() throws Exception
    {
        final CachedNanoClock clock = new CachedNanoClock();
        clock.update(T0);
        final HttpRateLimit config = HttpRateLimit.enforce(keyed(Limit.perSecond(1, 2), clock)).build();
        try (TestServer server = new TestServer(config, false);
            Socket socket = new Socket("127.0.0.1", server.port()))
        {
            socket.setSoTimeout(10_000);
            final String requests =
                "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n" +
                "GET /fast HTTP/1.1\r\nHost: x\r\n\r\n" +
                "POST /rejected HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\nhello world" +
                "GET /rejected2 HTTP/1.1\r\nHost: x\r\n\r\n";
            final OutputStream out = socket.getOutputStream();
            out.write(requests.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            final InputStream in = socket.getInputStream();
            final List<String> seen = new ArrayList<>();
            for (int i = 0; i < 4; i++)
            {
                seen.add(readResponse(in));
            }
            assertEquals(List.of("200 /slow", "200 /fast", "429 Too Many Requests\n", "429 Too Many Requests\n"), seen);
            // the connection is still usable after the rejections
            clock.update(T0 + 2_000_000_000L);
            out.write("GET /again HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            assertEquals("200 /again", readResponse(in));
        }
    }

    /** Reads one response with Content-Length; returns "status body". */
    static String readResponse(final InputStream in) throws Exception
    {
        final StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n"))
        {
            final int c = in.read();
            if (c < 0)
            {
                throw new IllegalStateException("closed after " + head);
            }
            head.append((char)c);
        }
        final Matcher m = Pattern.compile("(?i)content-length: *(\\d+)").matcher(head);
        assertTrue(m.find(), head.toString());
        final byte[] body = in.readNBytes(Integer.parseInt(m.group(1)));
        return head.substring(9, 12) + " " + new String(body, StandardCharsets.US_ASCII);
    }

    @Test
    void aDryRunFrontNeverRejectsAndWouldBeRejectionsAreMarked() throws Exception
    {
        final CachedNanoClock clock = new CachedNanoClock();
        clock.update(T0);
        final LimiterStats stats = StatFile.inMemory().limiter("dry");
        final HttpRateLimit config = HttpRateLimit.enforce(
            ObservedKeyedLimiter.dryRun(keyed(Limit.perSecond(1, 2), clock), stats)).build();
        try (TestServer server = new TestServer(config, false))
        {
            int marked = 0;
            for (int i = 0; i < 10; i++)
            {
                final HttpResponse<String> r = get(server.port(), "/d");
                assertEquals(200, r.statusCode());
                marked += r.headers().firstValue("x-ratelimit-dry-run").isPresent() ? 1 : 0;
            }
            assertEquals(8, marked);
            assertEquals(8, config.wouldRejectCount());
            assertEquals(10, config.admittedCount());
            assertEquals(0, config.rejectedCount());
        }
    }

    @Test
    void shapingDelaysWithinTheShapersBoundAndRefusesBeyondIt() throws Exception
    {
        // 10 per second, burst 3 (tolerance 200 ms), every request at its slot: delays 0, 100, 200, then 300 ms,
        // past the shaper's bound. Decisions at one instant (a fixed clock), so the count does not depend on
        // arrival jitter; the wait itself is real (the event loop's timer).
        final CachedNanoClock clock = new CachedNanoClock();
        clock.update(T0);
        final KeyedShaper shaper = KeyedRateLimiter.builder(Limit.perSecond(10, 3)).expectedKeys(64).clock(clock)
            .buildShaper(ShaperMode.delay());
        final HttpRateLimit config = HttpRateLimit.shape(shaper).build();
        try (TestServer server = new TestServer(config, false))
        {
            // six clients on six connections opened beforehand, writing at once (one connection's requests
            // are decided one after another, so concurrency needs connections)
            final List<Socket> sockets = new ArrayList<>();
            for (int i = 0; i < 6; i++)
            {
                final Socket socket = new Socket("127.0.0.1", server.port());
                socket.setSoTimeout(10_000);
                sockets.add(socket);
            }
            Thread.sleep(100); // let the server register the connections
            final long start = System.nanoTime();
            for (int i = 0; i < 6; i++)
            {
                sockets.get(i).getOutputStream().write(("GET /s" + i + " HTTP/1.1\r\nHost: x\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            }
            final List<CompletableFuture<long[]>> futures = new ArrayList<>();
            for (final Socket socket : sockets)
            {
                futures.add(CompletableFuture.supplyAsync(() ->
                {
                    try
                    {
                        final String r = readResponse(socket.getInputStream());
                        return new long[]{Long.parseLong(r.substring(0, 3)),
                            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)};
                    }
                    catch (final Exception e)
                    {
                        throw new IllegalStateException(e);
                    }
                }));
            }
            final List<Long> okAtMs = new ArrayList<>();
            int refused = 0;
            for (final CompletableFuture<long[]> f : futures)
            {
                final long[] r = f.get(10, TimeUnit.SECONDS);
                if (200 == r[0])
                {
                    okAtMs.add(r[1]);
                }
                else
                {
                    assertEquals(429, r[0]);
                    refused++;
                }
            }
            for (final Socket socket : sockets)
            {
                socket.close();
            }
            okAtMs.sort(null);
            // slots at 0, 100, 200 ms fit the 200 ms tolerance; the one at 300 ms and later do not
            assertEquals(3, okAtMs.size(), "admitted at " + okAtMs);
            assertEquals(3, refused);
            assertTrue(okAtMs.get(2) >= 190, "the third waited for its slot: " + okAtMs);
            assertTrue(okAtMs.get(2) < 200 + 2_000, "within the bound (+ slack for a loaded machine): " + okAtMs);

            // refusals reserve nothing: 100 ms later the next slot is 300 ms from T0, a 200 ms wait that fits
            clock.update(T0 + TimeUnit.MILLISECONDS.toNanos(100));
            try (Socket socket = new Socket("127.0.0.1", server.port()))
            {
                socket.setSoTimeout(10_000);
                socket.getOutputStream().write("GET /later HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                assertEquals("200 /later", readResponse(socket.getInputStream()));
            }
        }
    }

    @Test
    void chargeAfterOnTheEngineKeyedCells() throws Exception
    {
        final CachedNanoClock clock = new CachedNanoClock();
        clock.update(T0);
        loginFailuresPutTheKeyInDebt(keyed(Limit.perSecond(1, 3), clock), clock);
        // The engine bounds the debt at one burst: TAT <= now + 2(tau + T) = now + 2 s, so one permit waits
        // 2.01 s - 1 s = 1.01 s, advertised as 2 (an unbounded debt of 2.5 s would refuse until 1.51 s).
        final long t1 = T0 + 1_000_000_000L;
        aCostFromTheResponseIsCharged(keyed(Limit.perSecond(100, 100), clock), clock, t1 + 1_009_999_999L,
            t1 + 1_010_000_000L);
    }

    /**
     * T = 1 s, tau = 2 s: three 401s at T0 put the key's TAT at T0 + 3 s; one permit then waits 1 s. At T0.
     */
    private void loginFailuresPutTheKeyInDebt(final KeyedDebitLimiter debt, final CachedNanoClock clock)
        throws Exception
    {
        final HttpRateLimit config = HttpRateLimit.chargeAfter(debt).chargeStatuses(401, 403).build();
        try (TestServer server = new TestServer(config, false))
        {
            for (int i = 0; i < 5; i++)
            {
                assertEquals(200, get(server.port(), "/login").statusCode(), "successes are free");
            }
            for (int i = 0; i < 3; i++)
            {
                assertEquals(401, get(server.port(), "/login?status=401").statusCode());
            }
            final HttpResponse<String> refused = get(server.port(), "/login");
            assertEquals(429, refused.statusCode(), "three failures: in debt");
            assertEquals("1", refused.headers().firstValue("retry-after").get());
            clock.update(T0 + 1_000_000_000L);
            assertEquals(200, get(server.port(), "/login").statusCode());
        }
    }

    /**
     * 100/s, burst 100 (T = 10 ms, tau = 990 ms), at the clock's current time: a response carrying a cost of
     * 250 is charged after the fact, the next request is refused with Retry-After 2, still refused at
     * {@code stillRefusedNs} and admitted again at {@code admittedNs}.
     */
    private void aCostFromTheResponseIsCharged(
        final KeyedDebitLimiter debt, final CachedNanoClock clock, final long stillRefusedNs, final long admittedNs)
        throws Exception
    {
        final HttpRateLimit llm = HttpRateLimit.chargeAfter(debt).chargeCostHeader("x-cost").build();
        try (TestServer server = new TestServer(llm, false))
        {
            assertEquals(200, get(server.port(), "/llm?cost=250").statusCode(), "admitted, then charged 250");
            final HttpResponse<String> refused = get(server.port(), "/llm");
            assertEquals(429, refused.statusCode());
            assertEquals("2", refused.headers().firstValue("retry-after").get());
            clock.update(stillRefusedNs);
            assertEquals(429, get(server.port(), "/llm").statusCode(), "1 ns before the debt is paid back");
            clock.update(admittedNs);
            assertEquals(200, get(server.port(), "/llm").statusCode());
        }
    }

    @Test
    void requestsWithNoKeyGetTheFallback() throws Exception
    {
        final CachedNanoClock clock = new CachedNanoClock();
        clock.update(T0);
        final HttpRateLimit strict = HttpRateLimit.enforce(keyed(Limit.perSecond(1, 100), clock))
            .keyExtractor(new HeaderKey("x-api-key", 32)).fallbackBadRequest().build();
        try (TestServer server = new TestServer(strict, false))
        {
            assertEquals(200, get(server.port(), "/k", "x-api-key", "abc").statusCode());
            assertEquals(400, get(server.port(), "/k").statusCode());
            assertEquals(400, get(server.port(), "/k", "x-api-key", "x".repeat(33)).statusCode());
            assertEquals(200, get(server.port(), "/k", "x-api-key", "abc").statusCode(), "connection kept");
        }
        final HttpRateLimit shared = HttpRateLimit.enforce(keyed(Limit.perSecond(1, 2), clock))
            .keyExtractor(ForwardedKey.xForwardedFor(1, 64)).fallbackSharedKey("anonymous").build();
        try (TestServer server = new TestServer(shared, false))
        {
            assertEquals(200, get(server.port(), "/f", "x-forwarded-for", "garbage").statusCode());
            assertEquals(200, get(server.port(), "/f").statusCode());
            assertEquals(429, get(server.port(), "/f", "x-forwarded-for", "1.2.3").statusCode(),
                "all bad keys share one budget");
            assertEquals(200, get(server.port(), "/f", "x-forwarded-for", "6.6.6.6, 10.0.0.1").statusCode());
            assertEquals(3, shared.noKeyCount());
        }
    }

    @Test
    void concurrentClientsGetOneBudgetPerKey() throws Exception
    {
        final CachedNanoClock clock = new CachedNanoClock();
        clock.update(T0);
        final HttpRateLimit config = HttpRateLimit.enforce(keyed(Limit.perSecond(1, 3), clock))
            .keyExtractor(new HeaderKey("x-api-key", 32)).build();
        try (TestServer server = new TestServer(config, false))
        {
            final List<CompletableFuture<HttpResponse<String>>> futures = new ArrayList<>();
            for (int i = 0; i < 20; i++)
            {
                futures.add(client.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/c"))
                    .header("x-api-key", "key" + (i % 2)).build(), HttpResponse.BodyHandlers.ofString()));
            }
            int ok = 0;
            for (final CompletableFuture<HttpResponse<String>> f : futures)
            {
                ok += 200 == f.get(10, TimeUnit.SECONDS).statusCode() ? 1 : 0;
            }
            assertEquals(6, ok, "3 per key, two keys");
            assertFalse(config.rejectedCount() != 14);
        }
    }

    private static String ascii(final byte[] b, final int n)
    {
        return new String(b, 0, n, StandardCharsets.US_ASCII);
    }
}
