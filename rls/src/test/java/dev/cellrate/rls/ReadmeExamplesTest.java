package dev.cellrate.rls;

import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static dev.cellrate.rls.Rls.d;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The configuration examples of envoyproxy/ratelimit's README, written here from their documented behaviour,
 * each in its own file of one directory, decided over gRPC on loopback with the clock held still.
 */
class ReadmeExamplesTest
{
    static Rls rls;

    @BeforeAll
    static void start() throws Exception
    {
        rls = Rls.start(RlsServer.Mode.GCRA,
            // 1: two values of one key, 500 per second each
            "domain: mongo_cps\n" +
            "descriptors:\n" +
            "  - key: database\n    value: users\n    rate_limit:\n      unit: second\n      requests_per_unit: 500\n" +
            "  - key: database\n    value: default\n    rate_limit:\n      unit: second\n      requests_per_unit: 500\n",
            // 2: nested placeholder, and a key default
            "domain: messaging\n" +
            "descriptors:\n" +
            "  - key: message_type\n    value: marketing\n    descriptors:\n" +
            "      - key: to_number\n        rate_limit:\n          unit: day\n          requests_per_unit: 5\n" +
            "  - key: to_number\n    rate_limit:\n      unit: day\n      requests_per_unit: 100\n",
            // 3: key-value before key: a blocked address
            "domain: edge_proxy_per_ip\n" +
            "descriptors:\n" +
            "  - key: remote_address\n    rate_limit:\n      unit: second\n      requests_per_unit: 10\n" +
            "  - key: remote_address\n    value: 50.0.0.5\n    rate_limit:\n      unit: second\n      requests_per_unit: 0\n",
            // 4: depth must match
            "domain: example4\n" +
            "descriptors:\n" +
            "  - key: key\n    value: value\n    rate_limit:\n      requests_per_unit: 3\n      unit: second\n",
            // 5: unlimited
            "domain: internal\n" +
            "descriptors:\n" +
            "  - key: ldap\n    rate_limit:\n      unlimited: true\n" +
            "  - key: azure\n    rate_limit:\n      unit: minute\n      requests_per_unit: 100\n",
            // 6: shadow mode
            "domain: example6\n" +
            "descriptors:\n" +
            "  - key: service\n    descriptors:\n" +
            "      - key: user\n        value: user-a\n        rate_limit:\n          requests_per_unit: 10\n" +
            "          unit: second\n        shadow_mode: true\n" +
            "      - key: user\n        value: user-b\n        rate_limit:\n          requests_per_unit: 20\n" +
            "          unit: second\n",
            // 7: replaces
            "domain: example7\n" +
            "descriptors:\n" +
            "  - key: key_1\n    value: value_1\n    descriptors:\n" +
            "      - key: user\n        value: bkthomps\n        rate_limit:\n          name: specific_limit\n" +
            "          requests_per_unit: 5\n          unit: second\n" +
            "  - key: key_2\n    value: value_2\n    descriptors:\n" +
            "      - key: user\n        value: bkthomps\n        rate_limit:\n          replaces:\n" +
            "            - name: specific_limit\n          requests_per_unit: 10\n          unit: second\n",
            // 8: detailed metric
            "domain: example8\n" +
            "descriptors:\n" +
            "  - key: key1\n    detailed_metric: true\n    rate_limit:\n      unit: minute\n      requests_per_unit: 10\n" +
            "  - key: key1\n    value: value1\n    rate_limit:\n      unit: minute\n      requests_per_unit: 20\n",
            // 9: wildcards, trailing, middle and several
            "domain: example9\n" +
            "descriptors:\n" +
            "  - key: key1\n    value: value*\n    rate_limit:\n      unit: minute\n      requests_per_unit: 20\n" +
            "  - key: path\n    value: /api/*/action\n    rate_limit:\n      unit: minute\n      requests_per_unit: 2\n" +
            "  - key: route\n    value: /api/*/resource/*/action\n    rate_limit:\n      unit: minute\n" +
            "      requests_per_unit: 3\n",
            // 10: value_to_metric
            "domain: example10\n" +
            "descriptors:\n" +
            "  - key: route\n    value_to_metric: true\n    descriptors:\n" +
            "      - key: http_method\n        value_to_metric: true\n        descriptors:\n" +
            "          - key: subject_id\n            rate_limit:\n              unit: minute\n" +
            "              requests_per_unit: 60\n",
            // 11: share_threshold
            "domain: example11\n" +
            "descriptors:\n" +
            "  - key: files\n    value: files/*\n    share_threshold: true\n    rate_limit:\n      unit: hour\n" +
            "      requests_per_unit: 10\n" +
            "  - key: files_no_share\n    value: files_no_share/*\n    share_threshold: false\n    rate_limit:\n" +
            "      unit: hour\n      requests_per_unit: 10\n");
    }

