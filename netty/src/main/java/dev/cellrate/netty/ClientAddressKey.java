package dev.cellrate.netty;

import io.netty.channel.Channel;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.util.AttributeKey;

import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * The client's socket address (the default key): the remote address of the accepted connection the request
 * arrived on, IPv4 exact, IPv6 grouped by a prefix (default /64; /56 and /48 are wider tiers, see
 * {@link IpAddresses}). The key is computed once per connection and cached on that connection's channel (for
 * an HTTP/2 stream, on the connection the stream belongs to; never on the listening server channel, which
 * every client shares), so requests allocate nothing. A channel without an IP address (a local or embedded
 * channel) has no key: the handler's fallback decides.
 */
public final class ClientAddressKey implements KeyExtractor
{
    private static final byte[] NONE = new byte[0];

    private final int ipv6PrefixBits;
    private final AttributeKey<byte[]> cacheKey;

    /**
     * @param ipv6PrefixBits the IPv6 prefix that makes one client, in [1, 128].
     */
    public ClientAddressKey(final int ipv6PrefixBits)
    {
        this.ipv6PrefixBits = IpAddresses.requirePrefix(ipv6PrefixBits);
        this.cacheKey = AttributeKey.valueOf("cellrate.clientAddressKey/" + ipv6PrefixBits);
    }

    /**
     * @return the default: IPv6 grouped by /64.
     */
    public static ClientAddressKey perClient()
    {
        return new ClientAddressKey(IpAddresses.IPV6_64);
    }

    public int extract(final Channel channel, final HttpRequest request, final byte[] dst)
    {
        final Channel connection = ConnectionChannel.of(channel);
        byte[] key = connection.attr(cacheKey).get();
        if (null == key)
        {
            key = compute(connection.remoteAddress(), ipv6PrefixBits);
            connection.attr(cacheKey).set(key);
        }
        if (NONE == key)
        {
            return NO_KEY;
        }
        System.arraycopy(key, 0, dst, 0, key.length);
        return key.length;
    }

    static byte[] compute(final SocketAddress address, final int ipv6PrefixBits)
    {
        if (!(address instanceof InetSocketAddress) || null == ((InetSocketAddress)address).getAddress())
        {
            return NONE;
        }
        final byte[] scratch = new byte[17];
        final int n = IpAddresses.key(((InetSocketAddress)address).getAddress().getAddress(), ipv6PrefixBits, scratch, 0);
        return n < 0 ? NONE : java.util.Arrays.copyOf(scratch, n);
    }
}
