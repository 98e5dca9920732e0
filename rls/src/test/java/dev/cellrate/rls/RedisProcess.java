package dev.cellrate.rls;

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
 * A real {@code redis-server} on a free loopback port: the Linux x86-64 binary shipped inside the
 * {@code com.github.codemonstur:embedded-redis} jar, extracted and run as a child process.
 */
final class RedisProcess implements AutoCloseable
{
    private static final String EMBEDDED = "/redis-server-6.2.6-v5-linux-amd64";

    final int port;
    private final Process process;

    RedisProcess() throws IOException
    {
        final Path binary = Files.createTempFile("rls-redis-server", "");
        binary.toFile().deleteOnExit();
        try (InputStream in = RedisProcess.class.getResourceAsStream(EMBEDDED))
        {
            if (null == in)
            {
                throw new IOException(EMBEDDED + " not on the test classpath (embedded-redis jar)");
            }
            Files.copy(in, binary, StandardCopyOption.REPLACE_EXISTING);
        }
        if (!binary.toFile().setExecutable(true))
        {
            throw new IOException("cannot make " + binary + " executable");
        }
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            port = socket.getLocalPort();
        }
        process = new ProcessBuilder(List.of(binary.toString(), "--port", Integer.toString(port), "--bind",
            "127.0.0.1", "--save", "", "--appendonly", "no", "--protected-mode", "no", "--loglevel", "warning"))
            .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true)
        {
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port))
            {
                return;
            }
            catch (final IOException ex)
            {
                if (!process.isAlive() || System.nanoTime() > deadline)
                {
                    process.destroyForcibly();
                    throw new IOException("redis-server did not start on " + port, ex);
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
    }

    String uri()
    {
        return "redis://127.0.0.1:" + port;
    }

    public void close() throws InterruptedException
    {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }
}
