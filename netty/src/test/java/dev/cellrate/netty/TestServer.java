package dev.cellrate.netty;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.haproxy.HAProxyMessageDecoder;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerKeepAliveHandler;
import io.netty.handler.codec.http.HttpServerUpgradeHandler;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.handler.codec.http2.CleartextHttp2ServerUpgradeHandler;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2ServerUpgradeCodec;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamFrameToHttpObjectCodec;
import io.netty.util.AsciiString;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real Netty server on loopback: HTTP/1.1 (with keep-alive and pipelining) and h2c (prior upgrade from
 * HTTP/1.1, as the JDK client does it), with {@link HttpRateLimitHandler} in front of a small application:
 * {@code /slow} answers after 200 ms, {@code ?delayMs=N} after N ms, {@code ?status=N} answers status N,
 * {@code ?cost=N} adds {@code x-cost: N}; the body is the path, or the request's body with {@code ?echo}. A request the decoder refused is answered 431
 * (header section or line too long) or 400, and the connection closed, as a gateway does.
 */
final class TestServer implements AutoCloseable
{
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final Channel server;

    TestServer(final HttpRateLimit config, final boolean h2c)
    {
        this(config, h2c, null, "127.0.0.1");
    }

    /**
     * @param config the handler's configuration.
     * @param h2c    serve h2c (prior knowledge and upgrade) beside HTTP/1.1.
     * @param proxy  if not null, read a PROXY protocol header (v1 or v2) first and capture its source.
     * @param host   the address to listen on ("127.0.0.1", "::1").
     */
    TestServer(final HttpRateLimit config, final boolean h2c, final ProxyProtocolKey proxy, final String host)
    {
        final ServerBootstrap b = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
            .childHandler(new ChannelInitializer<SocketChannel>()
            {
                protected void initChannel(final SocketChannel ch)
                {
                    final ChannelPipeline p = ch.pipeline();
                    if (null != proxy)
                    {
                        p.addLast(new HAProxyMessageDecoder(), proxy.capture());
                    }
                    if (h2c)
                    {
                        final HttpServerCodec source = new HttpServerCodec();
                        final ChannelHandler streams = new ChannelInitializer<Http2StreamChannel>()
                        {
                            protected void initChannel(final Http2StreamChannel stream)
                            {
                                stream.pipeline().addLast(new Http2StreamFrameToHttpObjectCodec(true),
                                    new HttpRateLimitHandler(config), new HttpObjectAggregator(65536), new App());
                            }
                        };
                        final HttpServerUpgradeHandler.UpgradeCodecFactory upgrades = protocol ->
                            AsciiString.contentEquals(Http2CodecUtil.HTTP_UPGRADE_PROTOCOL_NAME, protocol) ?
                                new Http2ServerUpgradeCodec(Http2FrameCodecBuilder.forServer().build(),
                                    new Http2MultiplexHandler(streams)) : null;
                        p.addLast(new CleartextHttp2ServerUpgradeHandler(source,
                            new HttpServerUpgradeHandler(source, upgrades, 65536),
                            new ChannelInitializer<Channel>()
                            {
                                protected void initChannel(final Channel c)
                                {
                                    c.pipeline().addLast(Http2FrameCodecBuilder.forServer().build(),
                                        new Http2MultiplexHandler(streams));
                                }
                            }));
                        p.addLast(new Http1Fallback(config));
                    }
                    else
                    {
                        p.addLast(new HttpServerCodec(), new HttpServerKeepAliveHandler(),
                            new HttpRateLimitHandler(config), new HttpObjectAggregator(65536), new App());
                    }
                }
            });
        server = b.bind(new InetSocketAddress(host, 0)).syncUninterruptibly().channel();
    }

    int port()
    {
        return ((InetSocketAddress)server.localAddress()).getPort();
    }

