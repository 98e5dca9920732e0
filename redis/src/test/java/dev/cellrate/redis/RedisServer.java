package dev.cellrate.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code redis-server} for the tests, started as a child process on a free loopback port.
 * <p>
 * By default the Linux x86-64 binary (Redis 6.2) that {@code com.github.codemonstur:embedded-redis} ships
 * inside its jar is extracted and run: no install step. The system property {@code cellrate.redis.server} or
 * the environment variable {@code CELLRATE_REDIS_SERVER} names another binary instead, e.g. Debian's
 * {@code /usr/bin/redis-server} (7.0): {@code mvn -pl redis -am verify -Dcellrate.redis.server=/usr/bin/redis-server}.
 * The tests stop and restart the server themselves, so they need a binary, not just an address.
 * <p>
 * The module publishes this class in its test jar ({@code cellrate-redis}, classifier {@code tests}): the tests of
 * the other modules that talk to Redis start their server with it too, and also need the embedded-redis jar
 * (test scope) on their class path.
 */
public final class RedisServer implements AutoCloseable
{
    private static final String EMBEDDED = "/redis-server-6.2.6-v5-linux-amd64";
    private static Path binary;
    private static int majorVersion;

    /** The loopback port the server listens on (chosen free before it starts). */
    public final int port;
    private Process process;

    private RedisServer(final int port)
    {
        this.port = port;
    }

    /** Starts a server on a free loopback port and returns once it accepts connections. */
    public static RedisServer start() throws IOException
    {
        final RedisServer server = new RedisServer(freePort());
        server.launch();
        return server;
    }

    /** A server on a free port that is not started yet: {@link #launch()} starts it. */
    public static RedisServer unstarted() throws IOException
    {
        return new RedisServer(freePort());
    }

    /** The {@code redis-server} binary the servers run: the configured one, else the extracted embedded one. */
    public static synchronized Path binary() throws IOException
    {
        if (null != binary)
        {
            return binary;
        }
        String configured = System.getProperty("cellrate.redis.server");
        if (null == configured || configured.isBlank())
        {
            configured = System.getenv("CELLRATE_REDIS_SERVER");
        }
        if (null != configured && !configured.isBlank())
        {
            binary = Path.of(configured);
            return binary;
        }
        final Path file = Files.createTempFile("cellrate-redis-server", "");
        file.toFile().deleteOnExit();
        try (InputStream in = RedisServer.class.getResourceAsStream(EMBEDDED))
        {
            if (null == in)
            {
                throw new IOException(EMBEDDED + " not on the test classpath (embedded-redis jar)");
            }
            Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
        }
        if (!file.toFile().setExecutable(true))
        {
            throw new IOException("cannot make " + file + " executable");
        }
        binary = file;
        return binary;
    }

    private static int freePort() throws IOException
    {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            return socket.getLocalPort();
        }
    }

    /** The server's major version, from {@code redis-server --version} ("Redis server v=7.0.15 ..."). */
    public static synchronized int majorVersion() throws IOException
    {
        if (0 == majorVersion)
        {
            final Process p = new ProcessBuilder(binary().toString(), "--version").redirectErrorStream(true).start();
            final String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            final java.util.regex.Matcher m = java.util.regex.Pattern.compile("v=(\\d+)\\.").matcher(out);
            majorVersion = m.find() ? Integer.parseInt(m.group(1)) : 6;
        }
        return majorVersion;
    }

    /** Starts the server (again, after {@link #stop()}) on its port and returns once it accepts connections. */
    public synchronized void launch() throws IOException
    {
        final List<String> command = new java.util.ArrayList<>(List.of(binary().toString(),
            "--port", Integer.toString(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
            "--daemonize", "no", "--protected-mode", "no", "--loglevel", "warning"));
        if (majorVersion() >= 7)
        {
            command.addAll(List.of("--enable-debug-command", "local")); // DEBUG SLEEP is off by default since 7.0
        }
        process = new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline)
        {
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port))
            {
                return;
            }
            catch (final IOException ex)
            {
                if (!process.isAlive())
                {
                    throw new IOException("redis-server exited with " + process.exitValue());
                }
                try
                {
                    Thread.sleep(20);
                }
                catch (final InterruptedException ie)
                {
                    Thread.currentThread().interrupt();
                    throw new IOException(ie);
                }
            }
        }
        process.destroyForcibly();
        process = null;
        throw new IOException("redis-server did not listen on " + port);
    }

    /** Kills the server (a crash, as far as clients can tell); {@link #launch()} starts it again, empty. */
    public synchronized void stop() throws InterruptedException
    {
        if (null != process)
        {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
            process = null;
        }
    }

    /** This server's URI with a 5 s command timeout. */
    public RedisURI uri()
    {
        return RedisURI.builder().withHost("127.0.0.1").withPort(port).withTimeout(Duration.ofSeconds(5)).build();
    }

    /** This server's address as a URI string, {@code redis://127.0.0.1:<port>}, for configuration properties. */
    public String url()
    {
        return "redis://127.0.0.1:" + port;
    }

    /** A client for this server that rejects commands while disconnected (a fault is seen at once). */
    public RedisClient client()
    {
        final RedisClient client = RedisClient.create(uri());
        client.setOptions(ClientOptions.builder()
            .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
            .build());
        return client;
    }

    public static StatefulRedisConnection<byte[], byte[]> connect(final RedisClient client)
    {
        return client.connect(ByteArrayCodec.INSTANCE);
    }

    public void close() throws InterruptedException
    {
        stop();
    }
}
