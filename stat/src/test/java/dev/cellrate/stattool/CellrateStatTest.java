package dev.cellrate.stattool;

import dev.cellrate.Limit;
import dev.cellrate.RateLimiter;
import dev.cellrate.stat.LimiterStats;
import dev.cellrate.stat.StatFile;
import dev.cellrate.stat.StatKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The stat tool in a second JVM reads this JVM's live file: while a thread records, its values lie between
 * what this process read before and after, and its interval rates are positive; once recording stops, a
 * one-shot run prints exactly the counters.
 */
final class CellrateStatTest
{
    @TempDir
    Path dir;

    @Test
    void secondJvmReadsALiveFile() throws Exception
    {
        try (StatFile file = StatFile.create(dir))
        {
            final LimiterStats stats = file.limiter("live-api", 2, 4);
            final RateLimiter limiter = new RateLimiter(Limit.perSecond(1_000, 10));
            final AtomicBoolean running = new AtomicBoolean(true);
            final Thread writer = new Thread(() ->
            {
                long key = 0;
                while (running.get())
                {
                    stats.record(key++ & 3, limiter.tryAcquire(1, System.nanoTime()));
                    if ((key & 1023) == 0)
                    {
                        Thread.onSpinWait();
                    }
                }
            });
            writer.start();
            try
            {
                final long admittedBefore = stats.outcome(StatKind.ADMITTED);
                final List<String> lines = runTool(dir.toString(), "0.5", "--count", "2");
                final long admittedAfter = stats.outcome(StatKind.ADMITTED);
                final List<Long> admitted = column(lines, "live-api", "admitted", 2);
                final List<String> rates = columnText(lines, "live-api", "rejected", 3);
                assertEquals(2, admitted.size(), String.join("\n", lines));
                assertTrue(admitted.get(0) >= admittedBefore && admitted.get(1) <= admittedAfter &&
                    admitted.get(0) <= admitted.get(1), admitted + " not within [" + admittedBefore + ", " +
                    admittedAfter + "]");
                assertTrue(Double.parseDouble(rates.get(1)) > 0, "rejection rate: " + rates);
                assertTrue(lines.stream().anyMatch(l -> l.startsWith("top rejected keys of live-api")));
            }
            finally
            {
                running.set(false);
                writer.join();
            }
            final List<String> once = runTool(dir.toString());
            for (final StatKind kind : new StatKind[]{ StatKind.ADMITTED, StatKind.REJECTED })
            {
                assertEquals(List.of(stats.outcome(kind)), column(once, "live-api", kind.label(), 2), kind.label());
            }
        }
    }

    @Test
    void missingFileIsAnErrorNotAHang() throws Exception
    {
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int code = CellrateStat.run(new String[]{ dir.resolve("absent").toString(), "--wait-ms", "10" },
            new PrintStream(new ByteArrayOutputStream()), new PrintStream(err));
        assertEquals(1, code);
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("no statistics file"));
    }

    private static List<String> runTool(final String... args) throws Exception
    {
        final List<String> command = new ArrayList<>(List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "-cp", System.getProperty("java.class.path"),
            CellrateStat.class.getName()));
        command.addAll(List.of(args));
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, process.exitValue(), output);
        return List.of(output.split("\n"));
    }

    private static List<String> columnText(final List<String> lines, final String limiter, final String stat,
        final int column)
    {
        final List<String> values = new ArrayList<>();
        for (final String line : lines)
        {
            final String[] parts = line.trim().split("\\s+");
            if (parts.length == 4 && parts[0].equals(limiter) && parts[1].equals(stat))
            {
                values.add(parts[column]);
            }
        }
        return values;
    }

    private static List<Long> column(final List<String> lines, final String limiter, final String stat,
        final int column)
    {
        final List<Long> values = new ArrayList<>();
        for (final String text : columnText(lines, limiter, stat, column))
        {
            values.add(Long.parseLong(text));
        }
        return values;
    }
}
