package dev.cellrate.netty;

import io.netty.channel.Channel;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.util.AsciiString;

/**
 * The client address as reported by trusted reverse proxies, from {@code X-Forwarded-For} or RFC 7239
 * {@code Forwarded}, counted <b>from the right</b>: with {@code trustedHops = n}, the n-th entry from the
 * right is the client (each trusted proxy appends the address it received the request from, so the entries
 * further left are whatever the client chose to send and are never used). A header with fewer than
 * {@code n} entries, an entry that is not an IP literal ({@code unknown}, an obfuscated identifier), or no
 * header at all is {@link #NO_KEY}: the handler's fallback decides.
 * <p>
 * Only the first field line of the header is read: the trusted proxies must append to one line (nginx
 * {@code $proxy_add_x_forwarded_for}, HAProxy {@code option forwardfor}, Envoy do). Parsing allocates
 * nothing.
 */
public final class ForwardedKey implements KeyExtractor
{
    private static final AsciiString X_FORWARDED_FOR = AsciiString.cached("x-forwarded-for");
    private static final AsciiString FORWARDED = AsciiString.cached("forwarded");

    private final int trustedHops;
    private final int ipv6PrefixBits;
    private final boolean rfc7239;

    private ForwardedKey(final int trustedHops, final int ipv6PrefixBits, final boolean rfc7239)
    {
        if (trustedHops < 1 || trustedHops > 64)
        {
            throw new IllegalArgumentException("trustedHops must be in [1, 64] but was " + trustedHops);
        }
        this.trustedHops = trustedHops;
        this.ipv6PrefixBits = IpAddresses.requirePrefix(ipv6PrefixBits);
        this.rfc7239 = rfc7239;
    }

    /**
     * @param trustedHops    the number of trusted proxies in front of this server, in [1, 64].
     * @param ipv6PrefixBits the IPv6 prefix that makes one client.
     * @return an {@code X-Forwarded-For} resolver.
     */
    public static ForwardedKey xForwardedFor(final int trustedHops, final int ipv6PrefixBits)
    {
        return new ForwardedKey(trustedHops, ipv6PrefixBits, false);
    }

    /**
     * @param trustedHops    the number of trusted proxies in front of this server, in [1, 64].
     * @param ipv6PrefixBits the IPv6 prefix that makes one client.
     * @return an RFC 7239 {@code Forwarded} resolver (the {@code for=} parameter of each element).
     */
    public static ForwardedKey forwarded(final int trustedHops, final int ipv6PrefixBits)
    {
        return new ForwardedKey(trustedHops, ipv6PrefixBits, true);
    }

    public int extract(final Channel channel, final HttpRequest request, final byte[] dst)
    {
        final CharSequence value = request.headers().get(rfc7239 ? FORWARDED : X_FORWARDED_FOR);
        return null == value ? NO_KEY : resolve(value, dst);
    }

    /**
     * @param value the header value.
     * @param dst   destination, at least 17 bytes.
     * @return the key length, or {@link #NO_KEY}.
     */
    int resolve(final CharSequence value, final byte[] dst)
    {
        if (value.length() > 4096)
        {
            return NO_KEY;
        }
        int end = value.length();
        for (int hop = 1; hop <= trustedHops; hop++)
        {
            if (end < 0)
            {
                return NO_KEY;
            }
            int start = end - 1;
            while (start >= 0 && ',' != value.charAt(start))
            {
                start--;
            }
            if (hop == trustedHops)
            {
                return rfc7239 ? forParam(value, start + 1, end, dst) : literal(value, start + 1, end, dst);
            }
            end = start;
        }
        return NO_KEY;
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
