package dev.cellrate.rls;

import com.google.protobuf.UInt64Value;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.envoyproxy.envoy.type.v3.RateLimitUnit;
import io.grpc.CallOptions;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.stub.ClientCalls;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import static dev.cellrate.rls.Rls.d;
import static dev.cellrate.rls.Rls.withHits;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Protocol behaviour over gRPC on loopback (clock held still): hits, all-or-nothing, overrides, bad input,
 * health, and the HTTP side.
 */
class ServiceTest
{
    static Rls rls;

    static final String CONFIG =
        "domain: d\n" +
        "descriptors:\n" +
        "  - key: a\n    rate_limit:\n      unit: second\n      requests_per_unit: 5\n" +
        "  - key: b\n    rate_limit:\n      unit: second\n      requests_per_unit: 2\n" +
        "  - key: c\n    rate_limit:\n      name: c_limit\n      unit: minute\n      requests_per_unit: 60\n" +
        "      burst: 10\n" +
        "  - key: w\n    rate_limit:\n      unit: minute\n      units: 10\n      requests_per_unit: 600\n" +
        "      burst: 3\n" +
        "  - key: blocked\n    rate_limit:\n      unit: second\n      requests_per_unit: 0\n";

    @BeforeAll
    static void start() throws Exception
    {
        rls = Rls.start(RlsServer.Mode.GCRA, CONFIG);
    }

    @AfterAll
    static void stop() throws Exception
    {
        rls.close();
    }

    private static RateLimitResponse call(final int hits, final RateLimitDescriptor... descriptors)
    {
        return rls.stub.shouldRateLimit(Rls.request("d", hits, descriptors));
    }

    @Test
    void aRefusedRequestTakesNothingFromItsOtherDescriptors()
    {
        assertEquals(Code.OK, call(0, d("a", "1"), d("b", "1")).getOverallCode());
        assertEquals(Code.OK, call(0, d("a", "1"), d("b", "1")).getOverallCode());
        final RateLimitResponse refused = call(0, d("a", "1"), d("b", "1"));
        assertEquals(Code.OVER_LIMIT, refused.getOverallCode());
        assertEquals(Code.OK, refused.getStatuses(0).getCode(), "a would have admitted");
        assertEquals(Code.OVER_LIMIT, refused.getStatuses(1).getCode());
        assertEquals(3, refused.getStatuses(0).getLimitRemaining(), "a was not charged");
        assertEquals(3, rls.admitted(5, "d", d("a", "1")), "a holds 5 - 2 admitted requests");
    }

    @Test
    void aDescriptorThatRefusesEverythingOrAFailedCheckChargesNoOtherDescriptor()
    {
        assertEquals(Code.OVER_LIMIT, call(0, d("a", "9"), d("blocked", "x")).getOverallCode());
        assertEquals(Code.OVER_LIMIT, call(0, d("blocked", "x"), d("a", "9"), d("b", "9")).getOverallCode());
        assertEquals(2, rls.admitted(2, "d", d("b", "10")));
        assertEquals(Code.OVER_LIMIT, call(0, d("a", "9"), withHits(d("b", "10"), 0)).getOverallCode(),
            "a check of an empty bucket refuses");
        assertEquals(5, rls.admitted(6, "d", d("a", "9")), "a was charged by none of the refused requests");
        assertEquals(2, rls.admitted(2, "d", d("b", "9")));
    }

    @Test
    void differentHitsPerDescriptorAreAlsoAllOrNothing()
    {
        // b2 has 2; asking 3 of it refuses, and a2's 1 hit is not taken
        final RateLimitResponse refused = call(0, withHits(d("a", "2"), 1), withHits(d("b", "2"), 3));
        assertEquals(Code.OVER_LIMIT, refused.getOverallCode());
        assertEquals(5, rls.admitted(6, "d", d("a", "2")));
        assertEquals(Code.OK, call(0, withHits(d("a", "3"), 4), withHits(d("b", "3"), 2)).getOverallCode());
        assertEquals(1, rls.admitted(2, "d", d("a", "3")));
        assertEquals(0, rls.admitted(1, "d", d("b", "3")));
    }

    @Test
    void requestHitsAddendChargesThatManyAndZeroMeansOne()
    {
        final RateLimitResponse first = call(3, d("a", "4"));
        assertEquals(Code.OK, first.getOverallCode());
        assertEquals(2, first.getStatuses(0).getLimitRemaining());
        assertEquals(Code.OVER_LIMIT, call(3, d("a", "4")).getOverallCode());
        assertEquals(2, rls.admitted(3, "d", d("a", "4")), "hits_addend 0 is 1");
    }

