package dev.cellrate.rls;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The HTTP side, as the reference service's HTTP port: {@code GET /healthcheck} (200 OK), {@code POST /json}
 * (a request in proto3's JSON form, read by {@link JsonRequests}, {@code is_negative_hits} included; answered 200
 * with the response's JSON, 429 when over the limit, 400 for a body that is not a request), {@code GET /rlconfig}
 * (the rules in use, one per line, and the last reload error) and {@code GET /metrics} (Prometheus text). A {@code /json} body is read up to
 * {@link #MAX_BODY_BYTES}; a longer one is answered 413.
 */
final class HttpSide implements AutoCloseable
{
    /** Largest {@code /json} body read. */
    static final int MAX_BODY_BYTES = 64 * 1024;

    private final HttpServer server;
    private final ExecutorService executor;
    private final RlsService service;
    private final ConfigWatcher watcher;

    HttpSide(final InetSocketAddress address, final RlsService service, final ConfigWatcher watcher) throws IOException
    {
        this.service = service;
        this.watcher = watcher;
        this.server = HttpServer.create(address, 64);
        this.executor = Executors.newFixedThreadPool(2, r ->
        {
            final Thread t = new Thread(r, "rls-http");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
        server.createContext("/healthcheck", ex -> send(ex, 200, "text/plain", "OK\n"));
        server.createContext("/json", this::json);
        server.createContext("/rlconfig", this::rlconfig);
        server.createContext("/metrics", ex -> send(ex, 200, "text/plain; version=0.0.4", Metrics.text(service, watcher)));
        server.start();
    }

    int port()
    {
        return server.getAddress().getPort();
    }

    private void json(final HttpExchange exchange) throws IOException
    {
        if (!"POST".equals(exchange.getRequestMethod()))
        {
            send(exchange, 405, "text/plain", "POST a RateLimitRequest as JSON\n");
            return;
        }
        final byte[] body;
        try (InputStream in = exchange.getRequestBody())
        {
            body = in.readNBytes(MAX_BODY_BYTES + 1);
        }
        if (body.length > MAX_BODY_BYTES)
        {
            send(exchange, 413, "text/plain", "body longer than " + MAX_BODY_BYTES + " bytes\n");
            return;
        }
        final RateLimitRequest request;
        try
        {
            request = JsonRequests.parse(new String(body, StandardCharsets.UTF_8));
        }
        catch (final InvalidProtocolBufferException | RuntimeException ex)
        {
            send(exchange, 400, "text/plain", "not a RateLimitRequest: " + ex.getMessage() + "\n");
            return;
        }
        final CompletableFuture<Object> answer = new CompletableFuture<>();
        try
        {
            service.decide(request, answer::complete, answer::complete);
        }
        catch (final RuntimeException ex)
        {
            send(exchange, 500, "text/plain", "not decided: " + ex + "\n");
            return;
        }
        final Object outcome;
        try
        {
            outcome = answer.get(5, TimeUnit.SECONDS);
        }
        catch (final Exception ex)
        {
            send(exchange, 503, "text/plain", "no decision: " + ex + "\n");
            return;
        }
        if (outcome instanceof RateLimitResponse)
        {
            final RateLimitResponse response = (RateLimitResponse)outcome;
            send(exchange, RateLimitResponse.Code.OVER_LIMIT == response.getOverallCode() ? 429 : 200,
                "application/json", JsonFormat.printer().print(response) + "\n");
        }
        else
        {
            send(exchange, 400, "text/plain", ((io.grpc.Status)outcome).getDescription() + "\n");
        }
    }

    private void rlconfig(final HttpExchange exchange) throws IOException
    {
        final StringBuilder b = new StringBuilder(service.config().dump());
        final String error = null == watcher ? null : watcher.lastError();
        if (null != error)
        {
            b.append("# last reload refused, this configuration stays: ").append(error).append('\n');
        }
        send(exchange, 200, "text/plain", b.toString());
    }

    private static void send(final HttpExchange exchange, final int status, final String type, final String text)
        throws IOException
    {
        final byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", type);
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody())
        {
            out.write(bytes);
        }
    }

    public void close()
    {
        server.stop(0);
        executor.shutdownNow();
    }

    /** Prometheus text of the service's statistics. */
    static final class Metrics
    {
        private Metrics()
        {
        }

        static String text(final RlsService service, final ConfigWatcher watcher)
        {
            final StringBuilder b = new StringBuilder(4096);
            final String[] names = {"total_hits", "over_limit", "near_limit", "within_limit", "shadow_mode"};
            final Map<String, RuleStats> stats = service.stats();
            for (int n = 0; n < names.length; n++)
            {
                final String metric = "ratelimit_service_rate_limit_" + names[n];
                b.append("# TYPE ").append(metric).append(" counter\n");
                for (final RuleStats s : stats.values())
                {
                    final long value;
                    switch (n)
                    {
                        case 0: value = s.totalHits.sum(); break;
                        case 1: value = s.overLimit.sum(); break;
                        case 2: value = s.nearLimit.sum(); break;
                        case 3: value = s.withinLimit.sum(); break;
                        default: value = s.shadowMode.sum(); break;
                    }
                    b.append(metric).append("{domain=\"").append(escape(s.domain)).append("\",key=\"")
                        .append(escape(s.key)).append("\"} ").append(value).append('\n');
                }
            }
            final dev.cellrate.stat.StatKind[] kinds = {dev.cellrate.stat.StatKind.ADMITTED,
                dev.cellrate.stat.StatKind.REJECTED, dev.cellrate.stat.StatKind.NEVER_FIT,
                dev.cellrate.stat.StatKind.WOULD_REJECT};
            b.append("# TYPE cellrate_rls_decisions counter\n");
            for (final RuleStats s : stats.values())
            {
                if (null == s.engine)
                {
                    continue;
                }
                for (final dev.cellrate.stat.StatKind kind : kinds)
                {
                    b.append("cellrate_rls_decisions{domain=\"").append(escape(s.domain)).append("\",key=\"")
                        .append(escape(s.key)).append("\",outcome=\"").append(kind.label()).append("\"} ")
                        .append(s.engine.outcome(kind)).append('\n');
                }
            }
            b.append("# TYPE ratelimit_service_global_shadow_mode counter\n")
                .append("ratelimit_service_global_shadow_mode ").append(service.globalShadowCount()).append('\n');
            b.append("# TYPE ratelimit_service_requests counter\n")
                .append("ratelimit_service_requests ").append(service.requests()).append('\n');
            b.append("# TYPE ratelimit_service_invalid_requests counter\n")
                .append("ratelimit_service_invalid_requests ").append(service.invalidRequests()).append('\n');
            for (final Map.Entry<String, Long> counter : new java.util.TreeMap<>(service.deciderCounters()).entrySet())
            {
                b.append("# TYPE ").append(counter.getKey()).append(counter.getKey().endsWith("descriptors") || counter.getKey().endsWith("_open") ?
                    " gauge\n" : " counter\n").append(counter.getKey()).append(' ').append(counter.getValue())
                    .append('\n');
            }
            if (null != watcher)
            {
                b.append("# TYPE ratelimit_service_config_load_success counter\n")
                    .append("ratelimit_service_config_load_success ").append(watcher.loads()).append('\n');
                b.append("# TYPE ratelimit_service_config_load_error counter\n")
                    .append("ratelimit_service_config_load_error ").append(watcher.errors()).append('\n');
            }
            return b.toString();
        }

        private static String escape(final String s)
        {
            return s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
        }
    }
}
