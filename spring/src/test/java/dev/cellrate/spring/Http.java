package dev.cellrate.spring;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** Real HTTP clients for the tests: the JDK HttpClient, and a raw socket bound to a chosen 127.x source. */
final class Http
{
    static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5)).build();

    private Http()
    {
    }

    static HttpResponse<String> get(final int port, final String path, final String... headers)
    {
        return send("GET", port, path, headers);
    }

    static HttpResponse<String> send(final String method, final int port, final String path, final String... headers)
    {
        final HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(10)).method(method, HttpRequest.BodyPublishers.noBody());
        for (int i = 0; i < headers.length; i += 2)
        {
            b.header(headers[i], headers[i + 1]);
        }
        try
        {
            return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
        }
        catch (final IOException ex)
        {
            throw new AssertionError(ex);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new AssertionError(ex);
        }
    }

    static HttpResponse<String> postJson(final int port, final String path, final String json)
    {
        try
        {
            return CLIENT.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString());
        }
        catch (final IOException ex)
        {
            throw new AssertionError(ex);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new AssertionError(ex);
        }
    }

    /** A response read from a raw socket: status and headers (names lower case). */
    record Raw(int status, Map<String, String> headers)
    {
    }

    /** One GET from the given loopback source address, on a fresh connection. */
    static Raw rawGet(final String sourceAddress, final int port, final String path) throws IOException
    {
        try (Socket socket = new Socket())
        {
            socket.setSoTimeout(10_000);
            socket.bind(new InetSocketAddress(sourceAddress, 0));
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            final OutputStream out = socket.getOutputStream();
            out.write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            final InputStream in = socket.getInputStream();
            final ByteArrayOutputStream all = new ByteArrayOutputStream();
            in.transferTo(all);
            final String text = all.toString(StandardCharsets.ISO_8859_1);
            final String head = text.substring(0, text.indexOf("\r\n\r\n"));
            final String[] lines = head.split("\r\n");
            final Map<String, String> h = new LinkedHashMap<>();
            for (int i = 1; i < lines.length; i++)
            {
                final int colon = lines[i].indexOf(':');
                h.put(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).trim());
            }
            return new Raw(Integer.parseInt(lines[0].split(" ")[1]), h);
        }
    }
}
