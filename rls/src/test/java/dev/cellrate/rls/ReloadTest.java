package dev.cellrate.rls;

import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import static dev.cellrate.rls.Rls.d;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Reloads from the watched directory: state of unchanged limits kept, a bad file keeps the last good
 * configuration, and no request lost or mis-decided while reloads happen under traffic.
 */
class ReloadTest
{
    private static String config(final int bRequests)
    {
        return "domain: d\n" +
            "descriptors:\n" +
            "  - key: a\n    rate_limit:\n      unit: second\n      requests_per_unit: 1000\n" +
            "  - key: b\n    rate_limit:\n      unit: second\n      requests_per_unit: " + bRequests + "\n";
    }

    private static void await(final BooleanSupplier condition, final String what) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(10);
        }
    }

    @Test
    void aChangedFileIsLoadedAndUnchangedLimitsKeepTheirState() throws Exception
    {
        try (Rls rls = Rls.start(RlsServer.Mode.GCRA, config(10)))
        {
            assertEquals(10, rls.admitted(10, "d", d("a", "1")));
            assertEquals(10, rls.admitted(12, "d", d("b", "1")));
            final io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor overridden =
                d("o", "1").toBuilder().setLimit(io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor
                    .RateLimitOverride.newBuilder().setRequestsPerUnit(4)
                    .setUnit(io.envoyproxy.envoy.type.v3.RateLimitUnit.HOUR)).build();
            assertEquals(3, rls.admitted(3, "d", overridden));
            rls.write("config0.yaml", config(20) +
                "  - key: c\n    rate_limit:\n      unit: minute\n      requests_per_unit: 2\n");
            await(() -> rls.server.service().config().rules().size() == 3, "the reload");
            assertEquals(990, rls.admitted(1000, "d", d("a", "1")), "a unchanged: its 10 spent permits stay spent");
            assertEquals(20, rls.admitted(25, "d", d("b", "1")), "b changed: its new limit");
            assertEquals(2, rls.admitted(3, "d", d("c", "1")), "c added");
            assertEquals(1, rls.admitted(3, "d", overridden), "a request's override keeps its state too");
        }
    }

    @Test
    void aBadFileKeepsTheLastGoodConfigurationAndNamesFileLineAndField() throws Exception
    {
        try (Rls rls = Rls.start(RlsServer.Mode.GCRA, config(10)))
        {
            assertEquals(3, rls.admitted(3, "d", d("b", "1")));
            final String good = config(10);
            final int b = good.indexOf("key: b");
            rls.write("config0.yaml", good.substring(0, b) + good.substring(b).replace("second", "fortnight"));
            await(() -> rls.server.watcher().errors() == 1, "the refused reload");
            final String error = rls.server.watcher().lastError();
            assertTrue(error.contains("config0.yaml:9: descriptors[1].rate_limit.unit: 'fortnight'"), error);
            assertEquals(7, rls.admitted(10, "d", d("b", "1")), "the last good limits and their state stay");
            rls.write("config0.yaml", config(10));
            await(() -> rls.server.watcher().loads() == 1, "the good reload");
            assertNull(rls.server.watcher().lastError());
        }
    }

    @Test
    void reloadsUnderTrafficLoseNoRequestAndGiveNoFreshBurst() throws Exception
    {
        try (Rls rls = Rls.start(RlsServer.Mode.GCRA, config(10)))
        {
            final AtomicBoolean stop = new AtomicBoolean();
            final AtomicInteger admitted = new AtomicInteger();
            final AtomicInteger answered = new AtomicInteger();
            final AtomicReference<Throwable> failure = new AtomicReference<>();
            final List<Thread> clients = new ArrayList<>();
            for (int t = 0; t < 2; t++)
            {
                final Thread client = new Thread(() ->
                {
                    final RateLimitServiceGrpc.RateLimitServiceBlockingStub stub =
                        RateLimitServiceGrpc.newBlockingStub(rls.channel);
                    try
                    {
                        while (!stop.get())
                        {
                            final RateLimitResponse r = stub.shouldRateLimit(Rls.request("d", 0, d("a", "hot")));
                            answered.incrementAndGet();
                            if (Code.OK == r.getOverallCode())
                            {
                                admitted.incrementAndGet();
                            }
                        }
                    }
                    catch (final Throwable ex)
                    {
                        failure.compareAndSet(null, ex);
                    }
                });
                client.start();
                clients.add(client);
            }
            for (int i = 0; i < 10; i++)
            {
                rls.write("config0.yaml", config(11 + i));
                final int loads = i + 1;
                await(() -> rls.server.watcher().loads() == loads, "reload " + loads);
            }
            await(() -> answered.get() > 1500, "traffic past the burst");
            stop.set(true);
            for (final Thread client : clients)
            {
                client.join(10_000);
            }
            assertNull(failure.get(), () -> "a request failed during reloads: " + failure.get());
            assertEquals(1000, admitted.get(), "the clock stands still: exactly one burst over every reload");
        }
    }
}
