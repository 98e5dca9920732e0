package dev.cellrate.rls;

import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.cellrate.rls.Rls.d;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two client threads, each on its own channel, on one descriptor: admissions within the exact GCRA bound.
 */
class ConcurrencyTest
{
    private static final String CONFIG =
        "domain: d\ndescriptors:\n  - key: k\n    rate_limit:\n      unit: second\n      requests_per_unit: 200\n" +
        "      burst: 20\n";

    private static int hammer(final int port, final int callsPerThread) throws InterruptedException
    {
        final AtomicInteger admitted = new AtomicInteger();
        final Thread[] threads = new Thread[2];
        for (int t = 0; t < threads.length; t++)
        {
            threads[t] = new Thread(() ->
            {
                final ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
                try
                {
                    final RateLimitServiceGrpc.RateLimitServiceBlockingStub stub =
                        RateLimitServiceGrpc.newBlockingStub(channel);
                    for (int i = 0; i < callsPerThread; i++)
                    {
                        if (RateLimitResponse.Code.OK ==
                            stub.shouldRateLimit(Rls.request("d", 0, d("k", "one"))).getOverallCode())
                        {
                            admitted.incrementAndGet();
                        }
                    }
                }
                finally
                {
                    channel.shutdownNow();
                }
            });
            threads[t].start();
        }
        for (final Thread t : threads)
        {
            t.join();
        }
        return admitted.get();
    }

    @Test
    void twoThreadsOnAStillClockGetExactlyTheBurst() throws Exception
    {
        try (Rls rls = Rls.start(RlsServer.Mode.GCRA, CONFIG))
        {
            assertEquals(20, hammer(rls.server.grpcPort(), 200));
        }
    }

    @Test
    void twoThreadsOnTheRealClockStayWithinBurstPlusElapsedOverT() throws Exception
    {
        final Path directory = Files.createTempDirectory("rls-config");
        Files.writeString(directory.resolve("c.yaml"), CONFIG, StandardCharsets.UTF_8);
        final RlsServer server = RlsServer.start(Rls.options(directory));
        try
        {
            final long startNs = System.nanoTime();
            final int admitted = hammer(server.grpcPort(), 500);
            final long elapsedNs = System.nanoTime() - startNs;
            final long emissionIntervalNs = TimeUnit.SECONDS.toNanos(1) / 200;
            final long bound = 20 + elapsedNs / emissionIntervalNs + 1;
            assertTrue(admitted <= bound, admitted + " admitted > bound " + bound);
            assertTrue(admitted >= 20, "at least the burst: " + admitted);
        }
        finally
        {
            server.close();
        }
    }

    @Test
    void differentHitsPerDescriptorUnderRacesTakeNothingFromARefusedRequestsOtherDescriptors() throws Exception
    {
        final String config = "domain: d\ndescriptors:\n" +
            "  - key: a\n    rate_limit:\n      unit: hour\n      requests_per_unit: 100000\n" +
            "  - key: b\n    rate_limit:\n      unit: hour\n      requests_per_unit: 60\n";
        try (Rls rls = Rls.start(RlsServer.Mode.GCRA, config))
        {
            final AtomicInteger combos = new AtomicInteger();
            final Thread[] threads = new Thread[4];
            for (int t = 0; t < threads.length; t++)
            {
                final boolean combo = t % 2 == 0;
                threads[t] = new Thread(() ->
                {
                    final ManagedChannel channel =
                        NettyChannelBuilder.forAddress("127.0.0.1", rls.server.grpcPort()).usePlaintext().build();
                    try
                    {
                        final RateLimitServiceGrpc.RateLimitServiceBlockingStub stub =
                            RateLimitServiceGrpc.newBlockingStub(channel);
                        for (int i = 0; i < 150; i++)
                        {
                            if (combo)
                            {
                                if (RateLimitResponse.Code.OK == stub.shouldRateLimit(Rls.request("d", 0,
                                    d("a", "x"), Rls.withHits(d("b", "y"), 2))).getOverallCode())
                                {
                                    combos.incrementAndGet();
                                }
                            }
                            else
                            {
                                stub.shouldRateLimit(Rls.request("d", 0, Rls.withHits(d("b", "y"), 1)));
                            }
                        }
                    }
                    finally
                    {
                        channel.shutdownNow();
                    }
                });
                threads[t].start();
            }
            for (final Thread t : threads)
            {
                t.join();
            }
            final long remainingA = rls.call("d", Rls.withHits(d("a", "x"), 0)).getStatuses(0).getLimitRemaining();
            assertEquals(100_000 - combos.get(), remainingA,
                "a is charged by the admitted requests only (" + combos.get() + " admitted, rollbacks " +
                    rls.server.service().deciderCounters().get("cellrate_rls_rollbacks") + ")");
        }
    }
}
