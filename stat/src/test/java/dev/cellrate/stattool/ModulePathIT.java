package dev.cellrate.stattool;

import dev.cellrate.ModulePath;
import dev.cellrate.stat.LimiterStats;
import dev.cellrate.stat.StatFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * cellrate-stat on the module path: its sources compile against the packaged engine as the module
 * {@code dev.cellrate} (only exported packages visible), and the tool, so compiled, runs in a JVM where the
 * engine is that module and prints a file this JVM wrote.
 */
final class ModulePathIT
{
    @TempDir
    Path dir;

    @Test
    void compilesAndRunsAgainstTheEngineModule() throws Exception
    {
        final Path classes = dir.resolve("classes");
        final List<String> errors = ModulePath.compile(classes, Path.of("src/main/java"));
        assertEquals(List.of(), errors);

        final Path statDir = dir.resolve("stat");
        try (StatFile file = StatFile.create(statDir, 64, 1 << 12))
        {
            final LimiterStats stats = file.limiter("module-path-api", 1, 4);
            stats.record(0);
            stats.record(0);
            stats.record(7, 1_000_000L);
            final String run = ModulePath.run(classes, "dev.cellrate.stattool.CellrateStat", statDir.toString());
            assertTrue(run.startsWith("0\n"), run);
            assertTrue(run.contains("module-path-api"), run);
        }
    }
}
