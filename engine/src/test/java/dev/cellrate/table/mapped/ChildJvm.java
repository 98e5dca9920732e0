package dev.cellrate.table.mapped;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM running one of this package's test mains, with the engine's JVM option and the test class path.
 * Its standard output is read line by line ({@link #awaitLine}); its standard error goes to the parent's.
 */
public final class ChildJvm implements AutoCloseable
{
    public final Process process;
    private final BufferedReader out;

    private ChildJvm(final Process process)
    {
        this.process = process;
        this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    }

    /**
     * @param prefix    a shell prefix such as {@code "ulimit -f 64; exec"} (run through {@code sh -c}), or null.
     * @param mainClass the main class.
     * @param args      its arguments.
     * @return the started child.
     */
    public static ChildJvm start(final String prefix, final Class<?> mainClass, final String... args) throws IOException
    {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-XX:+UseSerialGC");
        command.add("-Xshare:auto");
        command.add("-XX:-UsePerfData");
        command.add("-cp");
        command.add(System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")));
        command.add(mainClass.getName());
        command.addAll(List.of(args));
        final ProcessBuilder builder;
        if (null == prefix)
        {
            builder = new ProcessBuilder(command);
        }
        else
        {
            final StringBuilder line = new StringBuilder(prefix);
            for (final String word : command)
            {
                line.append(" '").append(word.replace("'", "'\\''")).append('\'');
            }
            builder = new ProcessBuilder("sh", "-c", line.toString());
        }
        builder.redirectError(ProcessBuilder.Redirect.INHERIT);
        return new ChildJvm(builder.start());
    }

    /**
     * @param prefix the start of the line to wait for.
     * @return the line.
     * @throws IllegalStateException if the child ends first.
     */
    public String awaitLine(final String prefix) throws IOException
    {
        String line;
        while (null != (line = out.readLine()))
        {
            if (line.startsWith(prefix))
            {
                return line;
            }
        }
        throw new IllegalStateException("the child ended (exit " + exitCode() + ") before printing '" + prefix + "'");
    }

    /** @return every remaining line of the child's output (waits for it to end). */
    List<String> remainingLines() throws IOException
    {
        final List<String> lines = new ArrayList<>();
        String line;
        while (null != (line = out.readLine()))
        {
            lines.add(line);
        }
        return lines;
    }

    public int exitCode()
    {
        try
        {
            return process.waitFor(60, TimeUnit.SECONDS) ? process.exitValue() : -1;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** Kill the child as {@code kill -9} does, and wait for it (reaped: no zombie left). */
    void kill() throws InterruptedException
    {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws Exception
    {
        if (process.isAlive())
        {
            kill();
        }
    }
}
