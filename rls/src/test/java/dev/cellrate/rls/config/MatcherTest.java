package dev.cellrate.rls.config;

import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The matcher finds an entry's child by the reference's map key, {@code key_value}, without building that
 * string: the same rule as a lookup of the joined string, and no allocation per match.
 */
class MatcherTest
{
    private static final String CONFIG =
        "domain: d\n" +
        "descriptors:\n" +
        "  - key: k\n" +
        "    rate_limit: {unit: second, requests_per_unit: 1}\n" +
        "  - key: k\n" +
        "    value: v1\n" +
        "    rate_limit: {unit: second, requests_per_unit: 2}\n" +
        "  - key: a_b\n" +
        "    value: c\n" +
        "    rate_limit: {unit: second, requests_per_unit: 3}\n" +
        "  - key: w\n" +
        "    value: x*y*z\n" +
        "    rate_limit: {unit: second, requests_per_unit: 4}\n" +
        "  - key: w\n" +
        "    value: pre*\n" +
        "    rate_limit: {unit: second, requests_per_unit: 5}\n" +
        "  - key: n\n" +
        "    value: caf\u00e9\n" +
        "    descriptors:\n" +
        "      - key: m\n" +
        "        rate_limit: {unit: second, requests_per_unit: 6}\n";

    private static RateLimitDescriptor d(final String... keyValues)
    {
        final RateLimitDescriptor.Builder b = RateLimitDescriptor.newBuilder();
        for (int i = 0; i < keyValues.length; i += 2)
        {
            b.addEntries(RateLimitDescriptor.Entry.newBuilder().setKey(keyValues[i]).setValue(keyValues[i + 1]));
        }
        return b.build();
    }

    private static long limitOf(final RlsConfig config, final RateLimitDescriptor descriptor)
    {
        final RateLimitRule rule = config.match("d", descriptor, new RlsConfig.Match());
        return null == rule ? -1 : rule.requestsPerUnit();
    }

    @Test
    void matchesAsALookupOfTheJoinedKeyValue() throws Exception
    {
        final RlsConfig config = ConfigLoader.loadTexts("m.yaml", CONFIG);
        assertEquals(2, limitOf(config, d("k", "v1")), "key_value");
        assertEquals(1, limitOf(config, d("k", "v2")), "the bare key's default");
        assertEquals(1, limitOf(config, d("k", "")), "no value: the bare key");
        assertEquals(3, limitOf(config, d("a_b", "c")));
        assertEquals(3, limitOf(config, d("a", "b_c")), "a_b_c, as the reference's joined map key finds it");
        assertEquals(-1, limitOf(config, d("a_b", "")), "a_b is no bare key");
        assertEquals(4, limitOf(config, d("w", "x1y2z")));
        assertEquals(4, limitOf(config, d("w", "xyz")), "each * matches zero or more characters");
        assertEquals(5, limitOf(config, d("w", "pre")));
        assertEquals(5, limitOf(config, d("w", "prefix")));
        assertEquals(-1, limitOf(config, d("w", "xy")));
        assertEquals(-1, limitOf(config, d("w", "zyx")));
        assertEquals(6, limitOf(config, d("n", "caf\u00e9", "m", "any")));
        assertEquals(-1, limitOf(config, d("n", "cafe", "m", "any")));
    }

    @Test
    void aMatchAllocatesNothing() throws Exception
    {
        final RlsConfig config = ConfigLoader.loadTexts("m.yaml", CONFIG);
        final RateLimitDescriptor[] descriptors = new RateLimitDescriptor[64];
        final SplittableRandom random = new SplittableRandom(5);
        for (int i = 0; i < descriptors.length; i++)
        {
            descriptors[i] = i % 4 == 0 ? d("k", "v1") : i % 4 == 1 ? d("k", "v" + random.nextInt(1000)) :
                i % 4 == 2 ? d("a", "b_c") : d("n", "caf\u00e9", "m", "x" + i);
            descriptors[i].getEntries(0).getValue().hashCode(); // a parsed request's strings are made once
        }
        final RlsConfig.Match match = new RlsConfig.Match();
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final long thread = Thread.currentThread().getId();
        long matched = 0;
        for (int i = 0; i < 20_000; i++)
        {
            matched += null == config.match("d", descriptors[i & 63], match) ? 0 : 1;
        }
        final long before = threads.getThreadAllocatedBytes(thread);
        final int matches = 100_000;
        for (int i = 0; i < matches; i++)
        {
            matched += null == config.match("d", descriptors[i & 63], match) ? 0 : 1;
        }
        final long bytes = threads.getThreadAllocatedBytes(thread) - before;
        assertTrue(matched > 0);
        assertTrue(bytes < matches / 10, bytes + " bytes allocated by " + matches + " matches");
    }

    @Test
    void aWildcardChildIsFoundWithoutTheJoinedString() throws Exception
    {
        final RlsConfig config = ConfigLoader.loadTexts("m.yaml", CONFIG);
        final RlsConfig.Match match = new RlsConfig.Match();
        final RateLimitRule rule = config.match("d", d("w", "x-y-z"), match);
        assertSame(rule, config.domains().get("d").children().get("w_x*y*z").rule());
        assertNull(config.match("d", d("q", "x"), match));
    }
}
