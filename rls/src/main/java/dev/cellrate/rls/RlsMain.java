package dev.cellrate.rls;

import dev.cellrate.redis.FailPolicy;
import dev.cellrate.rls.config.ConfigException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/**
 * {@code java -jar cellrate-rls.jar --config DIR [--grpc-port 8081] [--http-port 8080] [--redis URI]}.
 */
@Command(name = "cellrate-rls", mixinStandardHelpOptions = true,
    description = "Envoy's rate limit service (envoy.service.ratelimit.v3) on cellrate, reading " +
        "envoyproxy/ratelimit's YAML configuration.")
public final class RlsMain implements Callable<Integer>
{
    @Option(names = "--config", required = true, description = "Directory of *.yaml configuration files.")
    Path config;

    @Option(names = "--grpc-port", defaultValue = "8081", description = "gRPC port (default ${DEFAULT-VALUE}).")
    int grpcPort;

    @Option(names = "--http-port", defaultValue = "8080",
        description = "HTTP port for /healthcheck, /json, /rlconfig, /metrics; -1 for none (default ${DEFAULT-VALUE}).")
    int httpPort;

    @Option(names = "--bind", defaultValue = "0.0.0.0", description = "Address to listen on (default ${DEFAULT-VALUE}).")
    String bind;

    @Option(names = "--redis", description = "Share limits through Redis, e.g. redis://127.0.0.1:6379.")
    String redis;

    @Option(names = "--redis-fail", defaultValue = "CLOSED",
        description = "When Redis cannot answer in time: ${COMPLETION-CANDIDATES} (default ${DEFAULT-VALUE}).")
    FailPolicy redisFail;

    @Option(names = "--redis-timeout-ms", defaultValue = "50", description = "Redis timeout (default ${DEFAULT-VALUE}).")
    long redisTimeoutMs;

    @Option(names = "--redis-breaker-window-calls", defaultValue = "100",
        description = "Circuit breaker: outcomes of the last calls to Redis kept (default ${DEFAULT-VALUE}).")
    int redisBreakerWindowCalls;

    @Option(names = "--redis-breaker-minimum-calls", defaultValue = "20",
        description = "Circuit breaker: calls recorded before it may open (default ${DEFAULT-VALUE}).")
    int redisBreakerMinimumCalls;

    @Option(names = "--redis-breaker-failure-rate-percent", defaultValue = "50",
        description = "Circuit breaker: failed share of the window that opens it (default ${DEFAULT-VALUE}).")
    int redisBreakerFailureRatePercent;

    @Option(names = "--redis-breaker-open-ms", defaultValue = "1000",
        description = "Circuit breaker: how long it answers by --redis-fail without asking Redis, before one " +
            "probe (default ${DEFAULT-VALUE}).")
    long redisBreakerOpenMs;

    @Option(names = "--redis-prefix", defaultValue = "rls:",
        description = "Prefix of every Redis key (default ${DEFAULT-VALUE}); {tag}: for Redis Cluster.")
    String redisPrefix;

    @Option(names = "--mode", defaultValue = "GCRA",
        description = "GCRA or FIXED_WINDOW (envoyproxy/ratelimit's counting) (default ${DEFAULT-VALUE}).")
    RlsServer.Mode mode;

    @Option(names = "--shadow-mode", description = "Global shadow mode: decide and count, always answer OK.")
    boolean shadowMode;

    @Option(names = "--headers", defaultValue = "NONE",
        description = "Response headers: NONE, IETF (RateLimit-Policy, RateLimit) or LEGACY (X-RateLimit-*).")
    RlsService.Headers headers;

    @Option(names = "--keys-per-rule", defaultValue = "65536",
        description = "Descriptors each rule's table holds (default ${DEFAULT-VALUE}).")
    int keysPerRule;

    @Option(names = "--poll-ms", defaultValue = "1000", description = "Config directory poll period (default ${DEFAULT-VALUE}).")
    long pollMs;

    @Option(names = "--stat-dir",
        description = "Write the engine's decision counters to DIR/ for java -jar stat/target/cellrate-stat.jar DIR.")
    Path statDir;

    public Integer call() throws Exception
    {
        final RlsServer.Options options = new RlsServer.Options();
        options.configDirectory = config;
        options.bindHost = bind;
        options.grpcPort = grpcPort;
        options.httpPort = httpPort;
        options.redisUri = redis;
        options.redisFailPolicy = redisFail;
        options.redisTimeoutMs = redisTimeoutMs;
        options.redisPrefix = redisPrefix;
        options.redisBreakerWindowCalls = redisBreakerWindowCalls;
        options.redisBreakerMinimumCalls = redisBreakerMinimumCalls;
        options.redisBreakerFailureRatePercent = redisBreakerFailureRatePercent;
        options.redisBreakerOpenMs = redisBreakerOpenMs;
        options.mode = mode;
        options.globalShadowMode = shadowMode;
        options.headers = headers;
        options.keysPerRule = keysPerRule;
        options.pollMs = pollMs;
        options.statDirectory = statDir;
        final RlsServer server;
        try
        {
            server = RlsServer.start(options);
        }
        catch (final ConfigException ex)
        {
            System.err.println("cellrate-rls: configuration error: " + ex.getMessage());
            return 2;
        }
        catch (final IllegalArgumentException ex)
        {
            System.err.println("cellrate-rls: bad option: " + ex.getMessage());
            return 2;
        }
        System.out.println("cellrate-rls: gRPC on " + server.grpcPort() + ", HTTP on " + server.httpPort() +
            ", " + server.service().config().rules().size() + " rules from " + config);
        final CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() ->
        {
            try
            {
                server.close();
            }
            catch (final InterruptedException ignored)
            {
                Thread.currentThread().interrupt();
            }
            stopped.countDown();
        }));
        stopped.await();
        return 0;
    }

    public static void main(final String[] args)
    {
        final CommandLine cli = new CommandLine(new RlsMain()).setCaseInsensitiveEnumValuesAllowed(true);
        final int code = cli.execute(args);
        if (0 != code)
        {
            System.exit(code);
        }
    }
}