    public void close()
    {
        server.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** After an h2c server saw a plain HTTP/1.1 request (no upgrade): serve it as HTTP/1.1. */
    private static final class Http1Fallback extends io.netty.channel.ChannelInboundHandlerAdapter
    {
        private final HttpRateLimit config;

        Http1Fallback(final HttpRateLimit config)
        {
            this.config = config;
        }

        public void channelRead(final ChannelHandlerContext ctx, final Object msg)
        {
            final ChannelPipeline p = ctx.pipeline();
            if (null != p.get(HttpServerCodec.class))
            {
                p.addAfter(ctx.name(), null, new App());
                p.addAfter(ctx.name(), null, new HttpObjectAggregator(65536));
                p.addAfter(ctx.name(), null, new HttpRateLimitHandler(config));
                p.addAfter(ctx.name(), null, new HttpServerKeepAliveHandler());
            }
            p.remove(this);
            ctx.fireChannelRead(msg);
        }
    }

    /** Answers in request order (as an HTTP/1.1 server must); {@code /slow} is ready only after 200 ms. */
    static final class App extends SimpleChannelInboundHandler<FullHttpRequest>
    {
        private final java.util.ArrayDeque<FullHttpResponse[]> owed = new java.util.ArrayDeque<>();
        private boolean closeAfterDrain;

        protected void channelRead0(final ChannelHandlerContext ctx, final FullHttpRequest request)
        {
            if (request.decoderResult().isFailure())
            {
                // what a gateway does with a request the decoder refused: 431 or 400, then close
                final boolean tooLarge = request.decoderResult().cause() instanceof TooLongHttpHeaderException ||
                    request.decoderResult().cause() instanceof TooLongHttpLineException;
                final ByteBuf body = Unpooled.copiedBuffer(tooLarge ? "too large" : "bad request",
                    StandardCharsets.US_ASCII);
                final FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                    tooLarge ? HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE : HttpResponseStatus.BAD_REQUEST, body);
                response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes())
                    .set(HttpHeaderNames.CONNECTION, "close");
                final FullHttpResponse[] slot = new FullHttpResponse[]{response};
                owed.addLast(slot);
                closeAfterDrain = true;
                drain(ctx);
                return;
            }
            final QueryStringDecoder q = new QueryStringDecoder(request.uri());
            final List<String> status = q.parameters().get("status");
            final List<String> cost = q.parameters().get("cost");
            final List<String> delayMs = q.parameters().get("delayMs");
            final ByteBuf body = null != q.parameters().get("echo") ? Unpooled.copiedBuffer(request.content()) :
                Unpooled.copiedBuffer(q.path(), StandardCharsets.US_ASCII);
            final FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                null == status ? HttpResponseStatus.OK : HttpResponseStatus.valueOf(Integer.parseInt(status.get(0))),
                body);
            response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes())
                .set(HttpHeaderNames.CONTENT_TYPE, "text/plain");
            if (null != cost)
            {
                response.headers().set("x-cost", cost.get(0));
            }
            final FullHttpResponse[] slot = new FullHttpResponse[1];
            owed.addLast(slot);
            if (q.path().startsWith("/slow") || null != delayMs)
            {
                ctx.executor().schedule(() ->
                {
                    slot[0] = response;
                    drain(ctx);
                }, null != delayMs ? Long.parseLong(delayMs.get(0)) : 200, TimeUnit.MILLISECONDS);
            }
            else
            {
                slot[0] = response;
                drain(ctx);
            }
        }

        private void drain(final ChannelHandlerContext ctx)
        {
            while (!owed.isEmpty() && null != owed.peekFirst()[0])
            {
                ctx.write(owed.pollFirst()[0]);
            }
            ctx.flush();
            if (closeAfterDrain && owed.isEmpty())
            {
                ctx.close();
            }
        }

        public void channelInactive(final ChannelHandlerContext ctx)
        {
            for (final FullHttpResponse[] slot : owed)
            {
                if (null != slot[0])
                {
                    slot[0].release();
                }
            }
            owed.clear();
            ctx.fireChannelInactive();
        }
    }
}
