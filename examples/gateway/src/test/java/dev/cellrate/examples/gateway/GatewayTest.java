package dev.cellrate.examples.gateway;

import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The example gateway on loopback with the JDK client: a burst through the proxy gets exactly the burst of 200s, then 429s. */
final class GatewayTest
{
    @Test
    void proxiesTheBurstAndRefusesTheRest() throws Exception
    {
        try (TestGateway gateway = new TestGateway(10))
        {
            final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            final List<Integer> statuses = new ArrayList<>();
            HttpResponse<String> first = null;
            HttpResponse<String> last = null;
            for (int i = 0; i < 13; i++)
            {
                last = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.port + "/")).build(),
                    HttpResponse.BodyHandlers.ofString());
                statuses.add(last.statusCode());
                first = 0 == i ? last : first;
            }
            assertEquals("hello\n", first.body(), "relayed from the backend");
            assertEquals("\"per-client\";q=10;w=1", first.headers().firstValue("ratelimit-policy").orElseThrow());
            assertEquals("\"per-client\";r=9;t=1", first.headers().firstValue("ratelimit").orElseThrow());
            assertNull(first.headers().firstValue("x-ratelimit-limit").orElse(null), "no legacy fields by default");
            assertEquals(List.of(200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 429, 429, 429), statuses);
            assertTrue(last.headers().firstValue("retry-after").isPresent());
            assertEquals(10, gateway.backendRequests.get(), "only admitted requests reach the backend");
        }
    }

    @Test
    void legacyHeadersAreWrittenBesideTheIetfFields() throws Exception
    {
        try (TestGateway gateway = new TestGateway(2, true, 60_000_000_000L, 10_000_000_000L);
             RawHttp client = new RawHttp("127.0.7.1", gateway.port))
        {
            final RawHttp.Response ok = client.send(RawHttp.get("/")).read();
            assertEquals(200, ok.status());
            assertEquals("2", ok.header("x-ratelimit-limit"));
            assertEquals("1", ok.header("x-ratelimit-remaining"));
            assertEquals("\"per-client\";r=1;t=1", ok.header("ratelimit"));
            client.send(RawHttp.get("/"));
            assertEquals(200, client.read().status());
            final RawHttp.Response refused = client.send(RawHttp.get("/")).read();
            assertEquals(429, refused.status());
            assertEquals("0", refused.header("x-ratelimit-remaining"));
            assertEquals("2", refused.header("x-ratelimit-limit"));
            assertTrue(null != refused.header("x-ratelimit-reset") && null != refused.header("ratelimit-policy"));
        }
    }
}
