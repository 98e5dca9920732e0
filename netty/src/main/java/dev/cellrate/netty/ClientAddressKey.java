package dev.cellrate.netty;

import io.netty.channel.Channel;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.util.AttributeKey;

import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * The client's socket address (the default key): IPv4 exact, IPv6 grouped by a prefix (default /64; /56 and
 * /48 are wider tiers, see {@link IpAddresses}). The key is computed once per connection and cached on the
 * connection's channel (the parent of an HTTP/2 stream channel), so requests allocate nothing.
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
        final Channel connection = null != channel.parent() ? channel.parent() : channel;
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
