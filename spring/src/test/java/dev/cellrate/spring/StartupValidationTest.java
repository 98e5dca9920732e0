package dev.cellrate.spring;

import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.annotation.Configuration;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A bad cellrate.* value stops the application with a message naming the property and its range. */
class StartupValidationTest
{
    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class Empty
    {
    }

    private static String failure(final String... properties)
    {
        final Throwable t = assertThrows(Throwable.class, () -> new SpringApplicationBuilder(Empty.class)
            .web(WebApplicationType.NONE).properties("spring.main.banner-mode=off").properties(properties).run()
            .close());
        final StringBuilder all = new StringBuilder();
        for (Throwable c = t; null != c; c = c.getCause())
        {
            all.append(c.getMessage()).append('\n');
        }
        return all.toString();
    }

    @Test
    void badValuesNameThePropertyAndItsRange()
    {
        final String[][] cases = {
            {"cellrate.limits.a.rate=0", "cellrate.limits.a.rate must be in [1, 1000000000] but was 0"},
            {"cellrate.limits.a.rate=5\ncellrate.limits.a.burst=-1", "cellrate.limits.a.burst must be in [1, 1000000000] but was -1"},
            {"cellrate.limits.a.rate=5\ncellrate.limits.a.period=0s", "cellrate.limits.a.period must be in [PT0.001S, PT24H] but was PT0S"},
            {"cellrate.limits.a.rate=5\ncellrate.limits.a.key.source=forwarded\ncellrate.limits.a.key.trusted-hops=0",
                "cellrate.limits.a.key.trusted-hops must be in [1, 64] but was 0"},
            {"cellrate.limits.a.rate=5\ncellrate.limits.a.key.ipv6-prefix=96", "cellrate.limits.a.key.ipv6-prefix must be in [1, 64] but was 96"},
            {"cellrate.limits.a.rate=5\ncellrate.limits.a.key.source=header", "cellrate.limits.a.key.header must be a header name"},
            {"cellrate.limits.a.rate=5\ncellrate.limits.a.key.source=spel\ncellrate.limits.a.key.expression=getHeader(",
                "cellrate.limits.a.key.expression must be a SpEL expression but 'getHeader(' does not parse"},
            {"cellrate.limits.a.rate=5\ncellrate.limits.a.paths=/x/{id}\ncellrate.limits.a.key.source=path-variable\ncellrate.limits.a.key.variable=user",
                "cellrate.limits.a.key.variable 'user' must be bound by one of the limit's paths"},
            {"cellrate.limits.a.rate=5\ncellrate.limits.a.mode=charge-after",
                "cellrate.limits.a.charge-statuses or cellrate.limits.a.cost-header must be set"},
            {"cellrate.limits.a.rate=5\ncellrate.limits.a.charge-statuses=700\ncellrate.limits.a.mode=charge-after",
                "cellrate.limits.a.charge-statuses[0] must be in [100, 599] but was 700"},
            {"cellrate.limits.a.rate=5\ncellrate.limits.a.backend=redis", "cellrate.redis.uri must be set"},
            {"cellrate.limits.a.rate=5\ncellrate.limits.a.classes.gold.rate=9\ncellrate.limits.a.classes.gold.keys=not-an-ip",
                "cellrate.limits.a.classes.gold.keys[0] must be an IP address but was 'not-an-ip'"},
            {"cellrate.limits.a.rate=5\ncellrate.limits.a.classes.gold.rate=0",
                "cellrate.limits.a.classes.gold.rate must be in [1, 1000000000] but was 0"},
            {"cellrate.limits.a.rate=5\ncellrate.limits.a.reconfigurable=true\ncellrate.limits.a.mode=shape",
                "cellrate.limits.a.mode must be enforce or dry-run when cellrate.limits.a.reconfigurable is true"},
            {"cellrate.limits.a.rate=5\ncellrate.limits.a.expected-keys=0", "cellrate.limits.a.expected-keys must be in [1, 100000000] but was 0"},
        };
        // the application does not start, and says why
        final String started = failure(cases[0][0].split("\n"));
        assertTrue(started.contains(cases[0][1]), "expected '" + cases[0][1] + "' in:\n" + started);
        // the same check for every case, on the properties as Spring binds them (no context per case)
        for (final String[] c : cases)
        {
            final java.util.Map<String, String> map = new java.util.HashMap<>();
            for (final String line : c[0].split("\n"))
            {
                map.put(line.substring(0, line.indexOf('=')), line.substring(line.indexOf('=') + 1));
            }
            final CellrateProperties properties = new org.springframework.boot.context.properties.bind.Binder(
                new org.springframework.boot.context.properties.source.MapConfigurationPropertySource(map))
                .bind("cellrate", CellrateProperties.class).get();
            final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
                () -> new LimitRegistry(properties, new ManualClock()).close());
            assertTrue(ex.getMessage().contains(c[1]), "expected '" + c[1] + "' in:\n" + ex.getMessage());
        }
    }

    @Test
    void theIdeMetadataDescribesTheProperties() throws Exception
    {
        try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json"))
        {
            final String json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            for (final String name : new String[] {"cellrate.limits", "cellrate.problem-details", "cellrate.redis.uri",
                "cellrate.redis.fail-policy", "CellrateProperties$LimitProperties"})
            {
                assertTrue(json.contains(name), name);
            }
            assertTrue(json.contains("\"open\""), "fail-policy hints");
        }
    }
}
