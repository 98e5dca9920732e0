package dev.cellrate.rls;

import dev.cellrate.rls.config.ConfigLoader;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.grpc.stub.StreamObserver;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;

import static dev.cellrate.rls.Rls.d;
import static dev.cellrate.rls.Rls.withHits;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The gRPC call's request path (match, decision, statistics, the answer's wire bytes) allocates nothing once warm,
 * embedded, for one descriptor and for several: equal hits (the keyed composite) and different hits (peeks, then
 * charges). Counted by the JVM's per-thread allocation counter, not timed.
 */
class RequestPathAllocationTest
{
    private static final String CONFIG =
        "domain: d\ndescriptors:\n" +
        "  - key: a\n    rate_limit: {unit: second, requests_per_unit: 100000000}\n" +
        "  - key: b\n    rate_limit: {unit: second, requests_per_unit: 100000000}\n" +
        "  - key: c\n    rate_limit: {unit: second, requests_per_unit: 100000000}\n";

    /** Drains each answer as gRPC's framer does; counts OK answers. */
    private static final class Call implements StreamObserver<Object>
    {
        final ResponseMarshaller marshaller = new ResponseMarshaller();
        final byte[] drained = new byte[4096];
        long answers;
        long errors;

        public void onNext(final Object answer)
        {
            try (InputStream in = marshaller.stream(answer))
            {
                in.read(drained, 0, drained.length);
                answers++;
            }
            catch (final IOException ex)
            {
                throw new IllegalStateException(ex);
            }
        }

        public void onError(final Throwable t)
        {
            errors++;
        }

        public void onCompleted()
        {
        }
    }

    private static long bytesPerRequest(final RlsService rls, final RateLimitRequest[] requests)
    {
        final Call call = new Call();
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final long thread = Thread.currentThread().getId();
        long bytes = 0;
        final int n = 20_000;
        for (int pass = 0; pass < 3; pass++) // the first passes warm up
        {
            final long before = threads.getThreadAllocatedBytes(thread);
            for (int i = 0; i < n; i++)
            {
                rls.answer(requests[i % requests.length], call);
            }
            bytes = threads.getThreadAllocatedBytes(thread) - before;
        }
        assertEquals(0, call.errors);
        assertEquals(3L * n, call.answers);
        return bytes / n;
    }

    private static RateLimitRequest[] requests(final int count, final boolean differentHits)
    {
        final RateLimitRequest[] requests = new RateLimitRequest[100];
        for (int r = 0; r < requests.length; r++)
        {
            final RateLimitRequest.Builder request = RateLimitRequest.newBuilder().setDomain("d");
            for (int i = 0; i < count; i++)
            {
                final RateLimitDescriptor descriptor = d(String.valueOf((char)('a' + i)), "v" + r);
                request.addDescriptors(differentHits ? withHits(descriptor, 1 + i) : descriptor);
            }
            requests[r] = request.build();
            for (final RateLimitDescriptor descriptor : requests[r].getDescriptorsList())
            {
                descriptor.getEntries(0).getValue().hashCode(); // a parsed request's strings are made once
            }
        }
        return requests;
    }

    @Test
    void oneAndSeveralDescriptorsAllocateNothing() throws Exception
    {
        final RlsService rls = new RlsService(new GcraDecider(4096, null), ConfigLoader.loadTexts("c.yaml", CONFIG),
            false, RlsService.Headers.NONE);
        final long one = bytesPerRequest(rls, requests(1, false));
        final long equalHits = bytesPerRequest(rls, requests(3, false));
        final long differentHits = bytesPerRequest(rls, requests(3, true));
        assertTrue(one == 0 && equalHits == 0 && differentHits == 0,
            "bytes per request: one " + one + ", three of equal hits " + equalHits + ", three of different hits " +
                differentHits);
    }
}
