package dev.cellrate.micrometer;

import dev.cellrate.ModulePath;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * cellrate-micrometer on the module path: its sources and a probe compile against the packaged engine as the
 * module {@code dev.cellrate} (only exported packages visible), and the binder, so compiled, reads a statistics
 * file in a JVM where the engine is that module.
 */
final class ModulePathIT
{
    @TempDir
    Path dir;

    @Test
    void compilesAndRunsAgainstTheEngineModule() throws Exception
    {
        final Path classes = dir.resolve("classes");
        assertEquals(List.of(), ModulePath.compile(classes, Path.of("src/main/java"),
            Path.of("src/test/java/dev/cellrate/micrometer/ModulePathProbe.java")));
        final String run = ModulePath.run(classes, "dev.cellrate.micrometer.ModulePathProbe");
        assertTrue(run.startsWith("0\n"), run);
        assertTrue(run.contains("cellrate.decisions") && run.contains("probe") && run.contains(" 5.0"), run);
    }
}
