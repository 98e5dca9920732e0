package dev.cellrate.rls;

import dev.cellrate.redis.FailPolicy;
import dev.cellrate.redis.RedisComposite;
import dev.cellrate.redis.RedisRateLimiterBuilder;
import dev.cellrate.stat.StatFile;
import dev.cellrate.rls.config.ConfigException;
import dev.cellrate.rls.config.ConfigLoader;
import dev.cellrate.rls.config.RlsConfig;
import io.grpc.Server;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The whole service: the gRPC server ({@code RateLimitService} and {@code grpc.health.v1.Health}), the HTTP side
 * and the configuration watcher, started together and closed together.
 */
public final class RlsServer implements AutoCloseable
{
    /** How descriptors are decided. */
    public enum Mode
    {
        /** GCRA in the engine's off-heap keyed tables (the default). */
        GCRA,
        /** Fixed windows aligned to the unit, counted as envoyproxy/ratelimit counts them. */
        FIXED_WINDOW
    }

    /** Everything the command line sets. */
    public static final class Options
    {
        public Path configDirectory;
        public String bindHost = "0.0.0.0";
        public int grpcPort = 8081;
        public int httpPort = 8080;
        public String redisUri;
        public FailPolicy redisFailPolicy = FailPolicy.CLOSED;
        public long redisTimeoutMs = 50;
        public String redisPrefix = "rls:";
        /** The Redis circuit breaker's window: outcomes of the last calls kept. */
        public int redisBreakerWindowCalls = 100;
        /** Calls recorded before the breaker may open. */
        public int redisBreakerMinimumCalls = 20;
        /** Failed share of the window that opens the breaker, %. */
        public int redisBreakerFailureRatePercent = 50;
        /** How long the open breaker answers by the fail policy before one probe, ms. */
        public long redisBreakerOpenMs = 1_000;
        public Mode mode = Mode.GCRA;
        public boolean globalShadowMode;
        public RlsService.Headers headers = RlsService.Headers.NONE;
        public int keysPerRule = 65_536;
        public long pollMs = 1_000;
        /** A directory for the engine's counters as a mapped file ({@code cellrate-stat} reads it), or null. */
        public Path statDirectory;
        /** The clock of GCRA decisions (tests fix it); null for the system's monotonic clock. */
        public org.agrona.concurrent.NanoClock clock;
        /** ns since the Unix epoch for fixed windows (tests fix it); null for the system's wall clock. */
        public org.agrona.concurrent.NanoClock epochClock;
    }

    private final RlsService service;
    private final Server grpc;
    private final HttpSide http;
    private final ConfigWatcher watcher;
    private final HealthStatusManager health;
    private final RedisClient redisClient;
    private final StatefulRedisConnection<byte[], byte[]> redisConnection;

    private RlsServer(final Options options) throws IOException, ConfigException
    {
        final RlsConfig config = ConfigLoader.load(options.configDirectory);
        final Decider decider;
        if (null != options.redisUri)
        {
            checkRedisOptions(options); // before any connection
            redisClient = RedisClient.create(options.redisUri);
            redisConnection = redisClient.connect(ByteArrayCodec.INSTANCE);
            try
            {
                decider = new RedisDecider(new RedisComposite(redisConnection,
                    TimeUnit.MILLISECONDS.toNanos(options.redisTimeoutMs), RedisDecider.EXTRA_TTL_MS,
                    options.redisBreakerWindowCalls, options.redisBreakerMinimumCalls,
                    options.redisBreakerFailureRatePercent, TimeUnit.MILLISECONDS.toNanos(options.redisBreakerOpenMs)),
                    options.redisFailPolicy, options.redisPrefix, options.keysPerRule, options.clock);
            }
            catch (final IllegalArgumentException ex)
            {
                redisConnection.close();
                redisClient.shutdown();
                throw ex;
            }
        }
        else
        {
            redisClient = null;
            redisConnection = null;
            decider = Mode.FIXED_WINDOW == options.mode ?
                new FixedWindowDecider(options.keysPerRule * 16, options.epochClock) :
                new GcraDecider(options.keysPerRule, options.clock);
        }
        final StatFile statFile = null == options.statDirectory ?
            StatFile.inMemory(RlsService.ENGINE_COUNTERS, 0) :
            StatFile.create(options.statDirectory, RlsService.ENGINE_COUNTERS, 0);
        service = new RlsService(decider, config, options.globalShadowMode, options.headers, statFile);
        watcher = new ConfigWatcher(options.configDirectory, service, options.pollMs);
        health = new HealthStatusManager();
        final NettyServerBuilder builder = NettyServerBuilder
            .forAddress(new InetSocketAddress(options.bindHost, options.grpcPort))
            .addService(service.definition())
            .addService(health.getHealthService())
            .maxInboundMessageSize(1 << 20);
        builder.directExecutor(); // decisions never block (Redis calls are asynchronous): answer on the event loop
        grpc = builder.build().start();
        health.setStatus("", HealthCheckResponse.ServingStatus.SERVING);
        health.setStatus("envoy.service.ratelimit.v3.RateLimitService", HealthCheckResponse.ServingStatus.SERVING);
        http = options.httpPort < 0 ? null :
            new HttpSide(new InetSocketAddress(options.bindHost, options.httpPort), service, watcher);
    }

    private static void checkRedisOptions(final Options options)
    {
        check("--redis-timeout-ms", options.redisTimeoutMs, 1, 60_000);
        check("--redis-breaker-window-calls", options.redisBreakerWindowCalls, 1,
            RedisRateLimiterBuilder.MAX_BREAKER_WINDOW_CALLS);
        check("--redis-breaker-minimum-calls", options.redisBreakerMinimumCalls, 1, options.redisBreakerWindowCalls);
        check("--redis-breaker-failure-rate-percent", options.redisBreakerFailureRatePercent, 1, 100);
        check("--redis-breaker-open-ms", options.redisBreakerOpenMs, 1, TimeUnit.HOURS.toMillis(1));
    }

    private static void check(final String option, final long value, final long min, final long max)
    {
        if (value < min || value > max)
        {
            throw new IllegalArgumentException(option + " must be in [" + min + ", " + max + "] but was " + value);
        }
    }

    /**
     * @param options the options.
     * @return the started service.
     * @throws IOException     if a port cannot be bound.
     * @throws ConfigException if the configuration cannot be loaded.
     */
    public static RlsServer start(final Options options) throws IOException, ConfigException
    {
        return new RlsServer(options);
    }

    public int grpcPort()
    {
        return grpc.getPort();
    }

    /**
     * @return the HTTP port, or -1 without an HTTP side.
     */
    public int httpPort()
    {
        return null == http ? -1 : http.port();
    }

    public RlsService service()
    {
        return service;
    }

    ConfigWatcher watcher()
    {
        return watcher;
    }

    public void close() throws InterruptedException
    {
        health.enterTerminalState();
        grpc.shutdown();
        if (!grpc.awaitTermination(5, TimeUnit.SECONDS))
        {
            grpc.shutdownNow();
        }
        watcher.close();
        if (null != http)
        {
            http.close();
        }
        if (null != redisConnection)
        {
            redisConnection.close();
            redisClient.shutdown();
        }
    }
}
