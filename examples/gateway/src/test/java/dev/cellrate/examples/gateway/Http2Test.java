package dev.cellrate.examples.gateway;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamChannelBootstrap;
import io.netty.handler.codec.http2.Http2StreamFrameToHttpObjectCodec;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * h2c through the whole gateway: HTTP/2 with prior knowledge (what {@code curl --http2-prior-knowledge}
 * sends) from a Netty client bound to chosen source addresses, and the Upgrade from HTTP/1.1 (what the JDK
 * client sends). Each stream is one request and one decision; the key is the connection's own address.
 */
final class Http2Test
{
    /** One HTTP/2 connection by prior knowledge from {@code source}. */
    private static final class H2Connection implements AutoCloseable
    {
        private final Channel channel;

        H2Connection(final TestGateway gateway, final String source) throws InterruptedException
        {
            channel = new Bootstrap().group(gateway.group).channel(NioSocketChannel.class)
                .localAddress(new InetSocketAddress(source, 0))
                .handler(new ChannelInitializer<Channel>()
                {
                    protected void initChannel(final Channel ch)
                    {
                        ch.pipeline().addLast(Http2FrameCodecBuilder.forClient().build(),
                            new Http2MultiplexHandler(new SimpleChannelInboundHandler<Object>()
                            {
                                protected void channelRead0(final ChannelHandlerContext ctx, final Object msg)
                                {
                                }
                            }));
                    }
                })
                .connect(new InetSocketAddress("127.0.0.1", gateway.port)).sync().channel();
        }

        /** Opens a stream, sends GET {@code path}, and returns the response's status when it arrives. */
        CompletableFuture<Integer> get(final String path) throws InterruptedException
        {
            final CompletableFuture<Integer> status = new CompletableFuture<>();
            final Http2StreamChannel stream = new Http2StreamChannelBootstrap(channel)
                .handler(new ChannelInitializer<Http2StreamChannel>()
                {
                    protected void initChannel(final Http2StreamChannel ch)
                    {
                        ch.pipeline().addLast(new Http2StreamFrameToHttpObjectCodec(false),
                            new HttpObjectAggregator(1 << 16), new SimpleChannelInboundHandler<FullHttpResponse>()
                            {
                                protected void channelRead0(final ChannelHandlerContext ctx, final FullHttpResponse r)
                                {
                                    status.complete(r.status().code());
                                }

                                public void channelInactive(final ChannelHandlerContext ctx)
                                {
                                    status.complete(-1);
                                }
                            });
                    }
                }).open().sync().getNow();
            final FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, path);
            request.headers().set(HttpHeaderNames.HOST, "gateway");
            stream.writeAndFlush(request);
            return status;
        }

        public void close()
        {
            channel.close().syncUninterruptibly();
        }
    }

    private static List<Integer> statuses(final List<CompletableFuture<Integer>> futures) throws Exception
    {
        final List<Integer> statuses = new ArrayList<>();
        for (final CompletableFuture<Integer> f : futures)
        {
            statuses.add(f.get(10, TimeUnit.SECONDS));
        }
        Collections.sort(statuses);
        return statuses;
    }

    @Test
    void priorKnowledgeStreamsAreOneDecisionEach() throws Exception
    {
        try (TestGateway gateway = new TestGateway(10);
             H2Connection h2 = new H2Connection(gateway, "127.0.10.1"))
        {
            final List<CompletableFuture<Integer>> sequential = new ArrayList<>();
            for (int i = 0; i < 4; i++)
            {
                final CompletableFuture<Integer> f = h2.get("/s" + i);
                f.get(10, TimeUnit.SECONDS);
                sequential.add(f);
            }
            final List<CompletableFuture<Integer>> concurrent = new ArrayList<>();
            for (int i = 0; i < 9; i++)
            {
                concurrent.add(h2.get("/c" + i));
            }
            assertEquals(List.of(200, 200, 200, 200), statuses(sequential));
            final List<Integer> expected = new ArrayList<>(Collections.nCopies(6, 200));
            expected.addAll(Collections.nCopies(3, 429));
            assertEquals(expected, statuses(concurrent));
            assertEquals(13, gateway.config.admittedCount() + gateway.config.rejectedCount(), "one decision per stream");
            assertEquals(10, gateway.backendRequests.get());
        }
    }

    @Test
    void eachH2ConnectionIsKeyedByItsOwnAddress() throws Exception
    {
        try (TestGateway gateway = new TestGateway(3))
        {
            for (int c = 0; c < 4; c++)
            {
                try (H2Connection h2 = new H2Connection(gateway, "127.0.11." + (1 + c)))
                {
                    final List<CompletableFuture<Integer>> f = new ArrayList<>();
                    for (int i = 0; i < 5; i++)
                    {
                        f.add(h2.get("/" + i));
                    }
                    assertEquals(List.of(200, 200, 200, 429, 429), statuses(f), "client 127.0.11." + (1 + c));
                }
            }
            try (H2Connection again = new H2Connection(gateway, "127.0.11.1"))
            {
                assertEquals(429, again.get("/again").get(10, TimeUnit.SECONDS), "same address, same budget");
            }
        }
    }

    @Test
    void upgradeFromHttp1IsServedOverHttp2() throws Exception
    {
        try (TestGateway gateway = new TestGateway(2))
        {
            final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build();
            final List<Integer> statuses = new ArrayList<>();
            HttpResponse<String> first = null;
            for (int i = 0; i < 3; i++)
            {
                final HttpResponse<String> r = client.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.port + "/u" + i)).build(),
                    HttpResponse.BodyHandlers.ofString());
                statuses.add(r.statusCode());
                first = null == first ? r : first;
                assertEquals(HttpClient.Version.HTTP_2, r.version(), "request " + i);
            }
            assertEquals("hello\n", first.body());
            assertEquals(List.of(200, 200, 429), statuses);
            assertEquals(3, gateway.config.admittedCount() + gateway.config.rejectedCount());
        }
    }

    @Test
    void anUpgradeAfterTheFirstRequestIsAnOrdinaryHeader() throws Exception
    {
        try (TestGateway gateway = new TestGateway(10);
             RawHttp client = new RawHttp("127.0.12.1", gateway.port))
        {
            assertEquals(200, client.send(RawHttp.get("/1")).read().status());
            final RawHttp.Response second = client.send("GET /2 HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\n" +
                "Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n").read();
            assertEquals(200, second.status(), "answered over HTTP/1.1, not switched");
            assertEquals(200, client.send(RawHttp.get("/3")).read().status());
        }
    }
}
