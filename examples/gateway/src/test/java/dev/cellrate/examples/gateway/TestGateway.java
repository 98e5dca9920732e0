package dev.cellrate.examples.gateway;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.netty.ClientAddressKey;
import dev.cellrate.netty.HttpRateLimit;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalIoHandler;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.handler.codec.http.HttpRequest;
import org.agrona.concurrent.CachedNanoClock;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The gateway and its backend in this JVM on loopback, with a frozen clock (no refill during a test) and
 * the backend's open connections and received requests counted.
 */
final class TestGateway implements AutoCloseable
{
    final EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    final EventLoopGroup backendGroup = new MultiThreadIoEventLoopGroup(1, LocalIoHandler.newFactory());
    final AtomicInteger backendConnections = new AtomicInteger();
    final AtomicInteger backendRequests = new AtomicInteger();
    final HttpRateLimit config;
    final int port;

    TestGateway(final long burst)
    {
        this(burst, false, TimeUnit.SECONDS.toNanos(60), TimeUnit.SECONDS.toNanos(10));
    }

    TestGateway(final long burst, final boolean legacyHeaders, final long idleTimeoutNs, final long headerTimeoutNs)
    {
        this(burst, legacyHeaders, idleTimeoutNs, headerTimeoutNs, "127.0.0.1");
    }

    TestGateway(final long burst, final boolean legacyHeaders, final long idleTimeoutNs, final long headerTimeoutNs,
        final String bind)
    {
        final CachedNanoClock clock = new CachedNanoClock();
        clock.update(1_000_000_000_000L);
        final Channel backend =
            Backend.inProcess(backendGroup, LocalAddress.ANY, () -> new Counting(backendConnections, backendRequests));
        final Limit limit = Limit.perSecond(burst, burst);
        config = HttpRateLimit.enforce(KeyedRateLimiter.builder(limit).expectedKeys(1024).clock(clock).build())
            .keyExtractor(ClientAddressKey.perClient()).policy("per-client", limit).headersOnAdmitted(true)
            .legacyHeaders(legacyHeaders).build();
        final Channel gateway = Gateway.start(group,
            new Gateway.Settings(new InetSocketAddress(bind, 0), idleTimeoutNs, headerTimeoutNs),
            config, backend.localAddress(), backendGroup);
        port = ((InetSocketAddress)gateway.localAddress()).getPort();
    }

    /** Waits (bounded) until the backend's open connections fall to {@code expected}; @return the last count. */
    int awaitBackendConnections(final int expected) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (backendConnections.get() != expected && System.nanoTime() < deadline)
        {
            Thread.sleep(20);
        }
        return backendConnections.get();
    }

    public void close()
    {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        backendGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** Counts the backend's connections and the requests that reach it. */
    @ChannelHandler.Sharable
    static final class Counting extends ChannelInboundHandlerAdapter
    {
        private final AtomicInteger connections;
        private final AtomicInteger requests;

        Counting(final AtomicInteger connections, final AtomicInteger requests)
        {
            this.connections = connections;
            this.requests = requests;
        }

        public void channelActive(final ChannelHandlerContext ctx)
        {
            connections.incrementAndGet();
            ctx.fireChannelActive();
        }

        public void channelInactive(final ChannelHandlerContext ctx)
        {
            connections.decrementAndGet();
            ctx.fireChannelInactive();
        }

        public void channelRead(final ChannelHandlerContext ctx, final Object msg)
        {
            if (msg instanceof HttpRequest)
            {
                requests.incrementAndGet();
            }
            ctx.fireChannelRead(msg);
        }
    }
}
