package dev.cellrate.stat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One live writer a statistics directory: a second {@link StatFile#create} while the first writer is open, in this
 * process or another, is refused with a message naming the live writer's process, and the first writer's file
 * stays what readers see; once the first writer closes or its process dies, a new writer replaces the file.
 */
final class SecondWriterTest
{
    @TempDir
    Path dir;

    @Test
    void aSecondWriterInTheSameProcessIsRefusedUntilTheFirstCloses()
    {
        final StatFile first = StatFile.create(dir, 16, 1024);
        first.limiter("first", 1, 0).record(0);
        final String message = assertThrows(IllegalStateException.class, () -> StatFile.create(dir, 16, 1024))
            .getMessage();
        assertTrue(message.contains("live writer") && message.contains(Long.toString(ProcessHandle.current().pid())),
            message);
        try (StatReader reader = StatReader.open(dir, 1_000))
        {
            assertEquals("first", reader.stats().get(0).limiter(), "readers still see the first writer");
            assertEquals(1, reader.value(reader.stats().get(0)));
        }
        first.close();
        try (StatFile second = StatFile.create(dir, 16, 1024))
        {
            second.limiter("second", 1, 0);
            try (StatReader reader = StatReader.open(dir, 1_000))
            {
                assertEquals("second", reader.stats().get(0).limiter());
            }
        }
    }

    @Test
    void aSecondWriterBesideALiveWriterProcessIsRefusedAndAcceptedOnceThatProcessEnds() throws Exception
    {
        final Process writer = new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED",
            "-cp", System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
            "probe.StatWriterProbe", dir.toString()).redirectErrorStream(true).start();
        try
        {
            final BufferedReader out = new BufferedReader(
                new InputStreamReader(writer.getInputStream(), StandardCharsets.UTF_8));
            assertEquals("writing", out.readLine());
            final String message = assertThrows(IllegalStateException.class, () -> StatFile.create(dir, 16, 1024))
                .getMessage();
            assertTrue(message.contains("live writer") && message.contains("process " + writer.pid()), message);
            try (StatReader reader = StatReader.open(dir, 1_000))
            {
                assertEquals(writer.pid(), reader.pid(), "readers still see the live writer's file");
                assertEquals("first", reader.stats().get(0).limiter());
            }
        }
        finally
        {
            writer.destroyForcibly(); // a writer that dies without closing
            assertTrue(writer.waitFor(30, TimeUnit.SECONDS));
        }
        try (StatFile next = StatFile.create(dir, 16, 1024))
        {
            next.limiter("next", 1, 0);
            try (StatReader reader = StatReader.open(dir, 1_000))
            {
                assertEquals(ProcessHandle.current().pid(), reader.pid());
            }
        }
    }
}
