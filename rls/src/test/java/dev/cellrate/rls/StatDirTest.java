package dev.cellrate.rls;

import dev.cellrate.stat.StatKind;
import dev.cellrate.stat.StatReader;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static dev.cellrate.rls.Rls.d;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@code --stat-dir}: the engine's decision counters in a mapped file, read by another reader as cellrate-stat
 * reads them.
 */
class StatDirTest
{
    @Test
    void decisionCountersAreReadableFromTheStatDirectory() throws Exception
    {
        final Path directory = Files.createTempDirectory("rls-config");
        Files.writeString(directory.resolve("c.yaml"),
            "domain: d\ndescriptors:\n  - key: k\n    rate_limit:\n      unit: hour\n      requests_per_unit: 3\n",
            StandardCharsets.UTF_8);
        final Path stats = Files.createTempDirectory("rls-stats");
        final RlsServer.Options options = Rls.options(directory);
        options.statDirectory = stats;
        try (Rls rls = new Rls(options, null))
        {
            assertEquals(3, rls.admitted(5, "d", d("k", "v")));
            try (StatReader reader = StatReader.open(stats, 1_000))
            {
                long admitted = -1;
                long rejected = -1;
                for (final StatReader.Stat stat : reader.stats())
                {
                    if ("rls d.k".equals(stat.limiter()) && StatKind.ADMITTED == stat.kind())
                    {
                        admitted = reader.value(stat);
                    }
                    if ("rls d.k".equals(stat.limiter()) && StatKind.REJECTED == stat.kind())
                    {
                        rejected = reader.value(stat);
                    }
                }
                assertEquals(3, admitted);
                assertEquals(2, rejected);
            }
        }
    }
}
