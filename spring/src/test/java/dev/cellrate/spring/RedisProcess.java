package dev.cellrate.spring;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code redis-server} for the tests: the Linux x86-64 binary (Redis 6.2) shipped inside the
 * {@code com.github.codemonstur:embedded-redis} jar, extracted and started on a free loopback port.
 */
final class RedisProcess implements AutoCloseable
{
    private static final String EMBEDDED = "/redis-server-6.2.6-v5-linux-amd64";

    final int port;
    private final Process process;

    private RedisProcess(final int port, final Process process)
    {
        this.port = port;
        this.process = process;
    }

    static RedisProcess start() throws IOException, InterruptedException
    {
        final Path binary = Files.createTempFile("cellrate-spring-redis", "");
        binary.toFile().deleteOnExit();
        try (InputStream in = RedisProcess.class.getResourceAsStream(EMBEDDED))
        {
            if (null == in)
            {
                throw new IOException(EMBEDDED + " is not on the test class path (embedded-redis jar)");
            }
            Files.copy(in, binary, StandardCopyOption.REPLACE_EXISTING);
        }
        if (!binary.toFile().setExecutable(true))
        {
            throw new IOException("cannot make " + binary + " executable");
        }
        final int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress()))
        {
            port = s.getLocalPort();
        }
        final Process process = new ProcessBuilder(List.of(binary.toString(), "--port", String.valueOf(port),
            "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")).redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline)
        {
            try (Socket socket = new Socket())
            {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return new RedisProcess(port, process);
            }
            catch (final IOException ex)
            {
                Thread.sleep(50);
            }
        }
        process.destroyForcibly();
        throw new IOException("redis-server did not listen on " + port + " within 20 s");
    }

    String uri()
    {
        return "redis://127.0.0.1:" + port;
    }

    public void close() throws InterruptedException
    {
        process.destroy();
        if (!process.waitFor(5, TimeUnit.SECONDS))
        {
            process.destroyForcibly();
        }
    }
}
