package dev.cellrate.rls.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ConfigLoaderTest
{
    private static ConfigException refused(final String yaml)
    {
        return assertThrows(ConfigException.class, () -> ConfigLoader.loadTexts("bad.yaml", yaml));
    }

    @Test
    void aBadUnitNamesFileLineAndField()
    {
        final ConfigException ex = refused(
            "domain: d\n" +
            "descriptors:\n" +
            "  - key: a\n" +
            "    rate_limit:\n" +
            "      unit: minutes\n" +
            "      requests_per_unit: 5\n");
        assertEquals("bad.yaml", ex.file());
        assertEquals(5, ex.line());
        assertEquals("descriptors[0].rate_limit.unit", ex.field());
        assertTrue(ex.getMessage().contains("'minutes' is not a unit"), ex.getMessage());
        assertTrue(ex.getMessage().startsWith("bad.yaml:5: descriptors[0].rate_limit.unit:"), ex.getMessage());
    }

    @Test
    void anUnknownFieldIsRefusedWhereItIs()
    {
        final ConfigException ex = refused(
            "domain: d\n" +
            "descriptors:\n" +
            "  - key: a\n" +
            "    descriptors:\n" +
            "      - key: b\n" +
            "        rate_limits:\n" +
            "          unit: second\n");
        assertEquals(6, ex.line());
        assertEquals("descriptors[0].descriptors[0].rate_limits", ex.field());
    }

    @Test
    void malformedYamlNamesTheLine()
    {
        final ConfigException ex = refused("domain: d\ndescriptors:\n  - key: a\n   value: [unclosed\n");
        assertTrue(ex.line() >= 3, ex.getMessage());
        assertTrue(ex.getMessage().contains("not valid YAML"), ex.getMessage());
    }

    @Test
    void valuesOutOfRangeAndEmptyFieldsAreRefused()
    {
        assertEquals("descriptors[0].rate_limit.requests_per_unit", refused(
            "domain: d\ndescriptors:\n  - key: a\n    rate_limit:\n      unit: second\n      requests_per_unit: -1\n")
            .field());
        assertEquals("descriptors[0].rate_limit.requests_per_unit", refused(
            "domain: d\ndescriptors:\n  - key: a\n    rate_limit:\n      unit: second\n      requests_per_unit: 4294967296\n")
            .field());
        assertEquals("descriptors[0].key", refused("domain: d\ndescriptors:\n  - value: a\n").field());
        assertEquals("domain", refused("descriptors: []\n").field());
        assertEquals("descriptors[0].rate_limit.unit", refused(
            "domain: d\ndescriptors:\n  - key: a\n    rate_limit:\n      unlimited: true\n      unit: second\n").field());
        assertEquals("descriptors[0].rate_limit.replaces[0].name", refused(
            "domain: d\ndescriptors:\n  - key: a\n    rate_limit:\n      name: x\n      unit: second\n" +
            "      requests_per_unit: 1\n      replaces:\n        - name: x\n").field());
        assertEquals("descriptors[0].share_threshold", refused(
            "domain: d\ndescriptors:\n  - key: a\n    value: b\n    share_threshold: true\n").field());
        assertEquals("descriptors[1]", refused(
            "domain: d\ndescriptors:\n  - key: a\n    value: b\n  - key: a\n    value: b\n").field());
        assertEquals("descriptors[0].shadow_mode", refused(
            "domain: d\ndescriptors:\n  - key: a\n    shadow_mode: maybe\n").field());
    }

    @Test
    void extensionsBurstAndUnitsAreRead() throws ConfigException
    {
        final RlsConfig config = ConfigLoader.loadTexts("ok.yaml",
            "domain: d\ndescriptors:\n  - key: a\n    rate_limit:\n      unit: minute\n      units: 5\n" +
            "      requests_per_unit: 100\n      burst: 10\n  - key: b\n    rate_limit:\n      unit: hour\n" +
            "      requests_per_unit: 7\n");
        final RateLimitRule a = config.rules().get(0);
        assertEquals(300, a.windowSeconds());
        assertEquals(10, a.burst());
        final RateLimitRule b = config.rules().get(1);
        assertEquals(3600, b.windowSeconds());
        assertEquals(7, b.burst(), "burst defaults to requests_per_unit");
        assertEquals("d.a", a.fullKey());
        assertNull(a.name());
        assertEquals(false, a.oneDescriptor(), "any value of a");
        final RlsConfig nested = ConfigLoader.loadTexts("n.yaml",
            "domain: d\ndescriptors:\n  - key: a\n    value: x\n    descriptors:\n      - key: b\n        value: y\n" +
            "        rate_limit:\n          unit: second\n          requests_per_unit: 1\n      - key: c\n" +
            "        rate_limit:\n          unit: second\n          requests_per_unit: 1\n  - key: w\n    value: x*\n" +
            "    rate_limit:\n      unit: second\n      requests_per_unit: 1\n");
        assertEquals(true, nested.rules().get(0).oneDescriptor(), "a_x.b_y: one descriptor");
        assertEquals(false, nested.rules().get(1).oneDescriptor(), "a_x.c: any value of c");
        assertEquals(false, nested.rules().get(2).oneDescriptor(), "a wildcard");
    }

    @Test
    void aDirectoryLoadsEveryYamlFileAndRefusesADomainTwice(@TempDir final Path dir) throws Exception
    {
        Files.writeString(dir.resolve("a.yaml"), "domain: one\ndescriptors:\n  - key: k\n    rate_limit:\n" +
            "      unit: second\n      requests_per_unit: 1\n");
        Files.writeString(dir.resolve("b.yml"), "domain: two\n");
        Files.writeString(dir.resolve(".hidden.yaml"), "not: [yaml");
        Files.writeString(dir.resolve("notes.txt"), "ignored");
        final RlsConfig config = ConfigLoader.load(dir);
        assertTrue(config.hasDomain("one") && config.hasDomain("two"));
        assertEquals(2, config.files().size());
        Files.writeString(dir.resolve("c.yaml"), "domain: one\n");
        final ConfigException ex = assertThrows(ConfigException.class, () -> ConfigLoader.load(dir));
        assertTrue(ex.file().endsWith("c.yaml") && ex.getMessage().contains("a.yaml"), ex.getMessage());
        assertEquals(1, ex.line());
        assertEquals("domain", ex.field());
    }
}
