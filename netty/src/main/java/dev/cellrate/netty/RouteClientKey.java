package dev.cellrate.netty;

import io.netty.channel.Channel;
import io.netty.handler.codec.http.HttpRequest;

/**
 * A route + client composite: the index of the first configured path prefix the request URI starts with
 * (two bytes; {@code 0xFFFF} for no match), then the client key of another extractor. One client gets one
 * budget per route. No allocation ({@code String.startsWith} on the URI Netty already decoded).
 */
public final class RouteClientKey implements KeyExtractor
{
    private final String[] prefixes;
    private final KeyExtractor client;

    /**
     * @param prefixes path prefixes, first match wins (at most 65535).
     * @param client   the client part of the key.
     */
    public RouteClientKey(final String[] prefixes, final KeyExtractor client)
    {
        if (null == prefixes || prefixes.length > 0xFFFE || null == client)
        {
            throw new IllegalArgumentException("prefixes (at most 65534) and client must not be null");
        }
        this.prefixes = prefixes.clone();
        this.client = client;
    }

    /**
     * @param uri a request URI.
     * @return the route index, or 0xFFFF for none.
     */
    public int route(final String uri)
    {
        for (int i = 0; i < prefixes.length; i++)
        {
            if (uri.startsWith(prefixes[i]))
            {
                return i;
            }
        }
        return 0xFFFF;
    }

    public int extract(final Channel channel, final HttpRequest request, final byte[] dst)
    {
        final int n = client.extract(channel, request, dst);
        if (n < 0 || n > MAX_KEY_LENGTH - 2)
        {
            return NO_KEY;
        }
        System.arraycopy(dst, 0, dst, 2, n); // overlapping copy is defined for one array
        final int route = route(request.uri());
        dst[0] = (byte)(route >> 8);
        dst[1] = (byte)route;
        return n + 2;
    }
}
