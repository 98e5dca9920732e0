package dev.cellrate.examples.gateway;

import dev.cellrate.netty.HttpRateLimit;
import dev.cellrate.netty.HttpRateLimitHandler;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerKeepAliveHandler;
import io.netty.handler.codec.http.HttpServerUpgradeHandler;
import io.netty.handler.codec.http2.CleartextHttp2ServerUpgradeHandler;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2ServerUpgradeCodec;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamFrameToHttpObjectCodec;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.AsciiString;

import java.net.SocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * Sets up each accepted client connection:
 * <pre>
 *   idle timeout ─ head timer ─ h2c detection ─┬─ HTTP/1.1: codec ─ guard ─ keep-alive ─ limiter ─ aggregator ─ proxy
 *                                              └─ HTTP/2:   frame codec ─ multiplexer ─ per stream:
 *                                                             codec ─ limiter ─ aggregator ─ proxy
 * </pre>
 * h2c is recognised both ways: the HTTP/2 connection preface (prior knowledge) and {@code Upgrade: h2c} on
 * an HTTP/1.1 request. Every HTTP/2 stream is one request, decided once by its own
 * {@link HttpRateLimitHandler}; the key extractor sees the stream channel, whose parent is the connection.
 */
final class ClientPipeline extends ChannelInitializer<Channel>
{
    static final int MAX_INITIAL_LINE_LENGTH = 4096;
    static final int MAX_HEADER_SIZE = 8192;
    private static final String HEAD_TIMER = "head-timer";

    private final HttpRateLimit config;
    private final SocketAddress backend;
    private final EventLoopGroup upstreamGroup;
    private final long idleTimeoutNs;
    private final long headerTimeoutNs;

    ClientPipeline(final HttpRateLimit config, final SocketAddress backend, final EventLoopGroup upstreamGroup,
        final long idleTimeoutNs, final long headerTimeoutNs)
    {
        this.config = config;
        this.backend = backend;
        this.upstreamGroup = upstreamGroup;
        this.idleTimeoutNs = idleTimeoutNs;
        this.headerTimeoutNs = headerTimeoutNs;
    }

    protected void initChannel(final Channel ch)
    {
        final ChannelPipeline p = ch.pipeline();
        final RequestGuard.HeadTimer timer = new RequestGuard.HeadTimer(headerTimeoutNs);
        final HttpServerCodec http1 = new HttpServerCodec(MAX_INITIAL_LINE_LENGTH, MAX_HEADER_SIZE, 8192);
        final ChannelHandler streams = new ChannelInitializer<Http2StreamChannel>()
        {
            protected void initChannel(final Http2StreamChannel stream)
            {
                stream.pipeline().addLast(new Http2StreamFrameToHttpObjectCodec(true),
                    new HttpRateLimitHandler(config), new HttpObjectAggregator(Proxy.MAX_CONTENT_LENGTH),
                    new Proxy(backend, upstreamGroup));
            }
        };
        final HttpServerUpgradeHandler.UpgradeCodecFactory upgrades = protocol ->
            AsciiString.contentEquals(Http2CodecUtil.HTTP_UPGRADE_PROTOCOL_NAME, protocol) ?
                new Http2ServerUpgradeCodec(Http2FrameCodecBuilder.forServer().build(),
                    new Http2MultiplexHandler(streams)) : null;
        p.addLast(new IdleStateHandler(0, 0, idleTimeoutNs, TimeUnit.NANOSECONDS)
        {
            protected void channelIdle(final ChannelHandlerContext ctx, final IdleStateEvent evt)
            {
                ctx.close();
            }
        });
        p.addLast(HEAD_TIMER, timer);
        p.addLast(new CleartextHttp2ServerUpgradeHandler(http1,
            new HttpServerUpgradeHandler(http1, upgrades, MAX_HEADER_SIZE),
            new ChannelInitializer<Channel>()
            {
                protected void initChannel(final Channel c)
                {
                    c.pipeline().addLast(Http2FrameCodecBuilder.forServer().build(), new Http2MultiplexHandler(streams));
                }
            }));
        p.addLast(new ProtocolChoice(timer));
        p.addLast(Quiet.INSTANCE);
    }

    /**
     * After the h2c detection: an HTTP/1.1 request (no upgrade) installs the HTTP/1.1 handlers, and the
     * connection stays HTTP/1.1 (a later {@code Upgrade: h2c} is an ordinary header); an upgrade to HTTP/2
     * (either way) removes the head timer, which times HTTP/1.1 heads only.
     */
    private final class ProtocolChoice extends ChannelInboundHandlerAdapter
    {
        private final RequestGuard.HeadTimer timer;

        ProtocolChoice(final RequestGuard.HeadTimer timer)
        {
            this.timer = timer;
        }

        public void channelRead(final ChannelHandlerContext ctx, final Object msg)
        {
            final ChannelPipeline p = ctx.pipeline();
            final String name = ctx.name();
            p.addAfter(name, null, new Proxy(backend, upstreamGroup));
            p.addAfter(name, null, new HttpObjectAggregator(Proxy.MAX_CONTENT_LENGTH));
            p.addAfter(name, null, new HttpRateLimitHandler(config));
            p.addAfter(name, null, new HttpServerKeepAliveHandler());
            p.addAfter(name, null, timer.newGuard());
            p.remove(this);
            if (null != p.get(HttpServerUpgradeHandler.class))
            {
                p.remove(HttpServerUpgradeHandler.class); // an upgrade is offered on the first request only
            }
            ctx.fireChannelRead(msg);
        }

        public void userEventTriggered(final ChannelHandlerContext ctx, final Object evt)
        {
            if (evt instanceof HttpServerUpgradeHandler.UpgradeEvent ||
                evt instanceof CleartextHttp2ServerUpgradeHandler.PriorKnowledgeUpgradeEvent)
            {
                if (null != ctx.pipeline().get(HEAD_TIMER))
                {
                    ctx.pipeline().remove(HEAD_TIMER);
                }
                ctx.pipeline().remove(this);
            }
            ctx.fireUserEventTriggered(evt);
        }
    }
}