    @Test
    void descriptorHitsZeroChecksWithoutCharging()
    {
        for (int i = 0; i < 20; i++)
        {
            final RateLimitResponse check = call(0, withHits(d("a", "5"), 0));
            assertEquals(Code.OK, check.getOverallCode());
            assertEquals(5, check.getStatuses(0).getLimitRemaining());
        }
        assertEquals(5, rls.admitted(6, "d", d("a", "5")));
        assertEquals(Code.OVER_LIMIT, call(0, withHits(d("a", "5"), 0)).getOverallCode(), "an empty bucket");
    }

    @Test
    void aHugeHitsAddendIsRefusedAndChargesNothing()
    {
        assertEquals(Code.OVER_LIMIT, call(0, withHits(d("a", "6"), -1L)).getOverallCode(), "uint64 max");
        assertEquals(Code.OVER_LIMIT, call(0, withHits(d("a", "6"), Long.MAX_VALUE)).getOverallCode());
        assertEquals(Code.OVER_LIMIT, call(-1, d("a", "6")).getOverallCode(), "request uint32 max");
        assertEquals(5, rls.admitted(6, "d", d("a", "6")));
    }

    @Test
    void burstAndUnitsExtensions()
    {
        final RateLimitResponse r = call(0, d("c", "1"));
        assertEquals("c_limit", r.getStatuses(0).getCurrentLimit().getName());
        assertEquals(9, r.getStatuses(0).getLimitRemaining());
        assertEquals(9, rls.admitted(20, "d", d("c", "1")), "burst 10 of 60 per minute");
        rls.advanceMs(1_000);
        assertEquals(1, rls.admitted(5, "d", d("c", "1")), "one per second");
        assertEquals(3, rls.admitted(5, "d", d("w", "1")), "burst 3");
        rls.advanceMs(1_000);
        assertEquals(1, rls.admitted(5, "d", d("w", "1")), "600 per 10 minutes: one per second");
    }

    @Test
    void aLimitOverrideInTheRequestReplacesTheConfiguration()
    {
        final RateLimitDescriptor overridden = d("a", "7").toBuilder().setLimit(
            RateLimitDescriptor.RateLimitOverride.newBuilder().setRequestsPerUnit(2).setUnit(RateLimitUnit.HOUR))
            .build();
        final RateLimitResponse r = call(0, overridden);
        assertEquals(2, r.getStatuses(0).getCurrentLimit().getRequestsPerUnit());
        assertEquals(RateLimitResponse.RateLimit.Unit.HOUR, r.getStatuses(0).getCurrentLimit().getUnit());
        assertEquals(1, rls.admitted(3, "d", overridden));
        assertEquals(2, rls.server.service().stats().get("d.a_7").withinLimit.sum(), "stats under the descriptor");
        final RateLimitDescriptor unknownUnit = d("a", "8").toBuilder().setLimit(
            RateLimitDescriptor.RateLimitOverride.newBuilder().setRequestsPerUnit(2)).build();
        final StatusRuntimeException ex = assertThrows(StatusRuntimeException.class, () -> call(0, unknownUnit));
        assertEquals(Status.Code.INVALID_ARGUMENT, ex.getStatus().getCode());
    }

    @Test
    void overridesPastTheCapAreRefused()
    {
        for (int i = 0; i < 70; i++)
        {
            final RateLimitDescriptor overridden = d("cap", "1").toBuilder().setLimit(
                RateLimitDescriptor.RateLimitOverride.newBuilder().setRequestsPerUnit(1000 + i)
                    .setUnit(RateLimitUnit.DAY)).build();
            final Code code = call(0, overridden).getOverallCode();
            if (i < 60)
            {
                assertEquals(Code.OK, code, "override " + i);
            }
            else if (i == 69)
            {
                assertEquals(Code.OVER_LIMIT, code, "the cap of " + RlsService.MAX_OVERRIDES + " is passed");
            }
        }
    }

    @Test
    void badRequestsGetInvalidArgumentAndTheChannelKeepsWorking()
    {
        assertInvalid(RateLimitRequest.newBuilder().addDescriptors(d("a", "1")).build(), "domain");
        assertInvalid(RateLimitRequest.newBuilder().setDomain("d").build(), "descriptors");
        final RateLimitRequest.Builder many = RateLimitRequest.newBuilder().setDomain("d");
        for (int i = 0; i < 10_000; i++)
        {
            many.addDescriptors(d("a", Integer.toString(i)));
        }
        assertInvalid(many.build(), "held 10000");
        final RateLimitDescriptor.Builder deep = RateLimitDescriptor.newBuilder();
        for (int i = 0; i < 100; i++)
        {
            deep.addEntries(RateLimitDescriptor.Entry.newBuilder().setKey("k").setValue("v"));
        }
        assertInvalid(RateLimitRequest.newBuilder().setDomain("d").addDescriptors(deep).build(), "entries");
        assertEquals(Code.OK, call(0, d("zz", "1")).getOverallCode());
    }

