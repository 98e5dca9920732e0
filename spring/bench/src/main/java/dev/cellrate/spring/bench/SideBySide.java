package dev.cellrate.spring.bench;

import com.sun.net.httpserver.HttpServer;
import dev.cellrate.spring.ClientAddressKeyResolver;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.RedisClient;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.cloud.gateway.filter.ratelimit.Bucket4jRateLimiter;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.cloud.gateway.filter.ratelimit.RateLimiter;
import org.springframework.cloud.gateway.filter.ratelimit.RedisRateLimiter;
import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.cloud.gateway.route.builder.RouteLocatorBuilder;
import org.springframework.cloud.gateway.support.ConfigurationService;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One Spring Cloud Gateway, routing every path to a small loopback backend through {@code RequestRateLimiter},
 * with the rate limiter chosen on the command line:
 * <pre>
 *   java -jar spring/bench/target/spring-bench.jar --limiter cellrate|cellrate-redis|scg-redis|bucket4j \
 *       --port P --backend-port Q --rate R --burst B [--redis-port N]
 * </pre>
 * {@code cellrate}: cellrate's local table; {@code cellrate-redis}: cellrate-redis; {@code scg-redis}: the
 * gateway's own {@code RedisRateLimiter}; {@code bucket4j}: the gateway's {@code Bucket4jRateLimiter} on
 * Bucket4j's Lettuce proxy manager. Each client is keyed by its address.
 */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
public class SideBySide
{
    private static final String GATEWAY_REDIS = "org.springframework.cloud.gateway.config.GatewayRedisAutoConfiguration";

    /**
     * @param args see the class comment.
     * @throws IOException if the backend cannot listen.
     */
    public static void main(final String[] args) throws IOException
    {
        String limiter = "cellrate";
        int port = 18080;
        int backendPort = 18090;
        long rate = 1_000_000;
        long burst = 1_000_000;
        int redisPort = 6379;
        for (int i = 0; i + 1 < args.length; i += 2)
        {
            switch (args[i])
            {
                case "--limiter": limiter = args[i + 1]; break;
                case "--port": port = Integer.parseInt(args[i + 1]); break;
                case "--backend-port": backendPort = Integer.parseInt(args[i + 1]); break;
                case "--rate": rate = Long.parseLong(args[i + 1]); break;
                case "--burst": burst = Long.parseLong(args[i + 1]); break;
                case "--redis-port": redisPort = Integer.parseInt(args[i + 1]); break;
                default: throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        backend(backendPort);
        final List<String> p = new ArrayList<>(List.of(
            "server.address=127.0.0.1", "server.port=" + port, "spring.main.banner-mode=off",
            "logging.level.root=warn", "management.health.redis.enabled=false",
            "bench.limiter=" + limiter, "bench.rate=" + rate, "bench.burst=" + burst,
            "bench.backend-port=" + backendPort, "bench.redis-port=" + redisPort,
            "spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redisPort,
            "cellrate.limits.bench.rate=" + rate, "cellrate.limits.bench.burst=" + burst,
            "cellrate.limits.bench.filter=false",
            "cellrate.redis.uri=redis://127.0.0.1:" + redisPort, "cellrate.redis.fail-policy=open"));
        if ("cellrate-redis".equals(limiter))
        {
            p.add("cellrate.limits.bench.backend=redis");
        }
        if (!"scg-redis".equals(limiter))
        {
            p.add("spring.autoconfigure.exclude=" + GATEWAY_REDIS);
        }
        new SpringApplicationBuilder(SideBySide.class).web(WebApplicationType.REACTIVE)
            .properties(p.toArray(new String[0])).run();
        System.out.println("ready: " + limiter + " on http://127.0.0.1:" + port + "/");
    }

    @Bean
    KeyResolver clientAddress()
    {
        return new ClientAddressKeyResolver(64, "no-address");
    }

    @Bean
    @Conditional(Bucket4jMode.class)
    Bucket4jRateLimiter bucket4jRateLimiter(final Environment env, final ConfigurationService configurationService)
    {
        final RedisClient client = RedisClient.create("redis://127.0.0.1:" + env.getProperty("bench.redis-port"));
        final var connection = client.connect(RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE));
        return new Bucket4jRateLimiter(Bucket4jLettuce.casBasedBuilder(connection).build().asAsync(),
            configurationService);
    }

    @Bean
    RouteLocator routes(
        final RouteLocatorBuilder builder, final ObjectProvider<RateLimiter<?>> limiters, final KeyResolver client,
        final Environment env)
    {
        final RateLimiter<?> limiter = limiters.getObject();
        final long rate = Long.parseLong(env.getProperty("bench.rate"));
        final long burst = Long.parseLong(env.getProperty("bench.burst"));
        if (limiter instanceof RedisRateLimiter)
        {
            ((RedisRateLimiter)limiter).getConfig().put("backend", new RedisRateLimiter.Config()
                .setReplenishRate((int)rate).setBurstCapacity((int)burst).setRequestedTokens(1));
        }
        else if (limiter instanceof Bucket4jRateLimiter)
        {
            ((Bucket4jRateLimiter)limiter).getConfig().put("backend", new Bucket4jRateLimiter.Config()
                .setCapacity(burst).setRefillTokens(rate).setRefillPeriod(Duration.ofSeconds(1)).setRequestedTokens(1));
        }
        return builder.routes()
            .route("backend", r -> r.path("/**").and().not(x -> x.path("/actuator/**"))
                .filters(f -> f.requestRateLimiter(c -> c.setRateLimiter(limiter).setKeyResolver(client)))
                .uri("http://127.0.0.1:" + env.getProperty("bench.backend-port")))
            .build();
    }

    /** Bucket4j's limiter only when asked for. */
    static final class Bucket4jMode implements org.springframework.context.annotation.Condition
    {
        public boolean matches(final org.springframework.context.annotation.ConditionContext context,
            final org.springframework.core.type.AnnotatedTypeMetadata metadata)
        {
            return "bucket4j".equals(context.getEnvironment().getProperty("bench.limiter"));
        }
    }

    static void backend(final int port) throws IOException
    {
        final HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 512);
        server.createContext("/", exchange ->
        {
            final byte[] body = "ok\n".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody())
            {
                out.write(body);
            }
        });
        server.setExecutor(java.util.concurrent.Executors.newFixedThreadPool(4, r ->
        {
            final Thread t = new Thread(r, "backend");
            t.setDaemon(true);
            return t;
        }));
        server.start();
    }
}
