package dev.cellrate.netty;

import io.netty.channel.Channel;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.util.AsciiString;

import java.util.Iterator;
import java.util.Map;

/**
 * The client address as reported by trusted reverse proxies, counted <b>from the right</b>: from
 * {@code X-Forwarded-For}, RFC 7239 {@code Forwarded}, or Envoy's {@code x-envoy-external-address}.
 * <p>
 * {@code X-Forwarded-For} and {@code Forwarded} are lists, and a proxy adds the address it received the
 * request from at the end: NGINX's {@code $proxy_add_x_forwarded_for} appends it to the one field line,
 * HAProxy's {@code option forwardfor} adds a new field line after the ones the request came with. Both are one
 * list (RFC 9110 &sect;5.3: field lines of one name combine, in order, into one comma-separated list), so the
 * entries are counted from the right over <em>every</em> field line of the header, in order. With
 * {@code trustedHops = n}, the n-th entry from the right is the client; the entries further left are
 * whatever the client chose to send and are never used. A header with fewer than {@code n} entries, an entry
 * that is not an IP literal ({@code unknown}, an obfuscated identifier), more than
 * {@value #MAX_HEADER_CHARS} characters in the lines read to find the entry, or no header at all is
 * {@link #NO_KEY}: the handler's fallback decides.
 * <p>
 * Envoy ({@link #envoyExternalAddress}) resolves the trusted hops itself (its {@code xff_num_trusted_hops})
 * and writes the result as {@code x-envoy-external-address}, one IP literal, after removing any copy the
 * client sent; the last field line is read.
 * <p>
 * Parsing allocates nothing of its own: on Netty's own header map, one pass from the newest line whose
 * iterator the JIT removes; on any other map, two passes over its lines in arrival order.
 */
public final class ForwardedKey implements KeyExtractor
{
    /** The most characters read over the field lines of the header; past it, the request has no key. */
    public static final int MAX_HEADER_CHARS = 8192;

    private static final AsciiString X_FORWARDED_FOR = AsciiString.cached("x-forwarded-for");
    private static final AsciiString FORWARDED = AsciiString.cached("forwarded");
    private static final AsciiString X_ENVOY_EXTERNAL_ADDRESS = AsciiString.cached("x-envoy-external-address");

    private static final int XFF = 0;
    private static final int RFC7239 = 1;
    private static final int ENVOY = 2;

    /** Whether Netty's {@link DefaultHttpHeaders} iterates a name's values newest first (probed once). */
    static final boolean NEWEST_FIRST = probeNewestFirst();

    private final int trustedHops;
    private final int ipv6PrefixBits;
    private final int format;
    private final AsciiString name;

    private ForwardedKey(final int trustedHops, final int ipv6PrefixBits, final int format)
    {
        if (trustedHops < 1 || trustedHops > 64)
        {
            throw new IllegalArgumentException("trustedHops must be in [1, 64] but was " + trustedHops);
        }
        this.trustedHops = trustedHops;
        this.ipv6PrefixBits = IpAddresses.requirePrefix(ipv6PrefixBits);
        this.format = format;
        this.name = XFF == format ? X_FORWARDED_FOR : RFC7239 == format ? FORWARDED : X_ENVOY_EXTERNAL_ADDRESS;
    }

    private static boolean probeNewestFirst()
    {
        final HttpHeaders probe = new DefaultHttpHeaders();
        probe.add(X_FORWARDED_FOR, "1").add(FORWARDED, "x").add(X_FORWARDED_FOR, "2").add(X_FORWARDED_FOR, "3");
        final StringBuilder order = new StringBuilder();
        for (final Iterator<? extends CharSequence> it = probe.valueCharSequenceIterator(X_FORWARDED_FOR); it.hasNext(); )
        {
            order.append(it.next());
        }
        return "321".contentEquals(order);
    }

    /**
     * @param trustedHops    the number of trusted proxies in front of this server, in [1, 64].
     * @param ipv6PrefixBits the IPv6 prefix that makes one client.
     * @return an {@code X-Forwarded-For} resolver.
     */
    public static ForwardedKey xForwardedFor(final int trustedHops, final int ipv6PrefixBits)
    {
        return new ForwardedKey(trustedHops, ipv6PrefixBits, XFF);
    }

