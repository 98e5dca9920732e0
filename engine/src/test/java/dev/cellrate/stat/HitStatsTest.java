package dev.cellrate.stat;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Counts of hits in a mapped statistics file, added from several threads and read by another reader.
 */
final class HitStatsTest
{
    @Test
    void hitsAddedFromSeveralThreadsAreReadFromTheFile() throws Exception
    {
        final Path dir = Files.createTempDirectory("hit-stats");
        try (StatFile file = StatFile.create(dir, 64, 0))
        {
            final HitStats hits = file.hits("rls d.k", 4);
            final Thread[] threads = new Thread[3];
            for (int t = 0; t < threads.length; t++)
            {
                threads[t] = new Thread(() ->
                {
                    for (int i = 0; i < 1000; i++)
                    {
                        hits.add(StatKind.TOTAL_HITS, 3);
                        hits.add(StatKind.WITHIN_LIMIT, 2);
                        hits.add(StatKind.OVER_LIMIT, 1);
                        hits.add(StatKind.NEAR_LIMIT, -5); // adds nothing
                    }
                });
                threads[t].start();
            }
            for (final Thread t : threads)
            {
                t.join();
            }
            hits.add(StatKind.SHADOW_MODE, 7);
            assertEquals(9000, hits.value(StatKind.TOTAL_HITS));
            try (StatReader reader = StatReader.open(dir, 1_000))
            {
                final Map<StatKind, Long> read = new HashMap<>();
                for (final StatReader.Stat stat : reader.stats())
                {
                    assertEquals("rls d.k", stat.limiter());
                    assertEquals(4, stat.counterIds().length, "one counter per stripe");
                    read.put(stat.kind(), reader.value(stat));
                }
                assertEquals(Map.of(StatKind.TOTAL_HITS, 9000L, StatKind.OVER_LIMIT, 3000L, StatKind.NEAR_LIMIT, 0L,
                    StatKind.WITHIN_LIMIT, 6000L, StatKind.SHADOW_MODE, 7L), read);
            }
            assertThrows(IllegalArgumentException.class, () -> hits.add(StatKind.ADMITTED, 1));
            assertTrue(assertThrows(IllegalStateException.class, () -> file.hits("more", 16)).getMessage()
                .contains("no counters left"));
            assertThrows(IllegalArgumentException.class,
                () -> file.limiter("x", 1, 0).gauge(StatKind.TOTAL_HITS), "a hit count is not a sampled gauge");
        }
    }
}
