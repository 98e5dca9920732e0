package dev.cellrate.examples.gateway;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * HTTP/1.1 pipelining through the whole gateway over a real socket: every depth from 1 to 64 is answered
 * in full and in order, and clients that pipeline and vanish leave no backend connection behind.
 */
final class PipeliningTest
{
    private static String pipeline(final int depth)
    {
        final StringBuilder b = new StringBuilder();
        for (int i = 0; i < depth; i++)
        {
            b.append(RawHttp.get("/" + i));
        }
        return b.toString();
    }

    @Test
    void everyDepthFrom1To64IsAnsweredInFull() throws Exception
    {
        try (TestGateway gateway = new TestGateway(1_000_000))
        {
            for (int depth = 1; depth <= 64; depth++)
            {
                try (RawHttp client = new RawHttp("127.0.2." + depth, gateway.port))
                {
                    client.send(pipeline(depth));
                    assertEquals(Collections.nCopies(depth, 200), client.statuses(depth), "depth " + depth);
                    assertEquals(200, client.send(RawHttp.get("/after")).read().status(),
                        "the connection is kept after depth " + depth);
                }
            }
        }
    }

    @Test
    void refusalsKeepTheirPlaceInADeepPipeline() throws Exception
    {
        try (TestGateway gateway = new TestGateway(10);
             RawHttp client = new RawHttp("127.0.3.1", gateway.port))
        {
            client.send(pipeline(30));
            final List<Integer> expected = new ArrayList<>(Collections.nCopies(10, 200));
            expected.addAll(Collections.nCopies(20, 429));
            assertEquals(expected, client.statuses(30));
            assertEquals(10, gateway.backendRequests.get());
        }
    }

    @Test
    void clientsThatPipelineAndVanishLeaveNoBackendConnection() throws Exception
    {
        try (TestGateway gateway = new TestGateway(1_000_000))
        {
            assertEquals(0, gateway.backendConnections.get());
            for (int i = 0; i < 10; i++)
            {
                final RawHttp client = new RawHttp("127.0.4." + (1 + i), gateway.port);
                client.send(pipeline(30));
                if (0 == (i & 1))
                {
                    client.reset();
                }
                else
                {
                    client.close();
                }
            }
            assertEquals(0, gateway.awaitBackendConnections(0), "backend connections left open");
            try (RawHttp client = new RawHttp("127.0.4.200", gateway.port))
            {
                assertEquals(200, client.send(RawHttp.get("/")).read().status());
            }
            assertEquals(0, gateway.awaitBackendConnections(0), "the last client's backend connection is closed");
        }
    }

    /**
     * The race behind the orphaned backend connections, made certain: the backend's event loop is held busy,
     * so each backend connect completes only after its client has pipelined 30 requests and reset.
     */
    @Test
    void aClientGoneBeforeItsBackendConnectionCompletesLeavesNone() throws Exception
    {
        try (TestGateway gateway = new TestGateway(1_000_000))
        {
            final java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
            gateway.backendGroup.execute(() ->
            {
                try
                {
                    release.await(5, java.util.concurrent.TimeUnit.SECONDS);
                }
                catch (final InterruptedException e)
                {
                    Thread.currentThread().interrupt();
                }
            });
            for (int i = 0; i < 5; i++)
            {
                final RawHttp client = new RawHttp("127.0.4." + (100 + i), gateway.port);
                client.send(pipeline(30));
                client.reset();
            }
            Thread.sleep(200); // the gateway sees the resets while every backend connect is still pending
            release.countDown();
            Thread.sleep(200);
            assertEquals(0, gateway.awaitBackendConnections(0), "backend connections left open");
        }
    }
}
