package dev.cellrate.rls;

import dev.cellrate.rls.config.ConfigLoader;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.grpc.stub.StreamObserver;

import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The service's own request path without the gRPC transport: what the gRPC call runs ({@code RlsService.answer}:
 * the match, the decision, the statistics and the answer's wire bytes, drained as gRPC drains them) on prebuilt
 * requests (one descriptor of 1,000), on one thread. Prints the bytes allocated per request (the JVM's per-thread
 * allocation counter: exact, whatever the machine's load) and the mean ns per request (a rough figure on a shared
 * machine). {@code java -cp ... dev.cellrate.rls.RequestPathProbe [requests]}.
 */
public final class RequestPathProbe
{
    private RequestPathProbe()
    {
    }

    /** Drains each answer into one buffer, as gRPC's framer drains it into its own. */
    private static final class Call implements StreamObserver<Object>
    {
        final ResponseMarshaller marshaller = new ResponseMarshaller();
        final byte[] drained = new byte[4096];
        long ok;

        public void onNext(final Object answer)
        {
            try (InputStream in = marshaller.stream(answer))
            {
                final int n = in.read(drained, 0, drained.length);
                ok += n >= 2 && RateLimitResponse.Code.OK_VALUE == drained[1] ? 1 : 0;
            }
            catch (final IOException ex)
            {
                throw new IllegalStateException(ex);
            }
        }

        public void onError(final Throwable t)
        {
            throw new IllegalStateException(t);
        }

        public void onCompleted()
        {
        }
    }

    public static void main(final String[] args) throws Exception
    {
        final int measured = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        final Path directory = Files.createTempDirectory("rls-probe");
        Files.writeString(directory.resolve("bench.yaml"), "domain: bench\ndescriptors:\n  - key: k\n" +
            "    rate_limit:\n      unit: second\n      requests_per_unit: 100000000\n", StandardCharsets.UTF_8);
        final RlsService rls = new RlsService(new GcraDecider(65_536, null), ConfigLoader.load(directory), false,
            RlsService.Headers.NONE);
        final RateLimitRequest[] requests = new RateLimitRequest[1000];
        for (int i = 0; i < requests.length; i++)
        {
            requests[i] = RateLimitRequest.newBuilder().setDomain("bench").addDescriptors(RateLimitDescriptor
                .newBuilder().addEntries(RateLimitDescriptor.Entry.newBuilder().setKey("k").setValue("v" + i)))
                .build();
        }
        final Call call = new Call();
        for (int i = 0; i < 300_000; i++)
        {
            rls.answer(requests[i % requests.length], call);
        }
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final long thread = Thread.currentThread().getId();
        final long bytesBefore = threads.getThreadAllocatedBytes(thread);
        final long startNs = System.nanoTime();
        for (int i = 0; i < measured; i++)
        {
            rls.answer(requests[i % requests.length], call);
        }
        final long elapsedNs = System.nanoTime() - startNs;
        final long bytes = threads.getThreadAllocatedBytes(thread) - bytesBefore;
        System.out.printf("requests %d  bytes/request %.1f  ns/request %.0f  (ok %d)%n", measured,
            (double)bytes / measured, (double)elapsedNs / measured, call.ok);
    }
}
