package dev.cellrate.examples.gateway;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.netty.HttpRateLimit;
import dev.cellrate.netty.HttpRateLimitHandler;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;

/**
 * Two trivial Netty backends for a load run with {@code wrk}: the same server without and with
 * {@link HttpRateLimitHandler} (a limit so high it admits everything, so both do the same work plus one
 * decision per request). One event loop each, so the comparison is per core.
 * <pre>
 *   java -cp examples/gateway/target/gateway.jar dev.cellrate.examples.gateway.BenchServers 8081 8082
 * </pre>
 */
public final class BenchServers
{
    private BenchServers()
    {
    }

    /**
     * @param args the plain port and the limited port.
     */
    public static void main(final String[] args)
    {
        final int plainPort = args.length > 0 ? Integer.parseInt(args[0]) : 8081;
        final int limitedPort = args.length > 1 ? Integer.parseInt(args[1]) : 8082;
        final HttpRateLimit config = HttpRateLimit.enforce(
            KeyedRateLimiter.builder(Limit.perSecond(1_000_000_000L, 1_000_000_000L)).expectedKeys(1024).build()).build();
        final EventLoopGroup plain = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        final EventLoopGroup limited = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        Backend.start(plain, plainPort, null);
        Backend.start(limited, limitedPort, () -> new HttpRateLimitHandler(config));
        System.out.println("plain on 127.0.0.1:" + plainPort + ", with HttpRateLimitHandler on 127.0.0.1:" + limitedPort);
        Runtime.getRuntime().addShutdownHook(new Thread(() ->
            System.out.println("admitted " + config.admittedCount() + ", rejected " + config.rejectedCount())));
    }
}
