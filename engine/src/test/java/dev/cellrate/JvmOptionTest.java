package dev.cellrate;

import dev.cellrate.layout.CellArray;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A JVM started without {@link JvmOption#ADD_EXPORTS}: every front, keyed ones first, fails with the
 * {@link IllegalStateException} that names the option (or works, when it needs no off-heap memory), never with
 * Agrona's bare {@link IllegalAccessError}.
 */
final class JvmOptionTest
{
    @Test
    void everyFrontNamesTheOptionWithoutIt() throws Exception
    {
        final Process process = new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-cp", System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
            "probe.EveryFrontProbe").redirectErrorStream(true).start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the probe JVM finished");
        assertEquals(0, process.exitValue(), output);
        assertTrue(output.contains("done"), output);
        assertFalse(output.contains("WRONG"), output);
        for (final String front : List.of("keyed", "keyed shaper", "keyed again", "rate limiter", "composite", "stat file", "stat reader"))
        {
            assertTrue(output.contains("\n" + front + " names the option") || output.startsWith(front + " names the option"),
                front + ":\n" + output);
        }
    }
}
