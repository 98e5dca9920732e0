package dev.cellrate.redis;

import dev.cellrate.ModulePath;
import dev.cellrate.Result;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * cellrate-redis on the module path: its main sources compile against the packaged engine as the module
 * {@code dev.cellrate} (only exported packages visible, Lettuce and Netty on the class path), and, so compiled,
 * decide in a JVM where the engine is that module: two admissions and a rejection with the engine's
 * retry-after on a real redis-server, then the fail policy's answer where no Redis listens.
 */
final class ModulePathIT
{
    @TempDir
    Path dir;

    @Test
    void compilesAndDecidesAgainstTheEngineModule() throws Exception
    {
        final Path classes = dir.resolve("classes");
        final List<String> errors = ModulePath.compile(classes, Path.of("src/main/java"), Path.of("src/test/modulepath"));
        assertEquals(List.of(), errors);

        final int deadPort = RedisServer.unstarted().port;
        try (RedisServer server = RedisServer.start())
        {
            final String run = ModulePath.run(classes, "dev.cellrate.redis.modulepath.ModulePathMain",
                Integer.toString(server.port), Integer.toString(deadPort));
            assertTrue(run.startsWith("0\n"), run);
            assertTrue(run.contains("engine-module=dev.cellrate\n"), run);
            assertTrue(run.contains("redis-from=" + classes.toUri().toURL()), run);
            // burst 2, one per 60 s: the third waits the 60 s the engine's arithmetic says (in whole us)
            assertTrue(run.contains("live=0,0,60000000000 remaining=0 roundTrips=3 fallbacks=0\n"), run);
            assertTrue(run.contains("dead=" + Result.REJECTED_FAIL_CLOSED + "\n"), run);
        }
    }
}
