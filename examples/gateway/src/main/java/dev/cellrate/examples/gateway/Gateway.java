package dev.cellrate.examples.gateway;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.netty.ClientAddressKey;
import dev.cellrate.netty.HttpRateLimit;
import dev.cellrate.netty.HttpRateLimitHandler;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalIoHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import picocli.CommandLine;

import java.io.PrintStream;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * An example gateway: a reverse proxy limiting each client (by its TCP source address, IPv6 per /64) with
 * {@link HttpRateLimitHandler}, in front of a small backend it runs itself ({@link Backend}) on an
 * in-process address that nothing outside this JVM can reach. HTTP/1.1 and h2c.
 * <pre>
 *   java -jar examples/gateway/target/gateway.jar --port 8080 --rate 10 --burst 10
 *   java -jar examples/gateway/target/gateway.jar --help
 * </pre>
 * A bad command line, a port in use or an address that cannot be bound is one line on stderr naming the
 * option, and exit code 2 (usage) or 1 (start-up); every event loop is shut down first, so nothing is left
 * running. See {@link ClientPipeline} for what each connection goes through.
 */
public final class Gateway
{
    /** Exit code of a command line that cannot run. */
    public static final int EXIT_USAGE = 2;
    /** Exit code of a start-up failure (port in use, address not local). */
    public static final int EXIT_START = 1;
    /** Name prefix of the gateway's event-loop threads. */
    static final String THREAD_PREFIX = "gateway-loop";

    private Gateway()
    {
    }

    /**
     * Where and how the gateway listens.
     *
     * @param listen          the address and port to listen on.
     * @param idleTimeoutNs   a connection idle (no read, no write) this long is closed.
     * @param headerTimeoutNs an HTTP/1.1 request head not complete this long after its first byte closes
     *                        the connection.
     */
    public record Settings(InetSocketAddress listen, long idleTimeoutNs, long headerTimeoutNs)
    {
    }

    /**
     * @param args see {@code --help}.
     */
    public static void main(final String[] args)
    {
        final int code = run(args, System.out, System.err);
        if (0 != code)
        {
            System.exit(code);
        }
    }

    /**
     * Parses the command line, starts the gateway and serves until the JVM is stopped.
     *
     * @param args the command line.
     * @param out  where the usage and the start-up lines go.
     * @param err  where the one-line errors go.
     * @return 0 after {@code --help}, {@link #EXIT_USAGE} or {@link #EXIT_START} after a failure (with every
     *         event loop shut down); does not return while serving.
     */
    static int run(final String[] args, final PrintStream out, final PrintStream err)
    {
        final CommandLine commandLine = GatewayOptions.commandLine();
        final GatewayOptions o;
        try
        {
            o = GatewayOptions.parse(commandLine, args);
        }
        catch (final GatewayOptions.BadCommandLine e)
        {
            err.println("gateway: " + e.getMessage());
            err.println("Try 'gateway --help' for the options.");
            return EXIT_USAGE;
        }
        if (null == o)
        {
            out.print(GatewayOptions.usage(commandLine));
            out.flush();
            return 0;
        }
        final HttpRateLimit config;
        try
        {
            final Limit limit = Limit.perSecond(o.rate, o.burst);
            config = HttpRateLimit.enforce(KeyedRateLimiter.builder(limit).expectedKeys(100_000).build())
                .keyExtractor(ClientAddressKey.perClient()).policy("per-client", limit).headersOnAdmitted(true)
                .legacyHeaders(o.legacyHeaders).build();
        }
        catch (final IllegalArgumentException e)
        {
            err.println("gateway: --rate " + o.rate + " --burst " + o.burst + ": " + e.getMessage());
            return EXIT_USAGE;
        }
        catch (final IllegalStateException | LinkageError e)
        {
            err.println("gateway: cannot start the limiter: " + e.getMessage());
            return EXIT_START;
        }
        final DefaultThreadFactory threads = new DefaultThreadFactory(THREAD_PREFIX);
        final EventLoopGroup group = new MultiThreadIoEventLoopGroup(0, threads, NioIoHandler.newFactory());
        final EventLoopGroup backendGroup = new MultiThreadIoEventLoopGroup(1, threads, LocalIoHandler.newFactory());
        final Channel gateway;
        try
        {
            final Channel backend = Backend.inProcess(backendGroup, LocalAddress.ANY, null);
            final Settings settings = new Settings(
                new InetSocketAddress(o.bindAddress, o.port), o.idleTimeoutNs(), o.headerTimeoutNs());
            gateway = start(group, settings, config, backend.localAddress(), backendGroup);
        }
        catch (final RuntimeException e)
        {
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
            backendGroup.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
            err.println("gateway: " + bindFailure(e, o));
            return EXIT_START;
        }
        final InetSocketAddress bound = (InetSocketAddress)gateway.localAddress();
        final String url = "http://" + hostLiteral(bound) + ":" + bound.getPort() + "/";
        out.println("gateway on " + url + " limiting each client to " + o.rate + "/s, burst " + o.burst +
            " (backend in process, reachable only through the gateway)");
        if (o.burst <= 100)
        {
            out.println("try: curl -s -o /dev/null -w '%{http_code} ' '" + url + "[1-" + (o.burst + 3) + "]'; echo");
        }
        out.flush();
        Runtime.getRuntime().addShutdownHook(new Thread(() ->
        {
            gateway.close().syncUninterruptibly();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
            backendGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }, "gateway-shutdown"));
        gateway.closeFuture().syncUninterruptibly();
        return 0;
    }

