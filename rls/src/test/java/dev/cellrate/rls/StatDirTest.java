package dev.cellrate.rls;

import dev.cellrate.stat.StatKind;
import dev.cellrate.stat.StatReader;
import dev.cellrate.stattool.CellrateStat;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

import static dev.cellrate.rls.Rls.d;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code --stat-dir}: the reference's statistics (hits by outcome) and the decision outcomes are the engine's
 * counters in a mapped file, read by another reader and by the {@code cellrate-stat} tool, and the same counters
 * are {@code /metrics}.
 */
class StatDirTest
{
    /** The hit counts of one name, as any reader of the file sees them. */
    static Map<StatKind, Long> hits(final StatReader reader, final String name)
    {
        final Map<StatKind, Long> hits = new TreeMap<>();
        for (final StatReader.Stat stat : reader.stats())
        {
            if (name.equals(stat.limiter()) && stat.kind().ordinal() >= StatKind.TOTAL_HITS.ordinal())
            {
                hits.put(stat.kind(), reader.value(stat));
            }
        }
        return hits;
    }

    static long outcome(final StatReader reader, final String name, final StatKind kind)
    {
        for (final StatReader.Stat stat : reader.stats())
        {
            if (name.equals(stat.limiter()) && kind == stat.kind())
            {
                return reader.value(stat);
            }
        }
        return -1;
    }

    @Test
    void theStatisticsAreTheEngineCountersInTheStatDirectory() throws Exception
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
                assertEquals(3, outcome(reader, "rls d.k", StatKind.ADMITTED));
                assertEquals(2, outcome(reader, "rls d.k", StatKind.REJECTED));
                assertEquals(Map.of(StatKind.TOTAL_HITS, 5L, StatKind.OVER_LIMIT, 2L, StatKind.NEAR_LIMIT, 1L,
                    StatKind.WITHIN_LIMIT, 3L, StatKind.SHADOW_MODE, 0L), hits(reader, "rls d.k"),
                    "the reference's statistics are the engine's counters in the file");
            }

            final ByteArrayOutputStream out = new ByteArrayOutputStream();
            assertEquals(0, CellrateStat.run(new String[]{ stats.toString() }, new PrintStream(out, true), System.err));
            final String printed = out.toString(StandardCharsets.UTF_8);
            assertTrue(printed.matches("(?s).*rls d\\.k +total-hits +5 .*"), printed);
            assertTrue(printed.matches("(?s).*rls d\\.k +over-limit +2 .*"), printed);
            assertTrue(printed.matches("(?s).*rls d\\.k +near-limit +1 .*"), printed);
            assertTrue(printed.matches("(?s).*rls d\\.k +within-limit +3 .*"), printed);

            final String metrics = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + rls.server.httpPort() + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
            assertTrue(metrics.contains("ratelimit_service_rate_limit_total_hits{domain=\"d\",key=\"d.k\"} 5\n"), metrics);
            assertTrue(metrics.contains("ratelimit_service_rate_limit_near_limit{domain=\"d\",key=\"d.k\"} 1\n"), metrics);
            assertTrue(metrics.contains("ratelimit_service_rate_limit_over_limit{domain=\"d\",key=\"d.k\"} 2\n"), metrics);
        }
    }

    @Test
    void statisticsKeysPastTheFilesRoomCountUnderOverflow() throws Exception
    {
        final String config = "domain: d\ndescriptors:\n" +
            "  - key: k\n    detailed_metric: true\n    rate_limit:\n      unit: hour\n      requests_per_unit: 5\n";
        final Path directory = Files.createTempDirectory("rls-config");
        Files.writeString(directory.resolve("c.yaml"), config, StandardCharsets.UTF_8);
        final RlsServer.Options options = Rls.options(directory);
        options.keysPerRule = 4096; // room for every descriptor: only the statistics keys run out
        try (Rls rls = new Rls(options, null))
        {
            final int keys = RlsService.MAX_STATS_KEYS + 20;
            for (int i = 0; i < keys; i++)
            {
                assertEquals(io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.Code.OK,
                    rls.call("d", d("k", "v" + i)).getOverallCode());
            }
            final Map<String, RuleStats> stats = rls.server.service().stats();
            assertEquals(RlsService.MAX_STATS_KEYS + 1, stats.size(), "the kept keys and _overflow");
            assertEquals(20, stats.get("_overflow").totalHits.sum());
            assertEquals(1, stats.get("d.k_v0").withinLimit.sum());
        }
    }
}
