package dev.cellrate.examples.gateway;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Many real clients over real TCP through the whole gateway: each source address (127.0.0.2, 127.0.0.3, ...)
 * has its own budget, and a client's second connection shares the budget of its first.
 */
final class ManyClientsTest
{
    private static final int CLIENTS = 8;
    private static final int BURST = 3;

    @Test
    void eachSourceAddressHasItsOwnBudget() throws Exception
    {
        try (TestGateway gateway = new TestGateway(BURST))
        {
            final List<Integer> expected = List.of(200, 200, 200, 429, 429);
            for (int i = 0; i < CLIENTS; i++)
            {
                final String source = "127.0.0." + (2 + i);
                try (RawHttp client = new RawHttp(source, gateway.port))
                {
                    final List<Integer> statuses = new ArrayList<>();
                    for (int r = 0; r < expected.size(); r++)
                    {
                        statuses.add(client.send(RawHttp.get("/" + r)).read().status());
                    }
                    assertEquals(expected, statuses, "client " + source);
                }
            }
            for (int i = 0; i < CLIENTS; i++)
            {
                try (RawHttp again = new RawHttp("127.0.0." + (2 + i), gateway.port))
                {
                    assertEquals(429, again.send(RawHttp.get("/again")).read().status(),
                        "a new connection from the same address spends the same budget");
                }
            }
            assertEquals(CLIENTS * BURST, gateway.backendRequests.get(), "only admitted requests reach the backend");
        }
    }

    @Test
    void interleavedClientsDoNotShareABudget() throws Exception
    {
        try (TestGateway gateway = new TestGateway(BURST))
        {
            final List<RawHttp> clients = new ArrayList<>();
            try
            {
                for (int i = 0; i < CLIENTS; i++)
                {
                    clients.add(new RawHttp("127.0.1." + (1 + i), gateway.port));
                }
                final List<List<Integer>> statuses = new ArrayList<>();
                for (int i = 0; i < CLIENTS; i++)
                {
                    statuses.add(new ArrayList<>());
                }
                for (int round = 0; round < BURST + 1; round++)
                {
                    for (int i = 0; i < CLIENTS; i++)
                    {
                        statuses.get(i).add(clients.get(i).send(RawHttp.get("/r" + round)).read().status());
                    }
                }
                assertEquals(Collections.nCopies(CLIENTS, List.of(200, 200, 200, 429)), statuses);
            }
            finally
            {
                for (final RawHttp c : clients)
                {
                    c.close();
                }
            }
        }
    }

    /** Bound to {@code ::} (both families): an IPv4 client and an IPv6 client on one host have two budgets. */
    @Test
    void ipv4AndIpv6ClientsHaveTheirOwnBudgets() throws Exception
    {
        try (TestGateway gateway = new TestGateway(BURST, false, TimeUnit.SECONDS.toNanos(60),
            TimeUnit.SECONDS.toNanos(10), "::"))
        {
            final List<Integer> expected = List.of(200, 200, 200, 429);
            for (final String[] client : new String[][] {{"127.0.0.2", "127.0.0.1"}, {"::1", "::1"}, {"127.0.0.3", "127.0.0.1"}})
            {
                try (RawHttp c = new RawHttp(client[0], client[1], gateway.port))
                {
                    final List<Integer> statuses = new ArrayList<>();
                    for (int r = 0; r < expected.size(); r++)
                    {
                        statuses.add(c.send(RawHttp.get("/" + r)).read().status());
                    }
                    assertEquals(expected, statuses, "client " + client[0]);
                }
            }
        }
    }

    /** 50 clients at once, each from its own address and pipelining 8 deep: each gets exactly its burst. */
    @Test
    void fiftyConcurrentClientsEachGetExactlyTheirBurst() throws Exception
    {
        final int clients = 50;
        final int burst = 5;
        final int depth = 8;
        try (TestGateway gateway = new TestGateway(burst))
        {
            final java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(clients);
            try
            {
                final java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(clients);
                final List<java.util.concurrent.Future<List<Integer>>> results = new ArrayList<>();
                for (int i = 0; i < clients; i++)
                {
                    final String source = "127.0.13." + (1 + i);
                    results.add(pool.submit(() ->
                    {
                        try (RawHttp client = new RawHttp(source, gateway.port))
                        {
                            final StringBuilder requests = new StringBuilder();
                            for (int r = 0; r < depth; r++)
                            {
                                requests.append(RawHttp.get("/" + r));
                            }
                            start.await(10, TimeUnit.SECONDS);
                            client.send(requests.toString());
                            return client.statuses(depth);
                        }
                    }));
                }
                final List<Integer> expected = new ArrayList<>(Collections.nCopies(burst, 200));
                expected.addAll(Collections.nCopies(depth - burst, 429));
                for (int i = 0; i < clients; i++)
                {
                    assertEquals(expected, results.get(i).get(30, TimeUnit.SECONDS), "client 127.0.13." + (1 + i));
                }
                assertEquals(clients * burst, gateway.backendRequests.get());
            }
            finally
            {
                pool.shutdownNow();
            }
        }
    }
}
