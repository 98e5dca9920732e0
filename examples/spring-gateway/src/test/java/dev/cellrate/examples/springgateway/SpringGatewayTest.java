package dev.cellrate.examples.springgateway;

import org.junit.jupiter.api.Test;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The example as its README runs it: the gateway routes to its backend and limits each client. */
class SpringGatewayTest
{
    @Test
    void routesToTheBackendAndLimitsTheClient() throws Exception
    {
        try (ConfigurableApplicationContext context = SpringGateway.start(
            new String[] {"--port", "0", "--rate", "1", "--burst", "3", "--cellrate.limits.per-client.period=1h"}))
        {
            final int port = ((WebServerApplicationContext)context).getWebServer().getPort();
            final HttpClient client = HttpClient.newHttpClient();
            int ok = 0;
            int rejected = 0;
            for (int i = 0; i < 6; i++)
            {
                final HttpResponse<String> r = client.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/item/" + i)).build(),
                    HttpResponse.BodyHandlers.ofString());
                if (200 == r.statusCode())
                {
                    ok++;
                    assertEquals("hello from the backend: /item/" + i + "\n", r.body());
                }
                else
                {
                    rejected++;
                    assertEquals(429, r.statusCode());
                    final long retry = Long.parseLong(r.headers().firstValue("retry-after").orElseThrow());
                    assertTrue(retry > 3500 && retry <= 3600, "a permit an hour, rounded up: " + retry);
                    assertTrue(r.headers().firstValue("ratelimit").orElse("").startsWith("\"per-client\";r=0;t=10"));
                }
            }
            assertEquals(3, ok);
            assertEquals(3, rejected);
            final HttpResponse<String> actuator = client.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/cellrate")).build(),
                HttpResponse.BodyHandlers.ofString());
            assertTrue(actuator.body().contains("\"rejected\":3"), actuator.body());
        }
    }
}
