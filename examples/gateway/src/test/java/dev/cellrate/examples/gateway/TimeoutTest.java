package dev.cellrate.examples.gateway;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Slow and silent clients over real sockets: a request head that trickles in (slowloris) is closed after the
 * header-read timeout, a silent connection after the idle timeout, and neither timeout touches a client that
 * behaves (a keep-alive connection quiet between requests is not "slow headers").
 */
final class TimeoutTest
{
    private static final long HEADER_TIMEOUT_MS = 400;
    private static final long IDLE_TIMEOUT_MS = 1_500;
    private static final long LONG_MS = TimeUnit.SECONDS.toMillis(60);

    @Test
    void slowHeadersAreClosedAfterTheHeaderTimeout() throws Exception
    {
        try (TestGateway gateway = new TestGateway(100, false, TimeUnit.MILLISECONDS.toNanos(LONG_MS),
            TimeUnit.MILLISECONDS.toNanos(HEADER_TIMEOUT_MS)))
        {
            final List<RawHttp> slow = new ArrayList<>();
            try
            {
                for (int i = 0; i < 5; i++)
                {
                    slow.add(new RawHttp("127.0.9." + (1 + i), gateway.port).send("GET / HTTP/1.1\r\n"));
                }
                final long startNs = System.nanoTime();
                final boolean[] closed = new boolean[slow.size()];
                int open = slow.size();
                // one header line every 100 ms per connection, which an idle timer alone would never stop
                for (int line = 0; line < 40 && open > 0; line++)
                {
                    Thread.sleep(100);
                    for (int i = 0; i < slow.size(); i++)
                    {
                        if (!closed[i])
                        {
                            try
                            {
                                slow.get(i).send("X-Slow-" + line + ": " + line + "\r\n");
                            }
                            catch (final java.io.IOException e)
                            {
                                closed[i] = true;
                                open--;
                            }
                        }
                    }
                }
                final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
                for (final RawHttp s : slow)
                {
                    final RawHttp.Response r = s.read();
                    assertNotNull(r, "a 408 before the close");
                    assertEquals(408, r.status());
                    assertTrue(s.closedByPeer());
                }
                assertTrue(elapsedMs < 4_000, "closed after the header timeout, not the idle timeout: " + elapsedMs);
                assertEquals(0, gateway.backendRequests.get(), "no slow head reached the backend");
            }
            finally
            {
                for (final RawHttp s : slow)
                {
                    s.close();
                }
            }
        }
    }

    @Test
    void aQuietKeepAliveConnectionIsNotASlowHead() throws Exception
    {
        try (TestGateway gateway = new TestGateway(100, false, TimeUnit.MILLISECONDS.toNanos(LONG_MS),
                TimeUnit.MILLISECONDS.toNanos(HEADER_TIMEOUT_MS));
             RawHttp client = new RawHttp("127.0.9.50", gateway.port))
        {
            assertEquals(200, client.send(RawHttp.get("/1")).read().status());
            Thread.sleep(3 * HEADER_TIMEOUT_MS);
            assertEquals(200, client.send(RawHttp.get("/2")).read().status(), "kept open between requests");
            // a head sent in two parts, well within the timeout
            client.send("GET /3 HTTP/1.1\r\n");
            Thread.sleep(HEADER_TIMEOUT_MS / 4);
            assertEquals(200, client.send("Host: x\r\n\r\n").read().status());
        }
    }

    @Test
    void aSilentConnectionIsClosedAfterTheIdleTimeout() throws Exception
    {
        try (TestGateway gateway = new TestGateway(100, false, TimeUnit.MILLISECONDS.toNanos(IDLE_TIMEOUT_MS),
                TimeUnit.MILLISECONDS.toNanos(LONG_MS));
             RawHttp silent = new RawHttp("127.0.9.60", gateway.port);
             RawHttp served = new RawHttp("127.0.9.61", gateway.port))
        {
            assertEquals(200, served.send(RawHttp.get("/")).read().status());
            final long startNs = System.nanoTime();
            assertTrue(silent.closedByPeer(), "closed within the read timeout");
            assertTrue(served.closedByPeer(), "idle after its response: closed too");
            final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
            assertTrue(elapsedMs >= IDLE_TIMEOUT_MS / 2, "not before the idle timeout: " + elapsedMs);
        }
    }
}
