package dev.cellrate.rls;

import io.envoyproxy.envoy.config.core.v3.HeaderValue;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static dev.cellrate.rls.Rls.d;
import static dev.cellrate.rls.Rls.withHits;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fixed-window mode against envoyproxy/ratelimit's counting, response headers, and global shadow mode.
 */
class ModesTest
{
    static final String CONFIG =
        "domain: d\n" +
        "descriptors:\n" +
        "  - key: a\n    rate_limit:\n      unit: minute\n      requests_per_unit: 3\n" +
        "  - key: b\n    rate_limit:\n      unit: minute\n      requests_per_unit: 1\n" +
        "  - key: s\n    rate_limit:\n      name: per_second\n      unit: second\n      requests_per_unit: 5\n" +
        "  - key: sh\n    shadow_mode: true\n    rate_limit:\n      unit: minute\n      requests_per_unit: 1\n";

    @Test
    void fixedWindowCountsAsTheReferenceDoes() throws Exception
    {
        try (Rls rls = Rls.start(RlsServer.Mode.FIXED_WINDOW, CONFIG))
        {
            // the clock starts at 1000 s since the epoch: the minute window [960, 1020) has 20 s left
            for (int i = 2; i >= 0; i--)
            {
                final RateLimitResponse r = rls.call("d", d("a", "1"));
                assertEquals(Code.OK, r.getOverallCode());
                assertEquals(i, r.getStatuses(0).getLimitRemaining());
                assertEquals(20, r.getStatuses(0).getDurationUntilReset().getSeconds());
            }
            assertEquals(Code.OVER_LIMIT, rls.call("d", d("a", "1")).getOverallCode());
            rls.advanceMs(19_999);
            assertEquals(Code.OVER_LIMIT, rls.call("d", d("a", "1")).getOverallCode(), "same window");
            rls.advanceMs(1);
            assertEquals(3, rls.admitted(4, "d", d("a", "1")), "a new window at 1020 s");

            // a refused request still counts: 2 used, 2 more refused, then 1 more is refused too
            assertEquals(2, rls.admitted(2, "d", d("a", "2")));
            assertEquals(Code.OVER_LIMIT, rls.call("d", withHits(d("a", "2"), 2)).getOverallCode());
            assertEquals(Code.OVER_LIMIT, rls.call("d", d("a", "2")).getOverallCode(),
                "the reference's counter is 4 > 3: refused though 1 permit was never used");

            // descriptors are charged one by one: a refusal of b does not undo a's charge
            assertEquals(Code.OK, rls.call("d", d("a", "3"), d("b", "3")).getOverallCode());
            final RateLimitResponse second = rls.call("d", d("a", "3"), d("b", "3"));
            assertEquals(Code.OVER_LIMIT, second.getOverallCode());
            assertEquals(1, second.getStatuses(0).getLimitRemaining());
            assertEquals(1, rls.admitted(2, "d", d("a", "3")));

            // a check (hits 0) counts nothing
            final RateLimitResponse check = rls.call("d", withHits(d("a", "4"), 0));
            assertEquals(Code.OK, check.getOverallCode());
            assertEquals(3, check.getStatuses(0).getLimitRemaining());
            assertEquals(3, rls.admitted(4, "d", d("a", "4")));
        }
    }

    private static Map<String, String> headers(final RateLimitResponse r)
    {
        final Map<String, String> headers = new HashMap<>();
        for (final HeaderValue h : r.getResponseHeadersToAddList())
        {
            headers.put(h.getKey(), h.getValue());
        }
        return headers;
    }

