package dev.cellrate.examples.gateway;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.netty.ClientAddressKey;
import dev.cellrate.netty.HttpRateLimit;
import dev.cellrate.netty.HttpRateLimitHandler;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerKeepAliveHandler;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;

import java.net.InetSocketAddress;
import java.util.ArrayDeque;

/**
 * An example gateway: a reverse proxy on loopback, limiting each client (by socket address, IPv6 per /64)
 * with {@link HttpRateLimitHandler}, in front of a small backend it starts itself ({@link Backend}).
 * <pre>
 *   java -jar examples/gateway/target/gateway.jar --port 8080 --rate 10 --burst 10
 * </pre>
 * Each client connection gets one keep-alive connection to the backend; requests are relayed in order.
 */
public final class Gateway
{
    private Gateway()
    {
    }

    /**
     * @param args {@code --port P --rate R --burst B [--backend-port Q]}.
     */
    public static void main(final String[] args)
    {
        int port = 8080;
        long rate = 10;
        long burst = 10;
        int backendPort = 0;
        for (int i = 0; i + 1 < args.length; i += 2)
        {
            switch (args[i])
            {
                case "--port": port = Integer.parseInt(args[i + 1]); break;
                case "--rate": rate = Long.parseLong(args[i + 1]); break;
                case "--burst": burst = Long.parseLong(args[i + 1]); break;
                case "--backend-port": backendPort = Integer.parseInt(args[i + 1]); break;
                default: throw new IllegalArgumentException("unknown option " + args[i] +
                    " (use --port P --rate R --burst B [--backend-port Q])");
            }
        }
        final EventLoopGroup group = new MultiThreadIoEventLoopGroup(NioIoHandler.newFactory());
        final Channel backend = Backend.start(group, backendPort, null);
        final InetSocketAddress backendAddress = (InetSocketAddress)backend.localAddress();
        final HttpRateLimit config = HttpRateLimit.enforce(
                KeyedRateLimiter.builder(Limit.perSecond(rate, burst)).expectedKeys(100_000).build())
            .keyExtractor(ClientAddressKey.perClient()).policy("per-client", Limit.perSecond(rate, burst)).headersOnAdmitted(true).build();
        final Channel gateway = start(group, port, config, backendAddress);
        System.out.println("backend on http://127.0.0.1:" + backendAddress.getPort() + "/, gateway on http://127.0.0.1:" +
            port + "/ limiting each client to " + rate + "/s, burst " + burst);
        System.out.println("try: curl -s -o /dev/null -w '%{http_code} ' 'http://127.0.0.1:" + port + "/[1-" +
            (burst + 3) + "]'; echo; curl -i http://127.0.0.1:" + port + "/");
        gateway.closeFuture().syncUninterruptibly();
    }

    /**
     * @param group   event loops (shared by both sides).
     * @param port    the gateway port on 127.0.0.1.
     * @param config  the rate limit.
     * @param backend the backend address.
     * @return the gateway's server channel.
     */
    public static Channel start(
        final EventLoopGroup group, final int port, final HttpRateLimit config, final InetSocketAddress backend)
    {
        return new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
            .childHandler(new ChannelInitializer<SocketChannel>()
            {
                protected void initChannel(final SocketChannel ch)
                {
                    ch.pipeline().addLast(new HttpServerCodec(), new HttpServerKeepAliveHandler(),
                        new HttpRateLimitHandler(config), new HttpObjectAggregator(1 << 20), new Proxy(backend));
                }
            })
            .bind(new InetSocketAddress("127.0.0.1", port)).syncUninterruptibly().channel();
    }

    /** Relays aggregated requests to one backend connection per client connection, responses back in order. */
    static final class Proxy extends ChannelInboundHandlerAdapter
    {
        private final InetSocketAddress backend;
        private final ArrayDeque<FullHttpRequest> waiting = new ArrayDeque<>();
        private Channel upstream;
        private boolean connecting;

        Proxy(final InetSocketAddress backend)
        {
            this.backend = backend;
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
            if (null != upstream && upstream.isActive())
            {
                upstream.writeAndFlush(request);
                return;
            }
            waiting.addLast(request);
            if (!connecting)
            {
                connecting = true;
                final Channel client = ctx.channel();
                new Bootstrap().group(client.eventLoop()).channel(NioSocketChannel.class)
                    .option(ChannelOption.TCP_NODELAY, true)
                    .handler(new ChannelInitializer<SocketChannel>()
                    {
                        protected void initChannel(final SocketChannel ch)
                        {
                            ch.pipeline().addLast(new HttpClientCodec(), new HttpObjectAggregator(1 << 20),
                                new Relay(client));
                        }
                    })
                    .connect(backend).addListener((ChannelFutureListener)f ->
                    {
                        connecting = false;
                        if (!f.isSuccess())
                        {
                            badGateway(ctx);
                            return;
                        }
                        upstream = f.channel();
                        FullHttpRequest r;
                        while (null != (r = waiting.pollFirst()))
                        {
                            upstream.write(r);
                        }
                        upstream.flush();
                    });
            }
        }

        private void badGateway(final ChannelHandlerContext ctx)
        {
            FullHttpRequest r;
            while (null != (r = waiting.pollFirst()))
            {
                r.release();
                final FullHttpResponse response =
                    new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.BAD_GATEWAY);
                response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, 0);
                ctx.write(response);
            }
            ctx.flush();
        }

        public void channelInactive(final ChannelHandlerContext ctx)
        {
            FullHttpRequest r;
            while (null != (r = waiting.pollFirst()))
            {
                r.release();
            }
            if (null != upstream)
            {
                upstream.close();
            }
            ctx.fireChannelInactive();
        }
    }

    /** Backend responses go back to the client connection, in order. */
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
            }
        }

        public void channelInactive(final ChannelHandlerContext ctx)
        {
            client.close();
        }
    }
}
