package dev.cellrate.spring;

import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

/** A real HTTP backend on loopback for the gateway to route to; it counts what reaches it. */
final class EchoBackend implements AutoCloseable
{
    final HttpServer server;
    final AtomicLong hits = new AtomicLong();

    EchoBackend() throws IOException
    {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
        server.createContext("/", exchange ->
        {
            hits.incrementAndGet();
            final byte[] body = ("backend " + exchange.getRequestURI().getPath()).getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody())
            {
                out.write(body);
            }
        });
        server.start();
    }

    int port()
    {
        return server.getAddress().getPort();
    }

    public void close()
    {
        server.stop(0);
    }
}