    /**
     * Starts the gateway's listening socket.
     *
     * @param group         NIO event loops for the client connections.
     * @param settings      where to listen, and the timeouts.
     * @param config        the rate limit.
     * @param backend       the backend: a {@link LocalAddress} (in process) or an {@link InetSocketAddress}.
     * @param upstreamGroup for a {@link LocalAddress} backend, the in-process loops it was bound on; for a
     *                      TCP backend, null (each backend connection runs on its client's loop).
     * @return the gateway's server channel.
     * @throws RuntimeException (a {@link BindException} cause or a Netty wrapper) if it cannot listen.
     */
    public static Channel start(final EventLoopGroup group, final Settings settings, final HttpRateLimit config,
        final SocketAddress backend, final EventLoopGroup upstreamGroup)
    {
        final ChannelFuture bind = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(new ClientPipeline(config, backend, upstreamGroup, settings.idleTimeoutNs(), settings.headerTimeoutNs()))
            .bind(settings.listen()).awaitUninterruptibly();
        if (!bind.isSuccess())
        {
            final Throwable cause = bind.cause();
            throw cause instanceof RuntimeException ? (RuntimeException)cause : new IllegalStateException(cause);
        }
        return bind.channel();
    }

    private static String bindFailure(final RuntimeException e, final GatewayOptions o)
    {
        Throwable cause = e;
        while (!(cause instanceof BindException) && null != cause.getCause())
        {
            cause = cause.getCause();
        }
        final String address = hostLiteral(new InetSocketAddress(o.bindAddress, o.port)) + ":" + o.port;
        final String message = String.valueOf(cause.getMessage());
        if (cause instanceof BindException && message.contains("in use"))
        {
            return "--port " + o.port + ": cannot listen on " + address + ": the port is in use";
        }
        if (cause instanceof BindException)
        {
            return "--bind " + o.bind + ": cannot listen on " + address + ": " + message +
                " (is the address one of this host's?)";
        }
        return "cannot listen on " + address + " (--bind " + o.bind + ", --port " + o.port + "): " + message;
    }

    private static String hostLiteral(final InetSocketAddress a)
    {
        final String host = a.getAddress().getHostAddress();
        return host.indexOf(':') >= 0 ? "[" + host + "]" : host;
    }
}
