package dev.cellrate.rls;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnknownFieldSet;
import dev.cellrate.redis.RedisServer;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static dev.cellrate.rls.Rls.d;
import static dev.cellrate.rls.Rls.withHits;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Envoy's {@code is_negative_hits} (field 4 of {@code RateLimitDescriptor}, sent by the client as protobuf sends
 * any field: the generated classes in use lack it, so it travels as an unknown field): the descriptor's hits are
 * given back, never beyond a full bucket (GCRA, embedded and Redis) and never below a count of 0 (fixed window).
 */
class RefundTest
{
    private static final String CONFIG =
        "domain: d\ndescriptors:\n  - key: k\n    rate_limit:\n      unit: hour\n      requests_per_unit: 5\n";

    /** The descriptor with {@code is_negative_hits: true} on the wire. */
    static RateLimitDescriptor negative(final RateLimitDescriptor d)
    {
        return d.toBuilder().setUnknownFields(UnknownFieldSet.newBuilder()
            .addField(RlsService.IS_NEGATIVE_HITS_FIELD, UnknownFieldSet.Field.newBuilder().addVarint(1).build())
            .build()).build();
    }

    private static void refundsGiveBackNeverBeyondAFullBucket(final Rls rls)
    {
        assertEquals(5, rls.admitted(7, "d", d("k", "a")));
        final RateLimitResponse refunded = rls.call("d", negative(withHits(d("k", "a"), 2)));
        assertEquals(Code.OK, refunded.getOverallCode());
        assertEquals(2, refunded.getStatuses(0).getLimitRemaining(), "2 given back");
        assertEquals(2, rls.admitted(4, "d", d("k", "a")));

        assertEquals(Code.OK, rls.call("d", negative(withHits(d("k", "b"), 100))).getOverallCode());
        assertEquals(5, rls.admitted(8, "d", d("k", "b")), "a refund to a full bucket makes no credit");
        assertEquals(Code.OK, rls.call("d", negative(withHits(d("k", "b"), 100))).getOverallCode());
        assertEquals(5, rls.admitted(8, "d", d("k", "b")), "a refund of more than was taken fills the bucket, no more");

        // a refund beside a charge: the refund never refuses, the charge is decided as usual
        final RateLimitResponse both = rls.call("d", negative(withHits(d("k", "c"), 1)), d("k", "a"));
        assertEquals(Code.OVER_LIMIT, both.getOverallCode());
        assertEquals(Code.OK, both.getStatuses(0).getCode());
    }

    @Test
    void embeddedGcraRefunds() throws Exception
    {
        try (Rls rls = Rls.start(RlsServer.Mode.GCRA, CONFIG))
        {
            refundsGiveBackNeverBeyondAFullBucket(rls);
        }
    }

