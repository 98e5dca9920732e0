package dev.cellrate.examples.gateway;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;

import java.net.SocketAddress;
import java.util.ArrayDeque;

/**
 * Relays aggregated requests from one client channel (an HTTP/1.1 connection, or one HTTP/2 stream) over one
 * keep-alive backend connection of its own; responses come back in order ({@link Relay}). The backend
 * connection is opened at the first request and closed with the client: if the client is gone by the time
 * the connection completes, the new connection is closed at once. The proxy's state is touched on the
 * client's event loop only (the connect outcome is handed back to it); the backend connection may run on
 * another loop (the in-process transport has loops of its own).
 * <p>
 * Errors: an I/O error on either side (a client reset, a broken pipe) closes both quietly; anything else is
 * reported as one line by {@link Quiet}.
 */
final class Proxy extends ChannelInboundHandlerAdapter
{
    static final int MAX_CONTENT_LENGTH = 1 << 20;

    private final SocketAddress backend;
    private final EventLoopGroup upstreamGroup;
    private final ArrayDeque<FullHttpRequest> waiting = new ArrayDeque<>();
    private Channel upstream;
    private boolean connecting;

    /**
     * @param backend       the backend's address (a {@link LocalAddress} or a TCP address).
     * @param upstreamGroup the loops for an in-process backend's connections, or null to use the client's.
     */
    Proxy(final SocketAddress backend, final EventLoopGroup upstreamGroup)
    {
        this.backend = backend;
        this.upstreamGroup = upstreamGroup;
    }

    public void channelRead(final ChannelHandlerContext ctx, final Object msg)
    {
        if (!(msg instanceof FullHttpRequest))
        {
            ReferenceCountUtil.release(msg);
            return;
        }
        final FullHttpRequest request = (FullHttpRequest)msg;
        HttpUtil.setKeepAlive(request, true);
        if (null != upstream)
        {
            if (upstream.isActive())
            {
                upstream.writeAndFlush(request);
            }
            else
            {
                request.release();
                badGateway(ctx);
            }
            return;
        }
        waiting.addLast(request);
        if (!connecting)
        {
            connecting = true;
            connect(ctx);
        }
    }

    private void connect(final ChannelHandlerContext ctx)
    {
        final Channel client = ctx.channel();
        final Bootstrap b = new Bootstrap().group(null != upstreamGroup ? upstreamGroup : client.eventLoop());
        if (backend instanceof LocalAddress)
        {
            b.channel(LocalChannel.class);
        }
        else
        {
            b.channel(NioSocketChannel.class).option(ChannelOption.TCP_NODELAY, true);
        }
        b.handler(new ChannelInitializer<Channel>()
            {
                protected void initChannel(final Channel ch)
                {
                    ch.pipeline().addLast(new HttpClientCodec(), new HttpObjectAggregator(MAX_CONTENT_LENGTH),
                        new Relay(client));
                }
            })
            .connect(backend).addListener((ChannelFutureListener)f ->
            {
                if (client.eventLoop().inEventLoop())
                {
                    connected(ctx, f);
                }
                else
                {
                    client.eventLoop().execute(() -> connected(ctx, f));
                }
            });
    }

    private void connected(final ChannelHandlerContext ctx, final ChannelFuture f)
    {
        final Channel client = ctx.channel();
        connecting = false;
        if (!client.isActive())
        {
            f.channel().close(); // the client left while we connected: no orphaned backend connection
            releaseWaiting();
            return;
        }
        if (!f.isSuccess())
        {
            Quiet.report(client, "backend unreachable", f.cause());
            while (!waiting.isEmpty())
            {
                waiting.pollFirst().release();
                badGateway(ctx);
            }
            return;
        }
        upstream = f.channel();
        FullHttpRequest r;
        while (null != (r = waiting.pollFirst()))
        {
            upstream.write(r);
        }
        upstream.flush();
    }

    private static void badGateway(final ChannelHandlerContext ctx)
    {
        final FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.BAD_GATEWAY);
        response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, 0);
        ctx.writeAndFlush(response);
    }

    private void releaseWaiting()
    {
        FullHttpRequest r;
        while (null != (r = waiting.pollFirst()))
        {
            r.release();
        }
    }

    public void channelInactive(final ChannelHandlerContext ctx)
    {
        releaseWaiting();
        if (null != upstream)
        {
            upstream.close();
        }
        ctx.fireChannelInactive();
    }

    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
    {
        Quiet.report(ctx.channel(), "client connection", cause);
        ctx.close();
    }

    /** Backend responses go back to the client channel, in order; the client closes with the backend. */
    static final class Relay extends ChannelInboundHandlerAdapter
    {
        private final Channel client;

        Relay(final Channel client)
        {
            this.client = client;
        }

        public void channelRead(final ChannelHandlerContext ctx, final Object msg)
        {
            if (client.isActive())
            {
                client.writeAndFlush(msg);
            }
            else
            {
                ReferenceCountUtil.release(msg);
                ctx.close();
            }
        }

        public void channelInactive(final ChannelHandlerContext ctx)
        {
            client.close();
        }

        public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
        {
            Quiet.report(client, "backend connection", cause);
            ctx.close();
        }
    }
}
