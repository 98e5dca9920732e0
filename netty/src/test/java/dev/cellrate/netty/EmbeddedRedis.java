package dev.cellrate.netty;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code redis-server} as a child process on a free loopback port: the Linux x86-64 binary that
 * {@code com.github.codemonstur:embedded-redis} ships inside its jar (the one cellrate-redis's own tests run),
 * extracted once per JVM; {@code -Dcellrate.redis.server=/path/to/redis-server} names another binary.
 */
final class EmbeddedRedis implements AutoCloseable
{
    private static final String EMBEDDED = "/redis-server-6.2.6-v5-linux-amd64";
    private static Path binary;

    final int port;
    private final Process process;

    private EmbeddedRedis(final int port, final Process process)
    {
        this.port = port;
        this.process = process;
    }

    static EmbeddedRedis start() throws IOException
    {
        final int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            port = socket.getLocalPort();
        }
        final Process process = new ProcessBuilder(List.of(binary().toString(),
            "--port", Integer.toString(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
            "--daemonize", "no", "--protected-mode", "no", "--loglevel", "warning"))
            .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        final EmbeddedRedis redis = new EmbeddedRedis(port, process);
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline)
        {
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port))
            {
                return redis;
            }
            catch (final IOException notYet)
            {
                if (!process.isAlive())
                {
                    throw new IOException("redis-server exited with " + process.exitValue());
                }
                try
                {
                    Thread.sleep(20);
                }
                catch (final InterruptedException e)
                {
                    Thread.currentThread().interrupt();
                    throw new IOException(e);
                }
            }
        }
        redis.close();
        throw new IOException("redis-server did not listen on " + port);
    }

    private static synchronized Path binary() throws IOException
    {
        if (null != binary)
        {
            return binary;
        }
        final String configured = System.getProperty("cellrate.redis.server");
        if (null != configured && !configured.isBlank())
        {
            binary = Path.of(configured);
            return binary;
        }
        final Path file = Files.createTempFile("cellrate-netty-redis-server", "");
        file.toFile().deleteOnExit();
        try (InputStream in = EmbeddedRedis.class.getResourceAsStream(EMBEDDED))
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

    public void close()
    {
        process.destroyForcibly();
        try
        {
            process.waitFor(10, TimeUnit.SECONDS);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }
}