    private static java.net.http.HttpResponse<String> postJson(final Rls rls, final String json) throws Exception
    {
        return java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
            java.net.URI.create("http://127.0.0.1:" + rls.server.httpPort() + "/json"))
            .POST(java.net.http.HttpRequest.BodyPublishers.ofString(json)).build(),
            java.net.http.HttpResponse.BodyHandlers.ofString());
    }

    /**
     * {@code /json} reads {@code is_negative_hits} as the reference service's JSON reader does: under its proto name
     * or its JSON name, a bool; any other value of it, or another unknown field, is a 400.
     */
    @Test
    void jsonCarriesIsNegativeHits() throws Exception
    {
        try (Rls rls = Rls.start(RlsServer.Mode.GCRA, CONFIG))
        {
            assertEquals(5, rls.admitted(7, "d", d("k", "j")));
            final String refund = "{\"domain\":\"d\",\"descriptors\":[{\"entries\":[{\"key\":\"k\",\"value\":\"j\"}]," +
                "\"hits_addend\":2,\"%s\":true}]}";
            final java.net.http.HttpResponse<String> snake = postJson(rls, String.format(refund, "is_negative_hits"));
            assertEquals(200, snake.statusCode(), snake.body());
            assertTrue(snake.body().contains("\"limitRemaining\": 2"), snake.body());
            final java.net.http.HttpResponse<String> camel = postJson(rls, String.format(refund, "isNegativeHits"));
            assertEquals(200, camel.statusCode(), camel.body());
            assertTrue(camel.body().contains("\"limitRemaining\": 4"), camel.body());
            assertEquals(4, rls.admitted(6, "d", d("k", "j")), "4 given back over /json");

            final String no = "{\"domain\":\"d\",\"descriptors\":[{\"entries\":[{\"key\":\"k\",\"value\":\"n\"}]," +
                "\"isNegativeHits\":false}]}";
            assertEquals(200, postJson(rls, no).statusCode(), "false is a charge");
            assertEquals(4, rls.admitted(6, "d", d("k", "n")), "the false one was charged");
            assertEquals(400, postJson(rls, String.format(refund, "is_negative_hits").replace("true", "\"yes\""))
                .statusCode(), "not a bool");
            assertEquals(400, postJson(rls, String.format(refund, "is_negative_hits").replace("true", "1"))
                .statusCode(), "not a bool");
            assertEquals(400, postJson(rls, String.format(refund, "is_negative_hitz")).statusCode(), "unknown field");
        }
    }

    @Test
    void redisRefunds() throws Exception
    {
        try (RedisServer redis = RedisServer.start())
        {
            final Path directory = Files.createTempDirectory("rls-config");
            Files.writeString(directory.resolve("c.yaml"), CONFIG, StandardCharsets.UTF_8);
            final RlsServer.Options options = Rls.options(directory);
            options.redisUri = redis.url();
            options.redisTimeoutMs = 5_000;
            try (Rls rls = new Rls(options, null))
            {
                refundsGiveBackNeverBeyondAFullBucket(rls);
            }
        }
    }

    @Test
    void fixedWindowRefundsLowerTheCountNeverBelowZero() throws Exception
    {
        try (Rls rls = Rls.start(RlsServer.Mode.FIXED_WINDOW, CONFIG))
        {
            assertEquals(5, rls.admitted(5, "d", d("k", "a")));
            final RateLimitResponse refunded = rls.call("d", negative(withHits(d("k", "a"), 3)));
            assertEquals(Code.OK, refunded.getOverallCode());
            assertEquals(3, refunded.getStatuses(0).getLimitRemaining());
            assertEquals(3, rls.admitted(5, "d", d("k", "a")));
            assertEquals(5, rls.call("d", negative(withHits(d("k", "a"), 100))).getStatuses(0).getLimitRemaining(),
                "the count stops at 0");
            assertEquals(5, rls.admitted(8, "d", d("k", "a")));
            rls.advanceMs(3_600_000);
            assertEquals(Code.OK, rls.call("d", negative(withHits(d("k", "a"), 5))).getOverallCode());
            assertEquals(5, rls.admitted(8, "d", d("k", "a")), "the past window's count is gone, no credit into the new one");
        }
    }

    @Test
    void aFieldFourThatIsNotAVarintIsNotARefund() throws Exception
    {
        try (Rls rls = Rls.start(RlsServer.Mode.GCRA, CONFIG))
        {
            final RateLimitDescriptor odd = d("k", "odd").toBuilder().setUnknownFields(UnknownFieldSet.newBuilder()
                .addField(RlsService.IS_NEGATIVE_HITS_FIELD, UnknownFieldSet.Field.newBuilder()
                    .addLengthDelimited(ByteString.copyFromUtf8("yes")).build()).build()).build();
            assertEquals(5, rls.admitted(7, "d", odd), "charged as usual");
            final RateLimitDescriptor zero = d("k", "zero").toBuilder().setUnknownFields(UnknownFieldSet.newBuilder()
                .addField(RlsService.IS_NEGATIVE_HITS_FIELD, UnknownFieldSet.Field.newBuilder().addVarint(0).build())
                .build()).build();
            assertEquals(5, rls.admitted(7, "d", zero), "false is a charge");
        }
    }

    @Test
    void refundsUnderTrafficNeverAdmitMoreThanTheBurstPlusWhatWasGivenBack() throws Exception
    {
        final String config =
            "domain: d\ndescriptors:\n  - key: k\n    rate_limit:\n      unit: hour\n      requests_per_unit: 20\n";
        for (final RlsServer.Mode mode : RlsServer.Mode.values())
        {
            try (Rls rls = Rls.start(mode, config))
            {
                final java.util.concurrent.atomic.AtomicInteger admitted = new java.util.concurrent.atomic.AtomicInteger();
                final java.util.List<Thread> threads = new java.util.ArrayList<>();
                for (int t = 0; t < 2; t++)
                {
                    threads.add(new Thread(() ->
                    {
                        for (int i = 0; i < 150; i++)
                        {
                            if (Code.OK == rls.call("d", d("k", "hot")).getOverallCode())
                            {
                                admitted.incrementAndGet();
                            }
                        }
                    }));
                }
                threads.add(new Thread(() ->
                {
                    for (int i = 0; i < 10; i++)
                    {
                        assertEquals(Code.OK, rls.call("d", negative(d("k", "hot"))).getOverallCode());
                    }
                }));
                threads.forEach(Thread::start);
                for (final Thread t : threads)
                {
                    t.join();
                }
                // a still clock: 20 at first, and at most one more per hit given back (none while the bucket is full)
                assertTrue(admitted.get() >= 20 && admitted.get() <= 30, mode + ": " + admitted.get() + " admitted");
                final int after = rls.admitted(5, "d", d("k", "hot"));
                assertTrue(admitted.get() + after <= 30, mode + ": no credit kept beyond what was given back");
            }
        }
    }
}