    @AfterAll
    static void stop() throws Exception
    {
        rls.close();
    }

    @Test
    void example1TheWholeSecondIsSpentAtOnceThenRefillsSmoothly()
    {
        assertEquals(500, rls.admitted(600, "mongo_cps", d("database", "users")));
        assertEquals(500, rls.admitted(501, "mongo_cps", d("database", "default")), "a separate limit per value");
        assertEquals(0, rls.admitted(1, "mongo_cps", d("database", "users")));
        rls.advanceMs(10); // 10 ms of 500/s = 5 permits
        assertEquals(5, rls.admitted(10, "mongo_cps", d("database", "users")));
        final RateLimitResponse r = rls.call("mongo_cps", d("database", "users"));
        assertEquals(Code.OVER_LIMIT, r.getOverallCode());
        assertEquals(500, r.getStatuses(0).getCurrentLimit().getRequestsPerUnit());
        assertEquals(RateLimitResponse.RateLimit.Unit.SECOND, r.getStatuses(0).getCurrentLimit().getUnit());
        assertEquals(0, r.getStatuses(0).getLimitRemaining());
        assertEquals(1, r.getStatuses(0).getDurationUntilReset().getSeconds(), "full again one second later");
        assertEquals(Code.OK, rls.call("mongo_cps", d("database", "other")).getOverallCode(), "no rule: OK");
        assertFalse(rls.call("mongo_cps", d("database", "other")).getStatuses(0).hasCurrentLimit());
    }

    @Test
    void example2NestedPlaceholderAndKeyDefaultAreSeparateLimitsAndAnyRefusalRefuses()
    {
        assertEquals(5, rls.admitted(6, "messaging", d("message_type", "marketing", "to_number", "2061111111")));
        assertEquals(5, rls.admitted(6, "messaging", d("message_type", "marketing", "to_number", "2062222222")));
        assertEquals(100, rls.admitted(101, "messaging", d("to_number", "2063333333")));
        final RateLimitResponse both = rls.call("messaging",
            d("message_type", "marketing", "to_number", "2064444444"), d("to_number", "2064444444"));
        assertEquals(Code.OK, both.getOverallCode());
        assertEquals(4, both.getStatuses(0).getLimitRemaining());
        assertEquals(99, both.getStatuses(1).getLimitRemaining());
        assertEquals(RateLimitResponse.RateLimit.Unit.DAY, both.getStatuses(0).getCurrentLimit().getUnit());
    }

    @Test
    void example3KeyValueIsTriedBeforeTheKeyDefault()
    {
        assertEquals(10, rls.admitted(12, "edge_proxy_per_ip", d("remote_address", "50.0.0.1")));
        assertEquals(0, rls.admitted(3, "edge_proxy_per_ip", d("remote_address", "50.0.0.5")));
        final RuleStats perIp = rls.server.service().stats().get("edge_proxy_per_ip.remote_address");
        assertEquals(12, perIp.totalHits.sum());
        assertEquals(10, perIp.withinLimit.sum());
        assertEquals(2, perIp.nearLimit.sum(), "the 9th and 10th of 10 are above 80%");
        assertEquals(2, perIp.overLimit.sum());
        assertEquals(3, rls.server.service().stats().get("edge_proxy_per_ip.remote_address_50.0.0.5").overLimit.sum());
    }

    @Test
    void example4ADescriptorDeeperThanTheConfigurationMatchesNothing()
    {
        final RateLimitResponse r = rls.call("example4", d("key", "value", "subkey", "subvalue"));
        assertEquals(Code.OK, r.getOverallCode());
        assertFalse(r.getStatuses(0).hasCurrentLimit());
        assertEquals(3, rls.admitted(5, "example4", d("key", "value")));
    }

    @Test
    void example5UnlimitedIsOkWithTheLargestRemaining()
    {
        final RateLimitResponse r = rls.call("internal", d("ldap", "x"));
        assertEquals(Code.OK, r.getOverallCode());
        assertEquals(0xFFFF_FFFFL, Integer.toUnsignedLong(r.getStatuses(0).getLimitRemaining()));
        assertEquals(100, rls.admitted(150, "internal", d("azure", "y")));
        assertEquals(200, rls.admitted(200, "internal", d("ldap", "x")));
    }

