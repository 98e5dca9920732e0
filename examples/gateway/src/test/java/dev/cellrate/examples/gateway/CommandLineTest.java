package dev.cellrate.examples.gateway;

import dev.cellrate.netty.HttpRateLimitHandler;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The gateway's command line, run as users run it: {@code main} in a child JVM, judged by its exit code,
 * its stdout and its stderr. A bad command line exits non-zero with one clear line naming the option (no
 * stack trace), and the JVM exits (no event loop left running).
 */
final class CommandLineTest
{
    private static final long EXIT_TIMEOUT_S = 20;

    /** What a finished child JVM left: exit code (or -1 if it had to be killed), stdout, stderr. */
    record Run(int exitCode, String out, String err)
    {
    }

    static Run run(final String... args) throws IOException, InterruptedException
    {
        return run(javaCommand(args));
    }

    static Run run(final List<String> command) throws IOException, InterruptedException
    {
        final Path outFile = Files.createTempFile("gateway-out", ".txt");
        final Path errFile = Files.createTempFile("gateway-err", ".txt");
        try
        {
            final Process p = new ProcessBuilder(command)
                .redirectOutput(outFile.toFile()).redirectError(errFile.toFile()).start();
            p.getOutputStream().close();
            final boolean exited = p.waitFor(EXIT_TIMEOUT_S, TimeUnit.SECONDS);
            if (!exited)
            {
                p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
            return new Run(exited ? p.exitValue() : -1, Files.readString(outFile, StandardCharsets.UTF_8),
                Files.readString(errFile, StandardCharsets.UTF_8));
        }
        finally
        {
            Files.deleteIfExists(outFile);
            Files.deleteIfExists(errFile);
        }
    }

    /** The gateway's main in a child JVM on the test class path, with the flag the engine needs. */
    private static List<String> javaCommand(final String... args)
    {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(Gateway.class.getName());
        command.addAll(List.of(args));
        return command;
    }

    @Test
    void helpPrintsUsageAndExitsZero() throws Exception
    {
        for (final String flag : new String[] {"--help", "-h"})
        {
            final Run run = run(flag);
            assertEquals(0, run.exitCode(), flag + " exits 0 at once\n" + run);
            assertTrue(run.out().contains("Usage:"), run.out());
            for (final String option : new String[] {"--port", "--bind", "--rate", "--burst", "--legacy-headers",
                "--idle-timeout", "--header-timeout"})
            {
                assertTrue(run.out().contains(option), option + " in the usage:\n" + run.out());
            }
            assertTrue(run.out().contains("at most " + HttpRateLimitHandler.MAX_OUTSTANDING + " requests"),
                "the pipelining bound in the usage:\n" + run.out());
            assertEquals("", run.err());
        }
    }

    static Stream<Arguments> badCommandLines()
    {
        return Stream.of(
            Arguments.of(new String[] {"--nope"}, "--nope"),
            Arguments.of(new String[] {"--port"}, "--port"),
            Arguments.of(new String[] {"--rate"}, "--rate"),
            Arguments.of(new String[] {"--port", "0", "extra"}, "extra"),
            Arguments.of(new String[] {"--rate", "0"}, "--rate"),
            Arguments.of(new String[] {"--rate", "-5"}, "--rate"),
            Arguments.of(new String[] {"--rate", "ten"}, "--rate"),
            Arguments.of(new String[] {"--burst", "0"}, "--burst"),
            Arguments.of(new String[] {"--port", "99999"}, "--port"),
            Arguments.of(new String[] {"--port", "-1"}, "--port"),
            Arguments.of(new String[] {"--bind", "not an address!"}, "--bind"),
            Arguments.of(new String[] {"--idle-timeout", "0"}, "--idle-timeout"),
            Arguments.of(new String[] {"--header-timeout", "-1"}, "--header-timeout"));
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("badCommandLines")
    void aBadCommandLineIsOneClearLineAndANonZeroExit(final String[] args, final String named) throws Exception
    {
        final Run run = run(args);
        assertClearFailure(run, named);
    }

    @Test
    void withoutTheJvmOptionTheLineNamesIt() throws Exception
    {
        final List<String> command = javaCommand("--port", "0");
        command.removeIf(a -> a.startsWith("--add-exports"));
        final Run run = run(command);
        assertEquals(Gateway.EXIT_START, run.exitCode(), run.toString());
        assertEquals(1, run.err().lines().count(), run.err());
        assertTrue(run.err().contains("--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED"), run.err());
        assertFalse(run.err().contains("\tat "), run.err());
    }

    @Test
    void aBusyPortIsOneClearLineAndTheJvmExits() throws Exception
    {
        try (ServerSocket busy = new ServerSocket())
        {
            busy.bind(new InetSocketAddress("127.0.0.1", 0));
            final Run run = run("--port", Integer.toString(busy.getLocalPort()));
            assertClearFailure(run, "--port");
            assertTrue(run.err().contains(Integer.toString(busy.getLocalPort())), run.err());
        }
    }

    /**
     * The running gateway process serves at the {@code --bind} address with the options given, and listens
     * on exactly one TCP socket, its own:
     * the backend has no network address that a client could use to get past the limiter. Read from
     * {@code /proc} (Linux): the socket inodes of the process's descriptors against the LISTEN rows of
     * {@code /proc/net/tcp} and {@code tcp6}.
     */
    @Test
    void theRunningGatewayListensOnOneSocketOnly() throws Exception
    {
        final List<String> command = javaCommand("--port", "0", "--bind", "127.0.0.5", "--legacy-headers",
            "--rate", "5", "--burst", "7");
        final Path outFile = Files.createTempFile("gateway-out", ".txt");
        final Process p = new ProcessBuilder(command).redirectOutput(outFile.toFile())
            .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try
        {
            final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(EXIT_TIMEOUT_S);
            while (!Files.readString(outFile).contains("gateway on") && System.nanoTime() < deadlineNs && p.isAlive())
            {
                Thread.sleep(50);
            }
            final String out = Files.readString(outFile);
            assertTrue(out.contains("gateway on"), out);
            final List<Integer> ports = listeningPorts(p.pid());
            assertEquals(1, ports.size(), "TCP ports the gateway process listens on: " + ports + "\n" + out);
            assertTrue(out.contains("http://127.0.0.5:" + ports.get(0) + "/"), out);
            try (RawHttp client = new RawHttp("127.0.0.6", "127.0.0.5", ports.get(0)))
            {
                final RawHttp.Response response = client.send(RawHttp.get("/")).read();
                assertEquals(200, response.status(), "served at the --bind address");
                assertEquals("7", response.header("x-ratelimit-limit"), "--legacy-headers and --burst reach the limiter");
                assertEquals("\"per-client\";q=7;w=2", response.header("ratelimit-policy"));
            }
            try (Socket other = new Socket())
            {
                assertThrows(ConnectException.class, () -> other.connect(new InetSocketAddress("127.0.0.1", ports.get(0))),
                    "nothing listens at 127.0.0.1 when bound to 127.0.0.5");
            }
        }
        finally
        {
            p.destroy();
            if (!p.waitFor(10, TimeUnit.SECONDS))
            {
                p.destroyForcibly();
            }
            Files.deleteIfExists(outFile);
        }
    }

    private static List<Integer> listeningPorts(final long pid) throws IOException
    {
        final java.util.Set<String> inodes = new java.util.HashSet<>();
        try (java.nio.file.DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "fd")))
        {
            for (final Path fd : fds)
            {
                try
                {
                    final String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:["))
                    {
                        inodes.add(target.substring(8, target.length() - 1));
                    }
                }
                catch (final IOException e)
                {
                    // closed meanwhile
                }
            }
        }
        final List<Integer> ports = new ArrayList<>();
        for (final String table : new String[] {"/proc/net/tcp", "/proc/net/tcp6"})
        {
            for (final String row : Files.readAllLines(Path.of(table)).subList(1, Files.readAllLines(Path.of(table)).size()))
            {
                final String[] f = row.trim().split("\\s+");
                if ("0A".equals(f[3]) && inodes.contains(f[9]))
                {
                    ports.add(Integer.parseInt(f[1].substring(f[1].indexOf(':') + 1), 16));
                }
            }
        }
        return ports;
    }

    @Test
    void aStartFailureLeavesNoEventLoopRunning() throws Exception
    {
        try (ServerSocket busy = new ServerSocket())
        {
            busy.bind(new InetSocketAddress("127.0.0.1", 0));
            final java.util.Set<Thread> before = Thread.getAllStackTraces().keySet();
            final java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
            final int code = Gateway.run(new String[] {"--port", Integer.toString(busy.getLocalPort())},
                new java.io.PrintStream(new java.io.ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new java.io.PrintStream(err, true, StandardCharsets.UTF_8));
            assertEquals(Gateway.EXIT_START, code, err.toString(StandardCharsets.UTF_8));
            // Netty completes a group's termination future from inside its loop thread just before that
            // thread returns, so a loop thread of this run may still be alive for a moment after run()
            // came back: each gets a bounded join, and one still running after it has been left running.
            // Threads that existed before this run (other tests' gateways in this JVM) are not this run's.
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            for (final Thread t : Thread.getAllStackTraces().keySet())
            {
                if (before.contains(t) || !t.getName().startsWith(Gateway.THREAD_PREFIX))
                {
                    continue;
                }
                t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
                assertFalse(t.isAlive(), "event-loop thread left running: " + t.getName());
            }
        }
    }

    private static void assertClearFailure(final Run run, final String named)
    {
        assertNotEquals(-1, run.exitCode(), "the JVM did not exit\n" + run);
        assertNotEquals(0, run.exitCode(), run.toString());
        assertFalse(run.err().contains("\tat "), "a stack trace:\n" + run.err());
        assertFalse(run.err().contains("Exception"), "an exception's name:\n" + run.err());
        assertTrue(run.err().contains(named), "names " + named + ":\n" + run.err());
        assertTrue(run.err().lines().findFirst().orElse("").contains(named),
            "the first line names " + named + ":\n" + run.err());
    }
}
