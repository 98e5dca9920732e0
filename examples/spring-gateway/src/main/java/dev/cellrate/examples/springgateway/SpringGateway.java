package dev.cellrate.examples.springgateway;

import com.sun.net.httpserver.HttpServer;
import dev.cellrate.spring.CellrateRateLimiter;
import dev.cellrate.spring.ClientAddressKeyResolver;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.cloud.gateway.route.builder.RouteLocatorBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * An example gateway: Spring Cloud Gateway routing every path to a small backend on loopback that it starts
 * itself, each client (by its socket address, IPv6 per /64) limited by cellrate's {@link CellrateRateLimiter}.
 * <pre>
 *   java -jar examples/spring-gateway/target/spring-gateway.jar --port 8080 --rate 10 --burst 10
 * </pre>
 * Options: {@code --port P --rate R --burst B [--backend-port Q]} (the Netty example gateway's). Any Spring Boot
 * property may follow as {@code --name=value}.
 */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
public class SpringGateway
{
    /**
     * @param args {@code --port P --rate R --burst B [--backend-port Q]}, then any {@code --property=value}.
     * @throws IOException if the backend cannot listen.
     */
    public static void main(final String[] args) throws IOException
    {
        final ConfigurableApplicationContext context = start(args);
        final int port = ((WebServerApplicationContext)context).getWebServer().getPort();
        final Environment env = context.getEnvironment();
        System.out.println("backend on http://127.0.0.1:" + env.getProperty("example.backend-port") +
            "/, gateway on http://127.0.0.1:" + port + "/ limiting each client to " +
            env.getProperty("cellrate.limits.per-client.rate") + "/s, burst " +
            env.getProperty("cellrate.limits.per-client.burst"));
        System.out.println("try: curl -s -o /dev/null -w '%{http_code} ' 'http://127.0.0.1:" + port + "/[1-" +
            (Long.parseLong(env.getProperty("cellrate.limits.per-client.burst")) + 3) + "]'; echo; curl -i http://127.0.0.1:" +
            port + "/");
    }

    /**
     * Start the backend and the gateway.
     *
     * @param args the command line.
     * @return the running application (closing it stops the backend too).
     * @throws IOException if the backend cannot listen.
     */
    public static ConfigurableApplicationContext start(final String[] args) throws IOException
    {
        int port = 8080;
        long rate = 10;
        long burst = 10;
        int backendPort = 0;
        final java.util.List<String> rest = new java.util.ArrayList<>();
        for (int i = 0; i < args.length; i++)
        {
            final String a = args[i];
            switch (a)
            {
                case "--port": port = Integer.parseInt(value(args, i++)); break;
                case "--rate": rate = Long.parseLong(value(args, i++)); break;
                case "--burst": burst = Long.parseLong(value(args, i++)); break;
                case "--backend-port": backendPort = Integer.parseInt(value(args, i++)); break;
                default:
                    if (!a.startsWith("--") || !a.contains("="))
                    {
                        throw new IllegalArgumentException("unknown option " + a +
                            " (use --port P --rate R --burst B [--backend-port Q] [--spring.property=value])");
                    }
                    rest.add(a);
                    break;
            }
        }
        final HttpServer backend = backend(backendPort);
        final ConfigurableApplicationContext context = new SpringApplicationBuilder(SpringGateway.class)
            .web(WebApplicationType.REACTIVE)
            .properties(
                "server.address=127.0.0.1",
                "server.port=" + port,
                "spring.main.banner-mode=off",
                "management.endpoints.web.exposure.include=health,cellrate,metrics",
                "example.backend-port=" + backend.getAddress().getPort(),
                "cellrate.limits.per-client.rate=" + rate,
                "cellrate.limits.per-client.burst=" + burst,
                "cellrate.limits.per-client.filter=false",
                "cellrate.limits.per-client.expected-keys=100000")
            .run(rest.toArray(new String[0]));
        context.addApplicationListener(event ->
        {
            if (event instanceof org.springframework.context.event.ContextClosedEvent)
            {
                backend.stop(0);
            }
        });
        return context;
    }

    private static String value(final String[] args, final int i)
    {
        if (i + 1 >= args.length)
        {
            throw new IllegalArgumentException(args[i] + " needs a value");
        }
        return args[i + 1];
    }

    @Bean
    KeyResolver clientAddress()
    {
        return new ClientAddressKeyResolver(64, "no-address");
    }

    @Bean
    RouteLocator routes(final RouteLocatorBuilder builder, final CellrateRateLimiter limiter, final KeyResolver client,
        final Environment env)
    {
        final String backend = "http://127.0.0.1:" + env.getProperty("example.backend-port");
        return builder.routes()
            .route("backend", r -> r.path("/**").and().not(p -> p.path("/actuator/**"))
                .filters(f -> f.requestRateLimiter(c -> c.setRateLimiter(limiter).setKeyResolver(client)))
                .uri(backend))
            .build();
    }

    /** A small backend: answers every request with 200 and a short text. */
    static HttpServer backend(final int port) throws IOException
    {
        final HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 128);
        server.createContext("/", exchange ->
        {
            final byte[] body = ("hello from the backend: " + exchange.getRequestURI() + "\n")
                .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/plain");
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
        return server;
    }
}