    @Test
    void example6ShadowModeAnswersOkAndCountsTheRefusals()
    {
        assertEquals(30, rls.admitted(30, "example6", d("service", "auth", "user", "user-a")));
        assertEquals(20, rls.admitted(30, "example6", d("service", "auth", "user", "user-b")));
        final RuleStats shadow = rls.server.service().stats().get("example6.service.user_user-a");
        assertEquals(30, shadow.totalHits.sum());
        assertEquals(20, shadow.shadowMode.sum());
        assertEquals(20, shadow.overLimit.sum());
        assertEquals(10, shadow.withinLimit.sum());
        assertEquals(20, shadow.engine.outcome(dev.cellrate.stat.StatKind.WOULD_REJECT), "the engine's dry-run count");
        assertEquals(10, shadow.engine.outcome(dev.cellrate.stat.StatKind.ADMITTED));
    }

    @Test
    void example7AReplacingRuleDropsTheReplacedOneAndLeavesItsCellUntouched()
    {
        final RateLimitResponse both = rls.call("example7",
            d("key_1", "value_1", "user", "bkthomps"), d("key_2", "value_2", "user", "bkthomps"));
        assertFalse(both.getStatuses(0).hasCurrentLimit(), "specific_limit is replaced");
        assertEquals(10, both.getStatuses(1).getCurrentLimit().getRequestsPerUnit());
        for (int i = 0; i < 9; i++)
        {
            assertEquals(Code.OK, rls.call("example7",
                d("key_1", "value_1", "user", "bkthomps"), d("key_2", "value_2", "user", "bkthomps")).getOverallCode());
        }
        assertEquals(Code.OVER_LIMIT, rls.call("example7",
            d("key_1", "value_1", "user", "bkthomps"), d("key_2", "value_2", "user", "bkthomps")).getOverallCode());
        assertEquals(5, rls.admitted(6, "example7", d("key_1", "value_1", "user", "bkthomps")),
            "the replaced limit was not charged by the requests that replaced it");
    }

    @Test
    void example8DetailedMetricCountsPerValue()
    {
        rls.call("example8", d("key1", "unspecified_value"));
        rls.call("example8", d("key1", "unspecified_value2"));
        rls.call("example8", d("key1", "value1"));
        final var stats = rls.server.service().stats();
        assertEquals(1, stats.get("example8.key1_unspecified_value").totalHits.sum());
        assertEquals(1, stats.get("example8.key1_unspecified_value2").totalHits.sum());
        assertEquals(1, stats.get("example8.key1_value1").totalHits.sum());
        assertFalse(stats.containsKey("example8.key1"));
        assertEquals(10, rls.admitted(11, "example8", d("key1", "other")));
    }

    @Test
    void example9WildcardsMatchTrailingMiddleAndSeveral()
    {
        assertEquals(20, rls.admitted(21, "example9", d("key1", "value1")));
        assertEquals(20, rls.admitted(21, "example9", d("key1", "valueXYZ")), "each value its own counter");
        assertEquals(2, rls.admitted(3, "example9", d("path", "/api/123/action")));
        assertEquals(2, rls.admitted(3, "example9", d("path", "/api/user-id/action")));
        assertEquals(3, rls.admitted(3, "example9", d("path", "/api/123/other")), "no match: no limit");
        assertEquals(3, rls.admitted(4, "example9", d("route", "/api/v1/resource/123/action")));
        assertEquals(4, rls.admitted(4, "example9", d("route", "/api/v1/resource/123/other")));
    }

    @Test
    void example10ValueToMetricNamesTheRequestsValuesInTheStatisticsKey()
    {
        rls.call("example10", d("route", "api", "http_method", "GET", "subject_id", "123"));
        rls.call("example10", d("route", "web", "http_method", "POST", "subject_id", "456"));
        final var stats = rls.server.service().stats();
        assertEquals(1, stats.get("example10.route_api.http_method_GET.subject_id").totalHits.sum());
        assertEquals(1, stats.get("example10.route_web.http_method_POST.subject_id").totalHits.sum());
        assertFalse(stats.containsKey("example10.route.http_method.subject_id"));
        assertEquals(60, rls.admitted(61, "example10", d("route", "api", "http_method", "GET", "subject_id", "9")));
    }

    @Test
    void example11ShareThresholdSharesOneCounterAcrossMatches()
    {
        assertEquals(5, rls.admitted(5, "example11", d("files", "files/a.pdf")));
        assertEquals(5, rls.admitted(5, "example11", d("files", "files/b.csv")));
        assertEquals(0, rls.admitted(1, "example11", d("files", "files/c.txt")));
        assertEquals(10, rls.admitted(11, "example11", d("files_no_share", "files_no_share/a.pdf")));
        assertEquals(10, rls.admitted(11, "example11", d("files_no_share", "files_no_share/b.csv")));
    }

    @Test
    void unknownDomainIsOkWithoutLimit()
    {
        final RateLimitResponse r = rls.call("no_such_domain", d("a", "b"));
        assertEquals(Code.OK, r.getOverallCode());
        assertTrue(r.getStatusesCount() == 1 && !r.getStatuses(0).hasCurrentLimit());
    }
}
