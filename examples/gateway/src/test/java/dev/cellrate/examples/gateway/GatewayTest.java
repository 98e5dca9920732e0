package dev.cellrate.examples.gateway;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.netty.HttpRateLimit;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The example gateway on loopback: a burst through the proxy gets exactly the burst of 200s, then 429s. */
final class GatewayTest
{
    @Test
    void proxiesTheBurstAndRefusesTheRest() throws Exception
    {
        final EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        try
        {
            final CachedNanoClock clock = new CachedNanoClock();
            clock.update(1_000_000_000_000L);
            final Channel backend = Backend.start(group, 0, null);
            final HttpRateLimit config = HttpRateLimit.enforce(
                KeyedRateLimiter.builder(Limit.perSecond(10, 10)).expectedKeys(64).clock(clock).build())
                .build();
            final Channel gateway = Gateway.start(group, 0, config, (InetSocketAddress)backend.localAddress());
            final int port = ((InetSocketAddress)gateway.localAddress()).getPort();
            final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            final List<Integer> statuses = new ArrayList<>();
            String body = null;
            for (int i = 0; i < 13; i++)
            {
                final HttpResponse<String> r = client.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/")).build(),
                    HttpResponse.BodyHandlers.ofString());
                statuses.add(r.statusCode());
                body = 0 == i ? r.body() : body;
            }
            assertEquals("hello\n", body, "relayed from the backend");
            assertEquals(List.of(200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 429, 429, 429), statuses);
        }
        finally
        {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