    @Test
    void ietfHeadersDescribeTheDenyingOrTightestDescriptor() throws Exception
    {
        try (Rls rls = Rls.start(RlsServer.Mode.GCRA, RlsService.Headers.IETF, false, CONFIG))
        {
            final Map<String, String> one = headers(rls.call("d", d("s", "1")));
            assertEquals("\"per_second\";q=5;w=1", one.get("RateLimit-Policy"));
            assertEquals("\"per_second\";r=4;t=1", one.get("RateLimit"));
            final Map<String, String> ok = headers(rls.call("d", d("s", "3"), d("a", "1")));
            assertEquals("\"d.a\";q=3;w=60", ok.get("RateLimit-Policy"), "2 left of a, 4 of s");
            assertEquals("\"d.a\";r=2;t=20", ok.get("RateLimit"));
            final Map<String, String> tightest = headers(rls.call("d", d("s", "2"), d("b", "2")));
            assertEquals("\"d.b\";q=1;w=60", tightest.get("RateLimit-Policy"));
            assertEquals("\"d.b\";r=0;t=60", tightest.get("RateLimit"));
            final RateLimitResponse denied = rls.call("d", d("s", "2"), d("b", "2"));
            assertEquals(Code.OVER_LIMIT, denied.getOverallCode());
            assertEquals("\"d.b\";q=1;w=60", headers(denied).get("RateLimit-Policy"));
            assertEquals(Code.OK, rls.call("d", d("sh", "3")).getOverallCode());
            assertEquals(Code.OK, rls.call("d", d("b", "3")).getOverallCode());
            final RateLimitResponse afterShadow = rls.call("d", d("sh", "3"), d("b", "3"));
            assertEquals(Code.OVER_LIMIT, afterShadow.getOverallCode());
            assertEquals("\"d.b\";q=1;w=60", headers(afterShadow).get("RateLimit-Policy"),
                "the refused descriptor, not the shadow-mode one before it");
        }
    }

    @Test
    void legacyHeaders() throws Exception
    {
        try (Rls rls = Rls.start(RlsServer.Mode.GCRA, RlsService.Headers.LEGACY, false, CONFIG))
        {
            final Map<String, String> h = headers(rls.call("d", d("s", "1")));
            assertEquals("5", h.get("X-RateLimit-Limit"));
            assertEquals("4", h.get("X-RateLimit-Remaining"));
            assertEquals("1", h.get("X-RateLimit-Reset"));
            final RateLimitResponse none = rls.call("d", d("unknown", "1"));
            assertFalse(none.getResponseHeadersToAddCount() > 0, "no limit, no headers");
        }
    }

    @Test
    void aFullTableRefusesNewDescriptorsAndCountsThem() throws Exception
    {
        final java.nio.file.Path directory = java.nio.file.Files.createTempDirectory("rls-config");
        java.nio.file.Files.writeString(directory.resolve("c.yaml"), CONFIG);
        final RlsServer.Options options = Rls.options(directory);
        options.keysPerRule = 16;
        final java.util.concurrent.atomic.AtomicLong clock = new java.util.concurrent.atomic.AtomicLong(1L << 40);
        options.clock = clock::get;
        try (Rls rls = new Rls(options, clock))
        {
            int admitted = 0;
            for (int i = 0; i < 60; i++)
            {
                admitted += Code.OK == rls.call("d", d("a", "client-" + i)).getOverallCode() ? 1 : 0;
            }
            final long full = rls.server.service().deciderCounters().get("cellrate_rls_table_full_events");
            assertEquals(60, admitted + full, "every refusal is a table-full event, every other call admitted");
            assertTrue(full > 0 && admitted >= 16, admitted + " admitted, " + full + " refused");
            assertEquals(Code.OK, rls.call("d", d("a", "client-0")).getOverallCode(), "a present descriptor decides");
        }
    }

    @Test
    void globalShadowModeAnswersOkKeepsTheStatusesAndCounts() throws Exception
    {
        try (Rls rls = Rls.start(RlsServer.Mode.GCRA, RlsService.Headers.NONE, true, CONFIG))
        {
            assertEquals(Code.OK, rls.call("d", d("b", "1")).getOverallCode());
            final RateLimitResponse over = rls.call("d", d("b", "1"));
            assertEquals(Code.OK, over.getOverallCode());
            assertEquals(Code.OVER_LIMIT, over.getStatuses(0).getCode());
            assertEquals(1, rls.server.service().globalShadowCount());
            assertEquals(1, rls.server.service().stats().get("d.b").overLimit.sum());
        }
    }
}
