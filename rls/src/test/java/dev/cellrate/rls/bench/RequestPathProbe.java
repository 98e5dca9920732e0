package dev.cellrate.rls.bench;

import dev.cellrate.rls.RlsService;
import dev.cellrate.rls.config.ConfigLoader;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The service's own request path without gRPC: {@code RlsService.decide} on prebuilt requests (one descriptor of
 * 1,000), on one thread. Prints the bytes allocated per request (the JVM's per-thread allocation counter: exact,
 * whatever the machine's load) and the mean ns per request (a rough figure on a shared machine).
 * {@code java -cp ... dev.cellrate.rls.bench.RequestPathProbe [requests]}.
 */
public final class RequestPathProbe
{
    private RequestPathProbe()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final int measured = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        final Path directory = Files.createTempDirectory("rls-probe");
        Files.writeString(directory.resolve("bench.yaml"), "domain: bench\ndescriptors:\n  - key: k\n" +
            "    rate_limit:\n      unit: second\n      requests_per_unit: 100000000\n", StandardCharsets.UTF_8);
        final Class<?> gcra = Class.forName("dev.cellrate.rls.GcraDecider");
        final java.lang.reflect.Constructor<?> make =
            gcra.getDeclaredConstructor(int.class, org.agrona.concurrent.NanoClock.class);
        make.setAccessible(true);
        final Object decider = make.newInstance(65_536, null);
        final java.lang.reflect.Constructor<?> service = RlsService.class.getConstructor(
            Class.forName("dev.cellrate.rls.Decider"), dev.cellrate.rls.config.RlsConfig.class, boolean.class,
            RlsService.Headers.class);
        final RlsService rls = (RlsService)service.newInstance(decider, ConfigLoader.load(directory), false,
            RlsService.Headers.NONE);
        final RateLimitRequest[] requests = new RateLimitRequest[1000];
        for (int i = 0; i < requests.length; i++)
        {
            requests[i] = RateLimitRequest.newBuilder().setDomain("bench").addDescriptors(RateLimitDescriptor
                .newBuilder().addEntries(RateLimitDescriptor.Entry.newBuilder().setKey("k").setValue("v" + i)))
                .build();
        }
        final AtomicLong ok = new AtomicLong();
        final java.util.function.Consumer<RateLimitResponse> onAnswer =
            r -> ok.addAndGet(r.getOverallCode() == RateLimitResponse.Code.OK ? 1 : 0);
        final java.util.function.Consumer<io.grpc.Status> onInvalid = s -> { throw new IllegalStateException(s.toString()); };
        for (int i = 0; i < 300_000; i++)
        {
            rls.decide(requests[i % requests.length], onAnswer, onInvalid);
        }
        final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final long thread = Thread.currentThread().getId();
        final long bytesBefore = threads.getThreadAllocatedBytes(thread);
        final long startNs = System.nanoTime();
        for (int i = 0; i < measured; i++)
        {
            rls.decide(requests[i % requests.length], onAnswer, onInvalid);
        }
        final long elapsedNs = System.nanoTime() - startNs;
        final long bytes = threads.getThreadAllocatedBytes(thread) - bytesBefore;
        System.out.printf("requests %d  bytes/request %.1f  ns/request %.0f  (ok %d)%n", measured,
            (double)bytes / measured, (double)elapsedNs / measured, ok.get());
    }
}
