package dev.cellrate.netty;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.haproxy.HAProxyMessageDecoder;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * h2c per stream and gRPC refusals against a real server with the JDK client; the key extractors on
 * crafted input.
 */
final class Http2AndKeysTest
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

    @Test
    void h2cStreamsAreLimitedAndGrpcIsRefusedTrailersOnly() throws Exception
    {
        final CachedNanoClock clock = new CachedNanoClock();
        clock.update(T0);
        final HttpRateLimit config = HttpRateLimit.enforce(
            KeyedRateLimiter.builder(Limit.perSecond(1, 3)).expectedKeys(64).clock(clock).build())
            .policy("default", Limit.perSecond(1, 3)).build();
        final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2)
            .connectTimeout(Duration.ofSeconds(5)).build();
        try (TestServer server = new TestServer(config, true))
        {
            final List<Integer> statuses = new ArrayList<>();
            for (int i = 0; i < 5; i++)
            {
                final HttpResponse<String> r = client.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + server.port() + "/h2")).build(), HttpResponse.BodyHandlers.ofString());
                assertEquals(HttpClient.Version.HTTP_2, r.version());
                statuses.add(r.statusCode());
                if (429 == r.statusCode())
                {
                    assertEquals("1", r.headers().firstValue("retry-after").get());
                    assertEquals("\"default\";r=0;t=3", r.headers().firstValue("ratelimit").get());
                }
            }
            assertEquals(List.of(200, 200, 200, 429, 429), statuses);

            final HttpResponse<String> grpc = client.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + server.port() + "/pkg.Service/Method"))
                .header("content-type", "application/grpc").header("te", "trailers")
                .POST(HttpRequest.BodyPublishers.ofByteArray(new byte[]{0, 0, 0, 0, 0})).build(),
                HttpResponse.BodyHandlers.ofString());
            assertEquals(HttpClient.Version.HTTP_2, grpc.version());
            assertEquals(200, grpc.statusCode(), "gRPC is refused with HTTP 200 + grpc-status, not 429");
            assertEquals("8", grpc.headers().firstValue("grpc-status").orElse(null), grpc.headers().toString());
            assertEquals("application/grpc", grpc.headers().firstValue("content-type").get());
            assertEquals("1000", grpc.headers().firstValue("grpc-retry-pushback-ms").get());
            assertEquals("", grpc.body(), "trailers-only: no message");
        }
    }

    /**
     * Over h2c each stream is keyed by the connection it belongs to: 127.0.0.1 and ::1 (two listeners, one
     * limiter) are two clients, each with its own burst of 3 across its streams.
     */
    @Test
    void h2cStreamsAreKeyedByTheirConnectionsAddress() throws Exception
    {
        final CachedNanoClock clock = new CachedNanoClock();
        clock.update(T0);
        final HttpRateLimit config = HttpRateLimit.enforce(
            KeyedRateLimiter.builder(Limit.perSecond(1, 3)).expectedKeys(64).clock(clock).build()).build();
        final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2)
            .connectTimeout(Duration.ofSeconds(5)).build();
        try (TestServer v4 = new TestServer(config, true, null, "127.0.0.1");
            TestServer v6 = new TestServer(config, true, null, "::1"))
        {
            for (final String base : new String[]{"http://127.0.0.1:" + v4.port(), "http://[::1]:" + v6.port()})
            {
                final List<Integer> statuses = new ArrayList<>();
                for (int i = 0; i < 4; i++)
                {
                    final HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(base + "/s" + i)).build(),
                        HttpResponse.BodyHandlers.ofString());
                    assertEquals(HttpClient.Version.HTTP_2, r.version());
                    statuses.add(r.statusCode());
                }
                assertEquals(List.of(200, 200, 200, 429), statuses, base);
            }
            assertEquals(0, config.noKeyCount());
        }
    }

    private static byte[] key(final KeyExtractor extractor, final EmbeddedChannel ch, final String header,
        final String value)
    {
        final DefaultHttpRequest request = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/api/x");
        if (null != header)
        {
            request.headers().set(header, value);
        }
        final byte[] dst = new byte[KeyExtractor.MAX_KEY_LENGTH];
        final int n = extractor.extract(ch, request, dst);
        return n < 0 ? null : Arrays.copyOf(dst, n);
    }

    private static byte[] ip(final String literal, final int prefix)
    {
        final byte[] dst = new byte[17];
        final int n = IpAddresses.parseKey(literal, 0, literal.length(), prefix, dst, 0);
        return n < 0 ? null : Arrays.copyOf(dst, n);
    }

    @Test
    void ipv6ClientsAreGroupedByPrefix()
    {
        assertEquals(Arrays.toString(ip("2001:db8:1:2:aaaa::1", 64)), Arrays.toString(ip("2001:db8:1:2:ffff:1:2:3", 64)));
        assertEquals(false, Arrays.equals(ip("2001:db8:1:2::1", 64), ip("2001:db8:1:3::1", 64)));
        assertEquals(true, Arrays.equals(ip("2001:db8:1:2::1", 56), ip("2001:db8:1:3::1", 56)));
        assertEquals(false, Arrays.equals(ip("2001:db8:1:100::1", 56), ip("2001:db8:1:200::1", 56)));
        assertEquals(true, Arrays.equals(ip("2001:db8:1:100::1", 48), ip("2001:db8:1:ff00::1", 48)));
        assertEquals(Arrays.toString(new byte[]{4, 10, 0, 0, 1}), Arrays.toString(ip("::ffff:10.0.0.1", 64)));
        assertEquals(Arrays.toString(new byte[]{4, 10, 0, 0, 1}), Arrays.toString(ip("10.0.0.1", 64)));
        assertEquals(17, ip("::", 64).length);
        assertEquals(17, ip("1::", 64).length);
        for (final String bad : new String[]{"", "1.2.3", "1.2.3.4.5", "256.1.1.1", "1::2::3", ":1", "1:", "12345::",
            "1:2:3:4:5:6:7:8:9", "unknown", "1.2.3.4:80", "g::1", "::ffff:1.2.3"})
        {
            assertEquals(null, ip(bad, 64), bad);
        }
    }

    @Test
    void forwardedHeadersAreCountedFromTheRight()
    {
        final EmbeddedChannel ch = new EmbeddedChannel();
        final KeyExtractor one = ForwardedKey.xForwardedFor(1, 64);
        final KeyExtractor two = ForwardedKey.xForwardedFor(2, 64);
        final String xff = "6.6.6.6, 203.0.113.7, 10.0.0.2";
        assertEquals(Arrays.toString(ip("10.0.0.2", 64)), Arrays.toString(key(one, ch, "x-forwarded-for", xff)));
        assertEquals(Arrays.toString(ip("203.0.113.7", 64)), Arrays.toString(key(two, ch, "x-forwarded-for", xff)),
            "never the left-most, client-chosen entry");
        assertEquals(null, key(ForwardedKey.xForwardedFor(4, 64), ch, "x-forwarded-for", xff), "fewer entries than hops");
        assertEquals(null, key(one, ch, null, null));
        assertEquals(null, key(one, ch, "x-forwarded-for", "1.2.3.4, unknown"));

        final KeyExtractor fwd = ForwardedKey.forwarded(1, 64);
        assertEquals(Arrays.toString(ip("2001:db8::1", 64)), Arrays.toString(
            key(fwd, ch, "forwarded", "for=6.6.6.6, for=\"[2001:db8::1]:4711\";proto=http")));
        assertEquals(Arrays.toString(ip("192.0.2.60", 64)), Arrays.toString(
            key(fwd, ch, "forwarded", "for=192.0.2.60;proto=http;by=203.0.113.43")));
        assertEquals(Arrays.toString(ip("192.0.2.60", 64)), Arrays.toString(
            key(fwd, ch, "forwarded", "proto=https;For=\"192.0.2.60:8080\"")));
        assertEquals(null, key(fwd, ch, "forwarded", "for=_hidden"));
        assertEquals(null, key(fwd, ch, "forwarded", "for=\"[2001:db8::1\""));
        ch.finishAndReleaseAll();
    }

    @Test
    void proxyProtocolAndRouteComposite()
    {
        final ProxyProtocolKey proxy = new ProxyProtocolKey(64);
        final EmbeddedChannel ch = new EmbeddedChannel(new HAProxyMessageDecoder(), proxy.capture());
        ch.writeInbound(Unpooled.copiedBuffer("PROXY TCP6 2001:db8:0:1::5 2001:db8::2 4711 80\r\n",
            StandardCharsets.US_ASCII));
        assertEquals(Arrays.toString(ip("2001:db8:0:1::", 64)), Arrays.toString(key(proxy, ch, null, null)));

        final RouteClientKey route = new RouteClientKey(new String[]{"/login", "/api/"}, proxy);
        final byte[] k = key(route, ch, null, null);
        assertEquals(1, k[1], "route index of /api/");
        assertEquals(Arrays.toString(ip("2001:db8:0:1::", 64)), Arrays.toString(Arrays.copyOfRange(k, 2, k.length)));
        assertEquals(null, key(proxy, new EmbeddedChannel(), null, null), "no PROXY header: no key");
        ch.finishAndReleaseAll();

        final EmbeddedChannel local = new EmbeddedChannel(); // EmbeddedSocketAddress: not an IP
        assertEquals(null, key(ClientAddressKey.perClient(), local, null, null));
        assertEquals(Arrays.toString("abc".getBytes(StandardCharsets.US_ASCII)),
            Arrays.toString(key(new HeaderKey("X-Api-Key", 8), local, "x-api-key", "abc")));
        assertEquals(null, key(new HeaderKey("X-Api-Key", 8), local, "x-api-key", "a b"));
    }
}
