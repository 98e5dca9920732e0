package dev.cellrate.stattool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** {@code cellrate-stat --table FILE}: a mapped table's limit, geometry and live keys, or a clear error. */
final class MappedTableStatTest
{
    @TempDir
    Path dir;

    @Test
    void printsTheLiveKeysOfATableFile() throws Exception
    {
        final Path file = dir.resolve("keys.table");
        final KeyedRateLimiter limiter = KeyedRateLimiter.builder(Limit.perSecond(10, 5)).slotCount(4096).shardCount(4)
            .mappedFile(file).build();
        final long nowNs = System.nanoTime();
        for (long key = 0; key < 300; key++)
        {
            assertTrue(Result.isAdmitted(limiter.tryAcquire(key, 1, nowNs)));
        }
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(0, CellrateStat.run(new String[] {"--table", file.toString()}, stream(out), stream(err)));
        final String text = out.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("live keys           300 (7.3% of the slots)"), text);
        assertTrue(text.contains("limit               T = 100000000 ns, tau = 400000000 ns"), text);
        assertTrue(text.contains("geometry            4 shards, 4096 slots"), text);
        assertTrue(text.contains("shard locks held    0"), text);
    }

    @Test
    void aFileThatIsNotATableIsAClearError() throws Exception
    {
        final Path file = Files.writeString(dir.resolve("notes.txt"), "not a table".repeat(1000));
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(1, CellrateStat.run(new String[] {"--table", file.toString()}, stream(out), stream(err)));
        assertTrue(err.toString(StandardCharsets.UTF_8).startsWith("cellrate-stat: refusing the keyed-table file " +
            file.toAbsolutePath() + ": it is not a cellrate keyed-table file"), err.toString(StandardCharsets.UTF_8));
    }

    private static PrintStream stream(final ByteArrayOutputStream bytes)
    {
        return new PrintStream(bytes, true, StandardCharsets.UTF_8);
    }
}
