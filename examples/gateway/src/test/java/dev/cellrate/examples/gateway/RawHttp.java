package dev.cellrate.examples.gateway;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A raw HTTP/1.1 client over a real TCP socket bound to a chosen source address (any 127.x.y.z on Linux),
 * so a test can be many clients, write bytes no library would send, and see exactly what comes back.
 * Reads are bounded by a socket timeout.
 */
final class RawHttp implements AutoCloseable
{
    static final int READ_TIMEOUT_MS = 5_000;

    /** One parsed response: the status and its headers (lower-cased names). */
    record Response(int status, List<String[]> headers, String body)
    {
        String header(final String name)
        {
            for (final String[] h : headers)
            {
                if (h[0].equals(name))
                {
                    return h[1];
                }
            }
            return null;
        }
    }

    final Socket socket;
    private final InputStream in;

    RawHttp(final String sourceAddress, final int port) throws IOException
    {
        this(sourceAddress, "127.0.0.1", port);
    }

    RawHttp(final String sourceAddress, final String host, final int port) throws IOException
    {
        socket = new Socket();
        socket.bind(new InetSocketAddress(sourceAddress, 0));
        socket.connect(new InetSocketAddress(host, port), READ_TIMEOUT_MS);
        socket.setSoTimeout(READ_TIMEOUT_MS);
        socket.setTcpNoDelay(true);
        in = socket.getInputStream();
    }

    static String get(final String path)
    {
        return "GET " + path + " HTTP/1.1\r\nHost: gateway\r\n\r\n";
    }

    RawHttp send(final String request) throws IOException
    {
        socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
        socket.getOutputStream().flush();
        return this;
    }

    /** @return the next response, or null if the connection closed before a status line. */
    Response read() throws IOException
    {
        final String statusLine = line();
        if (null == statusLine)
        {
            return null;
        }
        final String[] parts = statusLine.split(" ", 3);
        if (parts.length < 2 || !parts[0].startsWith("HTTP/1."))
        {
            throw new IOException("not a status line: " + statusLine);
        }
        final List<String[]> headers = new ArrayList<>();
        int length = 0;
        String h;
        while (null != (h = line()) && !h.isEmpty())
        {
            final int colon = h.indexOf(':');
            final String name = h.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            final String value = h.substring(colon + 1).trim();
            headers.add(new String[] {name, value});
            if ("content-length".equals(name))
            {
                length = Integer.parseInt(value);
            }
        }
        final byte[] body = in.readNBytes(length);
        return new Response(Integer.parseInt(parts[1]), headers, new String(body, StandardCharsets.ISO_8859_1));
    }

    /** @return the statuses of up to {@code n} responses, fewer if the connection closed first. */
    List<Integer> statuses(final int n) throws IOException
    {
        final List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < n; i++)
        {
            final Response r;
            try
            {
                r = read();
            }
            catch (final SocketTimeoutException e)
            {
                throw e;
            }
            catch (final IOException e)
            {
                break; // reset by the peer: no more responses
            }
            if (null == r)
            {
                break;
            }
            statuses.add(r.status());
        }
        return statuses;
    }

    /** @return true if the peer closed the connection (end of stream, or a reset) within the read timeout. */
    boolean closedByPeer() throws IOException
    {
        try
        {
            return -1 == in.read();
        }
        catch (final SocketTimeoutException e)
        {
            return false;
        }
        catch (final IOException e)
        {
            return true; // connection reset: closed too
        }
    }

    private String line() throws IOException
    {
        final ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while (-1 != (c = in.read()))
        {
            if ('\n' == c)
            {
                final byte[] bytes = b.toByteArray();
                final int n = bytes.length > 0 && '\r' == bytes[bytes.length - 1] ? bytes.length - 1 : bytes.length;
                return new String(bytes, 0, n, StandardCharsets.ISO_8859_1);
            }
            b.write(c);
        }
        return 0 == b.size() ? null : b.toString(StandardCharsets.ISO_8859_1);
    }

    /** Closes with a reset (SO_LINGER 0), as a load generator or a crashed client does. */
    void reset() throws IOException
    {
        socket.setSoLinger(true, 0);
        socket.close();
    }

    public void close() throws IOException
    {
        socket.close();
    }
}