    /**
     * @param trustedHops    the number of trusted proxies in front of this server, in [1, 64].
     * @param ipv6PrefixBits the IPv6 prefix that makes one client.
     * @return an RFC 7239 {@code Forwarded} resolver (the {@code for=} parameter of each element).
     */
    public static ForwardedKey forwarded(final int trustedHops, final int ipv6PrefixBits)
    {
        return new ForwardedKey(trustedHops, ipv6PrefixBits, RFC7239);
    }

    /**
     * For a server behind Envoy only (Envoy must be the proxy that reaches this server, so that no client
     * can set the header).
     *
     * @param ipv6PrefixBits the IPv6 prefix that makes one client.
     * @return an {@code x-envoy-external-address} resolver.
     */
    public static ForwardedKey envoyExternalAddress(final int ipv6PrefixBits)
    {
        return new ForwardedKey(1, ipv6PrefixBits, ENVOY);
    }

    public int extract(final Channel channel, final HttpRequest request, final byte[] dst)
    {
        final HttpHeaders headers = request.headers();
        return NEWEST_FIRST && DefaultHttpHeaders.class == headers.getClass() ?
            fromTheNewestLine(headers, dst) : inArrivalOrder(headers, dst);
    }

    /**
     * Netty's own header map (what its HTTP/1.1 decoder and HTTP/2 conversion build) gives a name's values
     * newest first (checked when the class loads, {@link #NEWEST_FIRST}): one pass from the right over the
     * lines, and the iterator is the only object (short-lived; scalar-replaced by the JIT in the handler's
     * benchmark).
     */
    private int fromTheNewestLine(final HttpHeaders headers, final byte[] dst)
    {
        final Iterator<? extends CharSequence> lines = headers.valueCharSequenceIterator(name);
        if (ENVOY == format)
        {
            if (!lines.hasNext())
            {
                return NO_KEY;
            }
            final CharSequence last = lines.next();
            return last.length() > MAX_HEADER_CHARS ? NO_KEY : literal(last, 0, last.length(), dst);
        }
        int hop = 0;
        int chars = 0;
        while (lines.hasNext())
        {
            final CharSequence line = lines.next();
            chars += line.length();
            if (chars > MAX_HEADER_CHARS)
            {
                return NO_KEY;
            }
            int end = line.length();
            while (true)
            {
                int start = end - 1;
                while (start >= 0 && ',' != line.charAt(start))
                {
                    start--;
                }
                if (++hop == trustedHops)
                {
                    return RFC7239 == format ? forParam(line, start + 1, end, dst) : literal(line, start + 1, end, dst);
                }
                if (start < 0)
                {
                    break;
                }
                end = start;
            }
        }
        return NO_KEY;
    }

    /** Any other header map: its lines in arrival order (the iteration over all headers), counted twice. */
    private int inArrivalOrder(final HttpHeaders headers, final byte[] dst)
    {
        final AsciiString name = this.name;
        if (ENVOY == format)
        {
            CharSequence last = null;
            for (final Iterator<Map.Entry<CharSequence, CharSequence>> it = headers.iteratorCharSequence(); it.hasNext(); )
            {
                final Map.Entry<CharSequence, CharSequence> line = it.next();
                if (name.contentEqualsIgnoreCase(line.getKey()))
                {
                    last = line.getValue();
                }
            }
            return null == last || last.length() > MAX_HEADER_CHARS ? NO_KEY : literal(last, 0, last.length(), dst);
        }
        // pass 1: count the entries of all lines (and bound the work)
        int entries = 0;
        int chars = 0;
        for (final Iterator<Map.Entry<CharSequence, CharSequence>> it = headers.iteratorCharSequence(); it.hasNext(); )
        {
            final Map.Entry<CharSequence, CharSequence> line = it.next();
            if (name.contentEqualsIgnoreCase(line.getKey()))
            {
                final CharSequence value = line.getValue();
                chars += value.length();
                if (chars > MAX_HEADER_CHARS)
                {
                    return NO_KEY;
                }
                entries += commas(value, 0, value.length()) + 1;
            }
        }
        if (entries < trustedHops)
        {
            return NO_KEY;
        }
        // pass 2: the entry at index (entries - trustedHops) from the left, over all lines
        int skip = entries - trustedHops;
        for (final Iterator<Map.Entry<CharSequence, CharSequence>> it = headers.iteratorCharSequence(); it.hasNext(); )
        {
            final Map.Entry<CharSequence, CharSequence> line = it.next();
            if (!name.contentEqualsIgnoreCase(line.getKey()))
            {
                continue;
            }
            final CharSequence value = line.getValue();
            final int inLine = commas(value, 0, value.length()) + 1;
            if (skip >= inLine)
            {
                skip -= inLine;
                continue;
            }
            return entry(value, skip, dst);
        }
        return NO_KEY;
    }

