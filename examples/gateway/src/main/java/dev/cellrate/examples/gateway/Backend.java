package dev.cellrate.examples.gateway;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalServerChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerKeepAliveHandler;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;

/**
 * A trivial Netty HTTP/1.1 server: every request gets {@code 200 hello} (one shared body, sent as a
 * retained duplicate). An optional extra handler (the rate limiter) goes before the application.
 * <p>
 * The gateway binds it to an in-process {@link LocalAddress}: it has no network address at all, so the only
 * way to reach it is through the gateway's limiter. The benchmark servers bind it to a TCP port.
 */
public final class Backend
{
    private static final ByteBuf BODY =
        Unpooled.unreleasableBuffer(Unpooled.directBuffer().writeBytes("hello\n".getBytes(StandardCharsets.US_ASCII)));

    private Backend()
    {
    }

    /**
     * @param group  the event loops.
     * @param port   the port on 127.0.0.1 (0: any).
     * @param before a supplier of one handler per channel placed after the codec, or null.
     * @return the bound server channel.
     */
    public static Channel start(final EventLoopGroup group, final int port, final Supplier<ChannelHandler> before)
    {
        return start(group, new InetSocketAddress("127.0.0.1", port), before);
    }

    /**
     * @param group  event loops of the in-process transport ({@code LocalIoHandler}).
     * @param local  an in-process address ({@link LocalAddress#ANY}: a fresh one).
     * @param before a supplier of one handler per channel placed after the codec, or null.
     * @return the bound server channel; its {@code localAddress()} is the address to connect to.
     */
    public static Channel inProcess(
        final EventLoopGroup group, final LocalAddress local, final Supplier<ChannelHandler> before)
    {
        return start(group, local, before);
    }

    private static Channel start(
        final EventLoopGroup group, final SocketAddress address, final Supplier<ChannelHandler> before)
    {
        return new ServerBootstrap().group(group)
            .channel(address instanceof LocalAddress ? LocalServerChannel.class : NioServerSocketChannel.class)
            .childHandler(new ChannelInitializer<Channel>()
            {
                protected void initChannel(final Channel ch)
                {
                    ch.pipeline().addLast(new HttpServerCodec(), new HttpServerKeepAliveHandler());
                    if (null != before)
                    {
                        ch.pipeline().addLast(before.get());
                    }
                    ch.pipeline().addLast(new Hello());
                }
            })
            .bind(address).syncUninterruptibly().channel();
    }

    /** Answers each request once its last content arrived. */
    static final class Hello extends ChannelInboundHandlerAdapter
    {
        public void channelRead(final ChannelHandlerContext ctx, final Object msg)
        {
            final boolean last = msg instanceof LastHttpContent;
            ReferenceCountUtil.release(msg);
            if (last)
            {
                final FullHttpResponse response =
                    new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, BODY.duplicate());
                response.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.TEXT_PLAIN)
                    .setInt(HttpHeaderNames.CONTENT_LENGTH, BODY.readableBytes());
                ctx.write(response);
            }
            else if (msg instanceof HttpRequest)
            {
                return;
            }
        }

        public void channelReadComplete(final ChannelHandlerContext ctx)
        {
            ctx.flush();
        }

        public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
        {
            ctx.close(); // a load generator resetting its connections at the end of a run
        }
    }
}
