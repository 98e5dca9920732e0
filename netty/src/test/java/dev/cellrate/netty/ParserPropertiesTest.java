package dev.cellrate.netty;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.haproxy.HAProxyMessageDecoder;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.ReadOnlyHttpHeaders;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Properties of the key parsers over generated input (jqwik): whatever a client sends, a forwarded-header or
 * PROXY-protocol extractor answers a well-formed key or {@link KeyExtractor#NO_KEY}, never throws; and when
 * trusted proxies wrote their entries as HAProxy (a new field line) or NGINX (appended to the last line) do, the
 * key is the address the edge proxy saw, never one the client chose.
 */
final class ParserPropertiesTest
{
    static
    {
        LeakCheck.install();
    }

    private static final EmbeddedChannel CHANNEL = new EmbeddedChannel();
    private static final String NASTY = ",; \t\"[]:=._-/abcdefxFORfor0123456789unknownUNKNOWN\u00ff\u0080\u0000";

    /** Client-written header text: biased towards the parsers' own syntax, and any text at all. */
    @Provide
    Arbitrary<String> clientText()
    {
        return Arbitraries.oneOf(
            Arbitraries.strings().withChars(NASTY.toCharArray()).ofMaxLength(80),
            Arbitraries.strings().ascii().ofMaxLength(80),
            Arbitraries.strings().all().ofMaxLength(40),
            ip().map(ip -> ip.literal),
            ip().map(ip -> "for=" + ip.forValue()));
    }

    @Provide
    Arbitrary<Ip> ip()
    {
        final Arbitrary<Ip> v4 = Arbitraries.bytes().array(byte[].class).ofSize(4).map(Ip::of);
        final Arbitrary<Ip> v6 = Arbitraries.bytes().array(byte[].class).ofSize(16).map(Ip::of);
        return Arbitraries.oneOf(v4, v6);
    }

    /** An address, its textual form as a proxy writes it, and the key the engine should see. */
    record Ip(byte[] address, String literal)
    {
        static Ip of(final byte[] address)
        {
            try
            {
                return new Ip(address, InetAddress.getByAddress(address).getHostAddress());
            }
            catch (final Exception e)
            {
                throw new IllegalStateException(e);
            }
        }

        boolean v6()
        {
            return literal.indexOf(':') >= 0;
        }

        /** RFC 7239 node: IPv6 quoted and bracketed, with a port. */
        String forValue()
        {
            return v6() ? "\"[" + literal + "]:4711\"" : literal;
        }

        byte[] key(final int prefix)
        {
            final byte[] dst = new byte[17];
            final int n = IpAddresses.key(address, prefix, dst, 0);
            return Arrays.copyOf(dst, n);
        }
    }

    /**
     * A request with the lines in Netty's own header map ({@code otherMap} false) or in another implementation
     * (Netty's {@code ReadOnlyHttpHeaders}), which the extractor reads by another path.
     */
    private static HttpRequest request(final String name, final List<String> lines, final boolean otherMap)
    {
        if (!otherMap)
        {
            return request(name, lines);
        }
        final CharSequence[] pairs = new CharSequence[2 * lines.size() + 2];
        pairs[0] = "host";
        pairs[1] = "x";
        for (int i = 0; i < lines.size(); i++)
        {
            pairs[2 + 2 * i] = name;
            pairs[3 + 2 * i] = lines.get(i);
        }
        return new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/",
            new ReadOnlyHttpHeaders(false, pairs));
    }

    private static HttpRequest request(final String name, final List<String> lines)
    {
        final HttpRequest request = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/",
            DefaultHttpHeadersFactory.headersFactory().withValidation(false));
        for (final String line : lines)
        {
            request.headers().add(name, line);
        }
        return request;
    }

    private static void assertWellFormed(final int n, final byte[] dst)
    {
        assertTrue(KeyExtractor.NO_KEY == n || (5 == n && 4 == dst[0]) || (17 == n && 6 == dst[0]),
            "a key of 5 (IPv4) or 17 (IPv6) bytes, or NO_KEY: " + n);
    }

    @Property(tries = 2000)
    void anyForwardedHeaderGivesAKeyOrTheFallback(
        @ForAll @Size(max = 6) final List<@From("clientText") String> lines,
        @ForAll @IntRange(min = 1, max = 64) final int hops,
        @ForAll @IntRange(min = 1, max = 128) final int prefix,
        @ForAll final boolean otherMap)
    {
        final byte[] dst = new byte[KeyExtractor.MAX_KEY_LENGTH];
        assertWellFormed(ForwardedKey.xForwardedFor(hops, prefix)
            .extract(CHANNEL, request("X-Forwarded-For", lines, otherMap), dst), dst);
        assertWellFormed(ForwardedKey.forwarded(hops, prefix)
            .extract(CHANNEL, request("Forwarded", lines, otherMap), dst), dst);
        assertWellFormed(ForwardedKey.envoyExternalAddress(prefix)
            .extract(CHANNEL, request("x-envoy-external-address", lines, otherMap), dst), dst);
    }

    /** How a trusted proxy adds the address it received the request from. */
    enum Append
    {
        /** HAProxy {@code option forwardfor}: a new field line. */
        NEW_LINE,
        /** NGINX {@code $proxy_add_x_forwarded_for}: appended to the (last) line, or a new one if none. */
        SAME_LINE
    }

    @Provide
    Arbitrary<List<Append>> appends()
    {
        return Arbitraries.of(Append.class).list().ofMinSize(1).ofMaxSize(8);
    }

    @Provide
    Arbitrary<List<Ip>> proxies()
    {
        return ip().list().ofSize(8);
    }

    private static List<String> behindProxies(
        final List<String> client, final Ip edgeSaw, final List<Ip> proxies, final List<Append> appends,
        final boolean rfc7239)
    {
        final List<String> lines = new ArrayList<>(client);
        for (int i = 0; i < appends.size(); i++)
        {
            final Ip from = 0 == i ? edgeSaw : proxies.get(i - 1);
            final String entry = rfc7239 ? "for=" + from.forValue() + ";proto=http" : from.literal;
            if (Append.SAME_LINE == appends.get(i) && !lines.isEmpty())
            {
                lines.set(lines.size() - 1, lines.get(lines.size() - 1) + ", " + entry);
            }
            else
            {
                lines.add(entry);
            }
        }
        return lines;
    }

    @Property(tries = 2000)
    void theKeyIsWhatTheEdgeProxySawNeverWhatTheClientWrote(
        @ForAll @Size(max = 5) final List<@From("clientText") String> client,
        @ForAll("ip") final Ip edgeSaw,
        @ForAll("proxies") final List<Ip> proxies,
        @ForAll("appends") final List<Append> appends,
        @ForAll @IntRange(min = 1, max = 128) final int prefix,
        @ForAll final boolean otherMap)
    {
        final int hops = appends.size();
        final byte[] dst = new byte[KeyExtractor.MAX_KEY_LENGTH];
        for (final boolean rfc7239 : new boolean[]{false, true})
        {
            final List<String> lines = behindProxies(client, edgeSaw, proxies, appends, rfc7239);
            final ForwardedKey key = rfc7239 ? ForwardedKey.forwarded(hops, prefix) : ForwardedKey.xForwardedFor(hops, prefix);
            final int n = key.extract(CHANNEL, request(rfc7239 ? "Forwarded" : "X-Forwarded-For", lines, otherMap), dst);
            assertArrayEquals(edgeSaw.key(prefix), n < 0 ? null : Arrays.copyOf(dst, n),
                "the edge's entry over " + lines);
        }
        // Envoy: the client's own copy of the header is removed, its resolved address written once
        final List<String> envoy = List.of(edgeSaw.literal);
        final int n = ForwardedKey.envoyExternalAddress(prefix)
            .extract(CHANNEL, request("x-envoy-external-address", envoy, otherMap), dst);
        assertArrayEquals(edgeSaw.key(prefix), Arrays.copyOf(dst, n));
    }

    /** The load balancer's PROXY v1 line for a source: its key is the source's, by the configured prefix. */
    @Property(tries = 500)
    void aProxyProtocolV1SourceIsTheKey(@ForAll("ip") final Ip source, @ForAll @IntRange(min = 1, max = 128) final int prefix)
    {
        final String family = source.v6() ? "TCP6" : "TCP4";
        final String destination = source.v6() ? "2001:db8::1" : "192.0.2.1";
        final byte[] header = ("PROXY " + family + " " + source.literal + " " + destination + " 4711 80\r\n")
            .getBytes(StandardCharsets.US_ASCII);
        assertArrayEquals(source.key(prefix), proxyKey(header, prefix));
    }

    @Property(tries = 500)
    void aProxyProtocolV2SourceIsTheKey(
        @ForAll("ip") final Ip source, @ForAll @IntRange(min = 1, max = 128) final int prefix,
        @ForAll @Size(max = 40) final List<Byte> tlvBytes) throws Exception
    {
        final byte[] header = v2(source, tlvBytes);
        assertArrayEquals(source.key(prefix), proxyKey(header, prefix));
    }

    /** Any bytes where the PROXY header should be: never a key unless the decoder parsed a source, never a throw of ours. */
    @Property(tries = 1000)
    void anyBytesGiveAKeyOrNone(
        @ForAll @Size(max = 120) final List<Byte> bytes, @ForAll final boolean v2Signature,
        @ForAll @IntRange(min = 1, max = 128) final int prefix)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        if (v2Signature)
        {
            out.writeBytes(V2_SIGNATURE);
        }
        for (final Byte b : bytes)
        {
            out.write(b);
        }
        final byte[] key = proxyKey(out.toByteArray(), prefix);
        assertTrue(null == key || 5 == key.length || 17 == key.length, Arrays.toString(key));
    }

    private static final byte[] V2_SIGNATURE = {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A};

    private static byte[] v2(final Ip source, final List<Byte> tlvBytes) throws Exception
    {
        final byte[] destination = new byte[source.address.length];
        final ByteArrayOutputStream tlvs = new ByteArrayOutputStream();
        // a NOOP TLV (type 0x04) carrying the generated bytes, as a load balancer may add padding
        if (!tlvBytes.isEmpty())
        {
            tlvs.write(0x04);
            tlvs.write(tlvBytes.size() >> 8);
            tlvs.write(tlvBytes.size() & 0xFF);
            for (final Byte b : tlvBytes)
            {
                tlvs.write(b);
            }
        }
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(V2_SIGNATURE);
        out.write(0x21);
        out.write(4 == source.address.length ? 0x11 : 0x21);
        final int length = 2 * source.address.length + 4 + tlvs.size();
        out.write(length >> 8);
        out.write(length & 0xFF);
        out.write(source.address);
        out.write(destination);
        out.write(new byte[]{0x12, 0x67, 0x00, 0x50});
        out.write(tlvs.toByteArray());
        return out.toByteArray();
    }

    /**
     * Feed a connection's first bytes through Netty's decoder and the capture handler, then extract.
     * Only the decoder may refuse the bytes (its own exception); the extractor answers a key or none.
     */
    private static byte[] proxyKey(final byte[] firstBytes, final int prefix)
    {
        final ProxyProtocolKey proxy = new ProxyProtocolKey(prefix);
        final EmbeddedChannel ch = new EmbeddedChannel(new HAProxyMessageDecoder(), proxy.capture());
        try
        {
            ch.writeInbound(Unpooled.wrappedBuffer(firstBytes));
        }
        catch (final DecoderException refusedByNettysDecoder)
        {
            // not a PROXY header: Netty's HAProxyMessageDecoder refuses it (the connection is then closed)
        }
        final byte[] dst = new byte[KeyExtractor.MAX_KEY_LENGTH];
        final int n = proxy.extract(ch, request("x", List.of()), dst);
        ch.finishAndReleaseAll();
        assertWellFormed(n, dst);
        return n < 0 ? null : Arrays.copyOf(dst, n);
    }

    @Property(tries = 2000)
    void anyTextIsAnAddressKeyOrNone(
        @ForAll("clientText") final String text, @ForAll @IntRange(min = 1, max = 128) final int prefix)
    {
        final byte[] dst = new byte[17];
        final int n = IpAddresses.parseKey(text, 0, text.length(), prefix, dst, 0);
        assertWellFormed(n, dst);
        if (n > 0)
        {
            // what was parsed is the address a strict reader sees: dotted decimal, or an IPv6 literal the JDK
            // parses (a text with ':' is never looked up in DNS)
            final byte[] address = text.indexOf(':') < 0 ? dottedDecimal(text) : jdkIpv6(text);
            assertArrayEquals(Ip.of(address).key(prefix), Arrays.copyOf(dst, n), text);
        }
    }

    private static byte[] dottedDecimal(final String text)
    {
        final String[] parts = text.split("\\.", -1);
        assertEquals(4, parts.length, text);
        final byte[] address = new byte[4];
        for (int i = 0; i < 4; i++)
        {
            assertTrue(parts[i].matches("[0-9]{1,3}") && Integer.parseInt(parts[i]) <= 255, text);
            address[i] = (byte)Integer.parseInt(parts[i]);
        }
        return address;
    }

    private static byte[] jdkIpv6(final String text)
    {
        try
        {
            return InetAddress.getByName(text).getAddress();
        }
        catch (final java.net.UnknownHostException e)
        {
            throw new AssertionError("parsed as an address, but the JDK refuses it: " + text, e);
        }
    }
}
