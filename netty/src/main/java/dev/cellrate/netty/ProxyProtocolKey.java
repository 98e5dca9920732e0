package dev.cellrate.netty;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.haproxy.HAProxyMessage;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.util.AttributeKey;

/**
 * The client address from the PROXY protocol header (v1 or v2) a load balancer sends first on each
 * connection. Put {@code new HAProxyMessageDecoder()} and {@link #capture()} before {@code HttpServerCodec};
 * the capture handler stores the source address's key on the connection's own channel once per connection
 * and removes itself, and {@link #extract} reads it from that same channel (for an HTTP/2 stream, from the
 * connection the stream belongs to). IPv6 sources are grouped by the configured prefix.
 * A connection without a PROXY header, or with {@code UNKNOWN}/{@code LOCAL}, has no key (fallback).
 */
public final class ProxyProtocolKey implements KeyExtractor
{
    static final AttributeKey<byte[]> SOURCE_KEY = AttributeKey.valueOf("cellrate.proxyProtocolSourceKey");
    private static final byte[] NONE = new byte[0];

    private final int ipv6PrefixBits;

    /**
     * @param ipv6PrefixBits the IPv6 prefix that makes one client.
     */
    public ProxyProtocolKey(final int ipv6PrefixBits)
    {
        this.ipv6PrefixBits = IpAddresses.requirePrefix(ipv6PrefixBits);
    }

    /**
     * @return a new capture handler for one connection's pipeline.
     */
    public ChannelInboundHandlerAdapter capture()
    {
        return new Capture(ipv6PrefixBits);
    }

    public int extract(final Channel channel, final HttpRequest request, final byte[] dst)
    {
        final Channel connection = ConnectionChannel.of(channel);
        final byte[] key = connection.attr(SOURCE_KEY).get();
        if (null == key || NONE == key)
        {
            return NO_KEY;
        }
        System.arraycopy(key, 0, dst, 0, key.length);
        return key.length;
    }

    private static final class Capture extends ChannelInboundHandlerAdapter
    {
        private final int ipv6PrefixBits;

        Capture(final int ipv6PrefixBits)
        {
            this.ipv6PrefixBits = ipv6PrefixBits;
        }

        public void channelRead(final ChannelHandlerContext ctx, final Object msg)
        {
            if (msg instanceof HAProxyMessage)
            {
                final HAProxyMessage proxy = (HAProxyMessage)msg;
                try
                {
                    final String source = proxy.sourceAddress();
                    final byte[] scratch = new byte[17];
                    final int n = null == source ? -1 :
                        IpAddresses.parseKey(source, 0, source.length(), ipv6PrefixBits, scratch, 0);
                    ConnectionChannel.of(ctx.channel()).attr(SOURCE_KEY).set(n < 0 ? NONE : java.util.Arrays.copyOf(scratch, n));
                }
                finally
                {
                    proxy.release();
                }
                ctx.pipeline().remove(this);
                return;
            }
            ctx.fireChannelRead(msg);
        }
    }
}
