package dev.cellrate.netty;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The handler as users meet it: a real Netty server on loopback, real TCP clients bound to several source
 * addresses (127.0.0.1, 127.0.0.2, ... and ::1), PROXY protocol v1 and v2 headers written on real sockets,
 * and forwarded headers written exactly as HAProxy, NGINX and Envoy write them. The front's clock is fixed, so
 * every count is exact.
 */
final class ClientBoundaryTest
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
        return KeyedRateLimiter.builder(limit).expectedKeys(4096).clock(clock).build();
    }

    private static HttpRateLimit policing(final Limit limit, final KeyExtractor key)
    {
        return HttpRateLimit.enforce(keyed(limit)).keyExtractor(key).build();
    }

    private static int admitted(final List<Integer> statuses)
    {
        int ok = 0;
        for (final int s : statuses)
        {
            ok += 200 == s ? 1 : 0;
        }
        return ok;
    }

    /**
     * Ten requests from 127.0.0.1 (each on a new connection, as curl sends them) spend its burst of 10; the
     * next from 127.0.0.1 is refused and 127.0.0.2 and 127.0.0.3 still have their own budgets.
     */
    @Test
    void tenRequestsFromOneClientLeaveTheBudgetOfAnother() throws Exception
    {
        final HttpRateLimit config = policing(Limit.perSecond(1, 10), ClientAddressKey.perClient());
        try (TestServer server = new TestServer(config, false))
        {
            for (int i = 0; i < 10; i++)
            {
                assertEquals(200, RawClient.get("127.0.0.1", "127.0.0.1", server.port(), "/" + i), "request " + i);
            }
            assertEquals(429, RawClient.get("127.0.0.1", "127.0.0.1", server.port(), "/11"));
            assertEquals(200, RawClient.get("127.0.0.2", "127.0.0.1", server.port(), "/"), "another client");
            assertEquals(200, RawClient.get("127.0.0.3", "127.0.0.1", server.port(), "/"), "a third client");
            assertEquals(0, config.noKeyCount(), "every TCP client has a key");
        }
    }

    /**
     * Eight clients at once, each on three keep-alive connections of three requests: each gets exactly its
     * burst of 5 and 4 refusals.
     */
    @Test
    void manyConcurrentClientsGetSeparateExactBudgets() throws Exception
    {
        final HttpRateLimit config = policing(Limit.perSecond(1, 5), ClientAddressKey.perClient());
        final ExecutorService pool = Executors.newFixedThreadPool(8);
        try (TestServer server = new TestServer(config, false))
        {
            final List<Future<List<Integer>>> clients = new ArrayList<>();
            for (int c = 0; c < 8; c++)
            {
                final String source = "127.0.0." + (10 + c);
                clients.add(pool.submit(() ->
                {
                    final List<Integer> statuses = new ArrayList<>();
                    for (int connection = 0; connection < 3; connection++)
                    {
                        try (RawClient client = new RawClient(source, "127.0.0.1", server.port()))
                        {
                            for (int r = 0; r < 3; r++)
                            {
                                client.write(RawClient.request("/c"));
                                statuses.add(client.read().status());
                            }
                        }
                    }
                    return statuses;
                }));
            }
            for (final Future<List<Integer>> client : clients)
            {
                final List<Integer> statuses = client.get(30, TimeUnit.SECONDS);
                assertEquals(9, statuses.size());
                assertEquals(5, admitted(statuses), statuses.toString());
            }
            assertEquals(40, config.admittedCount());
            assertEquals(32, config.rejectedCount());
        }
        finally
        {
            pool.shutdownNow();
        }
    }

    /** ::1 is a client of its own (one /64) beside 127.0.0.1; both listeners share one limiter. */
    @Test
    void ipv6LoopbackIsAClientOfItsOwn() throws Exception
    {
        final HttpRateLimit config = policing(Limit.perSecond(1, 10), ClientAddressKey.perClient());
        try (TestServer v4 = new TestServer(config, false, null, "127.0.0.1");
            TestServer v6 = new TestServer(config, false, null, "::1"))
        {
            for (int i = 0; i < 10; i++)
            {
                assertEquals(200, RawClient.get("127.0.0.1", "127.0.0.1", v4.port(), "/" + i));
            }
            assertEquals(429, RawClient.get("127.0.0.1", "127.0.0.1", v4.port(), "/"));
            final List<Integer> statuses = new ArrayList<>();
            for (int i = 0; i < 11; i++)
            {
                statuses.add(RawClient.get("::1", "::1", v6.port(), "/" + i));
            }
            assertEquals(10, admitted(statuses), "::1 has its own budget: " + statuses);
            assertEquals(429, statuses.get(10));
        }
    }

    /**
     * A load balancer (every connection from 127.0.0.1) sends the PROXY v1 line first: 203.0.113.1 spends its
     * burst of 3 over four connections, then 203.0.113.2 gets 3 of 3.
     */
    @Test
    void proxyProtocolV1SourcesGetSeparateBudgets() throws Exception
    {
        final ProxyProtocolKey proxy = new ProxyProtocolKey(64);
        final HttpRateLimit config = policing(Limit.perSecond(1, 3), proxy);
        try (TestServer server = new TestServer(config, false, proxy, "127.0.0.1"))
        {
            final List<Integer> first = new ArrayList<>();
            for (int i = 0; i < 4; i++)
            {
                first.add(viaProxy(server.port(), "PROXY TCP4 203.0.113.1 192.0.2.1 4711 80\r\n".getBytes(
                    java.nio.charset.StandardCharsets.US_ASCII)));
            }
            assertEquals(List.of(200, 200, 200, 429), first);
            final List<Integer> second = new ArrayList<>();
            for (int i = 0; i < 3; i++)
            {
                second.add(viaProxy(server.port(), "PROXY TCP4 203.0.113.2 192.0.2.1 4712 80\r\n".getBytes(
                    java.nio.charset.StandardCharsets.US_ASCII)));
            }
            assertEquals(List.of(200, 200, 200), second);
            assertEquals(0, config.noKeyCount());
        }
    }

    /**
     * The binary v2 header (IPv4 and IPv6 sources): 203.0.113.1 and 203.0.113.2 are apart; two IPv6 sources of
     * one /64 are one client, one of another /64 is another.
     */
    @Test
    void proxyProtocolV2SourcesGetSeparateBudgets() throws Exception
    {
        final ProxyProtocolKey proxy = new ProxyProtocolKey(64);
        final HttpRateLimit config = policing(Limit.perSecond(1, 2), proxy);
        try (TestServer server = new TestServer(config, false, proxy, "127.0.0.1"))
        {
            final byte[] a = v2("203.0.113.1", "192.0.2.1");
            final byte[] b = v2("203.0.113.2", "192.0.2.1");
            assertEquals(List.of(200, 200, 429), List.of(viaProxy(server.port(), a), viaProxy(server.port(), a),
                viaProxy(server.port(), a)));
            assertEquals(List.of(200, 200), List.of(viaProxy(server.port(), b), viaProxy(server.port(), b)));
            final byte[] six1 = v2("2001:db8:1:2::5", "2001:db8::1");
            final byte[] six2 = v2("2001:db8:1:2:ffff::6", "2001:db8::1");
            final byte[] other = v2("2001:db8:1:3::5", "2001:db8::1");
            assertEquals(List.of(200, 200, 429), List.of(viaProxy(server.port(), six1), viaProxy(server.port(), six2),
                viaProxy(server.port(), six1)), "one /64, one budget");
            assertEquals(200, viaProxy(server.port(), other), "another /64");
            assertEquals(0, config.noKeyCount());
        }
    }

    /** One connection from the load balancer: the PROXY header, then one request. */
    private static int viaProxy(final int port, final byte[] proxyHeader) throws Exception
    {
        try (RawClient client = new RawClient("127.0.0.1", "127.0.0.1", port))
        {
            final ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.write(proxyHeader);
            out.write(RawClient.request("/p").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            client.write(out.toByteArray());
            return client.read().status();
        }
    }

    /** A PROXY protocol v2 header (PROXY command, TCP, IPv4 or IPv6 by the source's form). */
    static byte[] v2(final String source, final String destination) throws Exception
    {
        final byte[] src = InetAddress.getByName(source).getAddress();
        final byte[] dst = InetAddress.getByName(destination).getAddress();
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(new byte[]{0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A});
        out.write(0x21); // version 2, PROXY
        out.write(4 == src.length ? 0x11 : 0x21); // TCP over IPv4 / IPv6
        final int length = 2 * src.length + 4;
        out.write(length >> 8);
        out.write(length & 0xFF);
        out.write(src);
        out.write(dst);
        out.write(new byte[]{0x12, 0x67, 0x00, 0x50}); // ports 4711, 80
        return out.toByteArray();
    }

    /**
     * HAProxy's {@code option forwardfor} adds a new field line: a client's forged {@code X-Forwarded-For:
     * 6.6.6.<i>} arrives first, HAProxy's {@code X-Forwarded-For: 1.1.1.1} after it. With one trusted hop,
     * 13 requests from 1.1.1.1 get exactly its burst of 10.
     */
    @Test
    void haproxyAppendedLineIsTheTrustedHop() throws Exception
    {
        final HttpRateLimit config = policing(Limit.perSecond(1, 10), ForwardedKey.xForwardedFor(1, 64));
        try (TestServer server = new TestServer(config, false))
        {
            final List<Integer> statuses = new ArrayList<>();
            for (int i = 0; i < 13; i++)
            {
                statuses.add(RawClient.get("127.0.0.1", "127.0.0.1", server.port(), "/h",
                    "X-Forwarded-For: 6.6.6." + i, "X-Forwarded-For: 1.1.1.1"));
            }
            assertEquals(10, admitted(statuses), statuses.toString());
        }
    }

    /** NGINX's {@code $proxy_add_x_forwarded_for} appends to the one line: the same 10 of 13. */
    @Test
    void nginxAppendedEntryIsTheTrustedHop() throws Exception
    {
        final HttpRateLimit config = policing(Limit.perSecond(1, 10), ForwardedKey.xForwardedFor(1, 64));
        try (TestServer server = new TestServer(config, false))
        {
            final List<Integer> statuses = new ArrayList<>();
            for (int i = 0; i < 13; i++)
            {
                statuses.add(RawClient.get("127.0.0.1", "127.0.0.1", server.port(), "/n",
                    "X-Forwarded-For: 6.6.6." + i + ", 1.1.1.1"));
            }
            assertEquals(10, admitted(statuses), statuses.toString());
        }
    }

    /**
     * Two trusted hops, HAProxy at the edge (a new line) and NGINX behind it (appends to the last line): the
     * client is the entry HAProxy wrote, second from the right over both lines, whatever the client sent.
     */
    @Test
    void hopsAreCountedOverEveryLine() throws Exception
    {
        final HttpRateLimit config = policing(Limit.perSecond(1, 3), ForwardedKey.xForwardedFor(2, 64));
        try (TestServer server = new TestServer(config, false))
        {
            final List<Integer> statuses = new ArrayList<>();
            for (int i = 0; i < 5; i++)
            {
                statuses.add(RawClient.get("127.0.0.1", "127.0.0.1", server.port(), "/2",
                    "X-Forwarded-For: 6.6.6." + i + ", 7.7.7." + i, "X-Forwarded-For: 198.51.100.7, 10.0.0.2"));
            }
            assertEquals(List.of(200, 200, 200, 429, 429), statuses);
            assertEquals(200, RawClient.get("127.0.0.1", "127.0.0.1", server.port(), "/2",
                "X-Forwarded-For: 198.51.100.8, 10.0.0.2"), "another client behind the same proxies");
            assertEquals(0, config.noKeyCount());
        }
    }

    /** RFC 7239 {@code Forwarded} with a proxy's new line after the client's: the same 10 of 13. */
    @Test
    void forwardedElementsAreCountedOverEveryLine() throws Exception
    {
        final HttpRateLimit config = policing(Limit.perSecond(1, 10), ForwardedKey.forwarded(1, 64));
        try (TestServer server = new TestServer(config, false))
        {
            final List<Integer> statuses = new ArrayList<>();
            for (int i = 0; i < 13; i++)
            {
                statuses.add(RawClient.get("127.0.0.1", "127.0.0.1", server.port(), "/f",
                    "Forwarded: for=6.6.6." + i, "Forwarded: for=\"[2001:db8:cafe::17]:4711\";proto=http"));
            }
            assertEquals(10, admitted(statuses), statuses.toString());
        }
    }

    /**
     * Envoy appends the downstream address to the one {@code X-Forwarded-For} line and writes the client it
     * trusts as {@code x-envoy-external-address}: the client's forged entries never become its key.
     */
    @Test
    void envoyExternalAddressIsTheKey() throws Exception
    {
        final HttpRateLimit config = policing(Limit.perSecond(1, 10), ForwardedKey.envoyExternalAddress(64));
        try (TestServer server = new TestServer(config, false))
        {
            final List<Integer> statuses = new ArrayList<>();
            for (int i = 0; i < 13; i++)
            {
                statuses.add(RawClient.get("127.0.0.1", "127.0.0.1", server.port(), "/e",
                    "X-Forwarded-For: 6.6.6." + i + ", 1.1.1.1", "x-envoy-external-address: 1.1.1.1"));
            }
            assertEquals(10, admitted(statuses), statuses.toString());
            assertEquals(200, RawClient.get("127.0.0.1", "127.0.0.1", server.port(), "/e",
                "X-Forwarded-For: 1.1.1.1, 1.1.1.2", "x-envoy-external-address: 1.1.1.2"));
            assertEquals(0, config.noKeyCount());
        }
    }
}