    private static void assertInvalid(final RateLimitRequest request, final String mentions)
    {
        final StatusRuntimeException ex = assertThrows(StatusRuntimeException.class,
            () -> rls.stub.shouldRateLimit(request));
        assertEquals(Status.Code.INVALID_ARGUMENT, ex.getStatus().getCode());
        assertTrue(ex.getStatus().getDescription().contains(mentions), ex.getStatus().getDescription());
    }

    @Test
    void malformedUtf8IsRefusedWithAStatusAndTheChannelKeepsWorking()
    {
        final MethodDescriptor<byte[], byte[]> raw = MethodDescriptor.<byte[], byte[]>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY)
            .setFullMethodName(RateLimitServiceGrpc.getShouldRateLimitMethod().getFullMethodName())
            .setRequestMarshaller(new Bytes())
            .setResponseMarshaller(new Bytes())
            .build();
        // field 1 (domain), length 2, bytes C3 28: not UTF-8
        final byte[] bad = {0x0A, 0x02, (byte)0xC3, 0x28};
        final StatusRuntimeException ex = assertThrows(StatusRuntimeException.class,
            () -> ClientCalls.blockingUnaryCall(rls.channel, raw, CallOptions.DEFAULT, bad));
        assertEquals(Status.Code.INVALID_ARGUMENT, ex.getStatus().getCode(), ex.getStatus().toString());
        assertTrue(String.valueOf(ex.getStatus().getDescription()).contains("invalid UTF-8"),
            ex.getStatus().toString());
        assertEquals(Code.OK, call(0, d("zz", "2")).getOverallCode());
    }

    private static final class Bytes implements MethodDescriptor.Marshaller<byte[]>
    {
        public InputStream stream(final byte[] value)
        {
            return new ByteArrayInputStream(value);
        }

        public byte[] parse(final InputStream stream)
        {
            try
            {
                return stream.readAllBytes();
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException(ex);
            }
        }
    }

    @Test
    void healthCheckingAnswersServing()
    {
        final HealthGrpc.HealthBlockingStub health = HealthGrpc.newBlockingStub(rls.channel);
        assertEquals(HealthCheckResponse.ServingStatus.SERVING,
            health.check(HealthCheckRequest.newBuilder().build()).getStatus());
        assertEquals(HealthCheckResponse.ServingStatus.SERVING, health.check(HealthCheckRequest.newBuilder()
            .setService("envoy.service.ratelimit.v3.RateLimitService").build()).getStatus());
    }

    @Test
    void httpSideHealthJsonConfigAndMetrics() throws Exception
    {
        final HttpClient http = HttpClient.newHttpClient();
        final String base = "http://127.0.0.1:" + rls.server.httpPort();
        assertEquals(200, http.send(HttpRequest.newBuilder(URI.create(base + "/healthcheck")).build(),
            HttpResponse.BodyHandlers.ofString()).statusCode());
        final String json = "{\"domain\":\"d\",\"descriptors\":[{\"entries\":[{\"key\":\"b\",\"value\":\"json\"}]}]}";
        final HttpRequest post = HttpRequest.newBuilder(URI.create(base + "/json"))
            .POST(HttpRequest.BodyPublishers.ofString(json)).build();
        final HttpResponse<String> ok = http.send(post, HttpResponse.BodyHandlers.ofString());
        assertEquals(200, ok.statusCode());
        assertTrue(ok.body().contains("\"overallCode\": \"OK\""), ok.body());
        assertEquals(200, http.send(post, HttpResponse.BodyHandlers.ofString()).statusCode());
        final HttpResponse<String> over = http.send(post, HttpResponse.BodyHandlers.ofString());
        assertEquals(429, over.statusCode());
        assertTrue(over.body().contains("OVER_LIMIT"), over.body());
        assertEquals(400, http.send(HttpRequest.newBuilder(URI.create(base + "/json"))
            .POST(HttpRequest.BodyPublishers.ofString("{\"nope\":1}")).build(),
            HttpResponse.BodyHandlers.ofString()).statusCode());
        final String config = http.send(HttpRequest.newBuilder(URI.create(base + "/rlconfig")).build(),
            HttpResponse.BodyHandlers.ofString()).body();
        assertTrue(config.contains("d.c 60/MINUTE burst 10 name c_limit"), config);
        final String metrics = http.send(HttpRequest.newBuilder(URI.create(base + "/metrics")).build(),
            HttpResponse.BodyHandlers.ofString()).body();
        assertTrue(metrics.contains("ratelimit_service_rate_limit_total_hits{domain=\"d\",key=\"d.b\"}"), metrics);
        assertTrue(metrics.contains("ratelimit_service_rate_limit_over_limit{domain=\"d\",key=\"d.b\"}"), metrics);
        assertTrue(metrics.contains("cellrate_rls_decisions{domain=\"d\",key=\"d.b\",outcome=\"rejected\"}"), metrics);
        assertTrue(metrics.contains("\ncellrate_rls_table_full_events 0\n"), metrics);
        assertTrue(metrics.contains("\ncellrate_rls_live_descriptors "), metrics);
    }
}