    /**
     * @param value one header value (one field line).
     * @param dst   destination, at least 17 bytes.
     * @return the key of the value alone, as if it were the only field line, or {@link #NO_KEY}.
     */
    int resolve(final CharSequence value, final byte[] dst)
    {
        if (value.length() > MAX_HEADER_CHARS)
        {
            return NO_KEY;
        }
        if (ENVOY == format)
        {
            return literal(value, 0, value.length(), dst);
        }
        final int entries = commas(value, 0, value.length()) + 1;
        return entries < trustedHops ? NO_KEY : entry(value, entries - trustedHops, dst);
    }

    private static int commas(final CharSequence v, final int from, final int to)
    {
        int n = 0;
        for (int i = from; i < to; i++)
        {
            if (',' == v.charAt(i))
            {
                n++;
            }
        }
        return n;
    }

    /** The key of the {@code index}-th comma-separated entry of one line. */
    private int entry(final CharSequence v, final int index, final byte[] dst)
    {
        int start = 0;
        for (int i = 0; i < index; i++)
        {
            while (',' != v.charAt(start))
            {
                start++;
            }
            start++;
        }
        int end = start;
        while (end < v.length() && ',' != v.charAt(end))
        {
            end++;
        }
        return RFC7239 == format ? forParam(v, start, end, dst) : literal(v, start, end, dst);
    }

    private int literal(final CharSequence v, int from, int to, final byte[] dst)
    {
        while (from < to && ' ' == v.charAt(from) || from < to && '\t' == v.charAt(from))
        {
            from++;
        }
        while (to > from && (' ' == v.charAt(to - 1) || '\t' == v.charAt(to - 1)))
        {
            to--;
        }
        return IpAddresses.parseKey(v, from, to, ipv6PrefixBits, dst, 0);
    }

    private int forParam(final CharSequence v, final int from, final int to, final byte[] dst)
    {
        // element = pair *( ";" pair ); find for=
        int p = from;
        while (p < to)
        {
            while (p < to && (' ' == v.charAt(p) || ';' == v.charAt(p)))
            {
                p++;
            }
            int pairEnd = p;
            boolean quoted = false;
            while (pairEnd < to && (quoted || ';' != v.charAt(pairEnd)))
            {
                if ('"' == v.charAt(pairEnd))
                {
                    quoted = !quoted;
                }
                pairEnd++;
            }
            if (pairEnd - p > 4 && ('f' == (v.charAt(p) | 0x20)) && ('o' == (v.charAt(p + 1) | 0x20)) &&
                ('r' == (v.charAt(p + 2) | 0x20)) && '=' == v.charAt(p + 3))
            {
                return forValue(v, p + 4, pairEnd, dst);
            }
            p = pairEnd;
        }
        return NO_KEY;
    }

    private int forValue(final CharSequence v, int from, int to, final byte[] dst)
    {
        while (to > from && ' ' == v.charAt(to - 1))
        {
            to--;
        }
        if (to - from >= 2 && '"' == v.charAt(from) && '"' == v.charAt(to - 1))
        {
            from++;
            to--;
        }
        if (from < to && '[' == v.charAt(from))
        {
            int close = from + 1;
            while (close < to && ']' != v.charAt(close))
            {
                close++;
            }
            return close < to ? IpAddresses.parseKey(v, from + 1, close, ipv6PrefixBits, dst, 0) : NO_KEY;
        }
        int colon = from;
        while (colon < to && ':' != v.charAt(colon))
        {
            colon++;
        }
        return IpAddresses.parseKey(v, from, colon, ipv6PrefixBits, dst, 0); // IPv4, optional ":port"
    }
}
