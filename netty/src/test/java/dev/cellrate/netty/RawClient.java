package dev.cellrate.netty;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A raw HTTP/1.1 client on one TCP connection from a chosen source address (any 127.x.y.z on Linux, or ::1):
 * writes exactly the bytes a test gives it (pipelined requests, PROXY headers, repeated header lines) and
 * reads responses framed by {@code Content-Length}.
 */
final class RawClient implements AutoCloseable
{
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    /** One response: the status, the head as received and the body. */
    record Response(int status, String head, String body)
    {
        /** @return the first value of the header, or null. */
        String header(final String name)
        {
            final String want = name.toLowerCase(Locale.ROOT) + ":";
            for (final String line : head.split("\r\n"))
            {
                if (line.toLowerCase(Locale.ROOT).startsWith(want))
                {
                    return line.substring(want.length()).trim();
                }
            }
            return null;
        }
    }

    /**
     * @param source the source address to bind before connecting, or null for the system's choice.
     * @param host   the server's address.
     * @param port   the server's port.
     */
    RawClient(final String source, final String host, final int port) throws IOException
    {
        socket = new Socket();
        if (null != source)
        {
            socket.bind(new InetSocketAddress(source, 0));
        }
        socket.connect(new InetSocketAddress(host, port), 5_000);
        socket.setSoTimeout(10_000);
        socket.setTcpNoDelay(true);
        in = socket.getInputStream();
        out = socket.getOutputStream();
    }

    /** One GET on a fresh connection from {@code source}: the status. */
    static int get(final String source, final String host, final int port, final String path, final String... headerLines)
        throws IOException
    {
        try (RawClient client = new RawClient(source, host, port))
        {
            client.write(request(path, headerLines));
            return client.read().status();
        }
    }

    /** A GET request with the given header lines ("Name: value"), each written as its own field line. */
    static String request(final String path, final String... headerLines)
    {
        final StringBuilder b = new StringBuilder("GET ").append(path).append(" HTTP/1.1\r\nHost: x\r\n");
        for (final String line : headerLines)
        {
            b.append(line).append("\r\n");
        }
        return b.append("\r\n").toString();
    }

    void write(final String ascii) throws IOException
    {
        write(ascii.getBytes(StandardCharsets.ISO_8859_1));
    }

    void write(final byte[] bytes) throws IOException
    {
        out.write(bytes);
        out.flush();
    }

    /** Shut down the sending side (the server sees end of input). */
    void shutdownOutput() throws IOException
    {
        socket.shutdownOutput();
    }

    Response read() throws IOException
    {
        final StringBuilder head = new StringBuilder();
        while (head.length() < 4 || !"\r\n\r\n".contentEquals(head.subSequence(head.length() - 4, head.length())))
        {
            final int c = in.read();
            if (c < 0)
            {
                throw new IOException("connection closed after " + head.length() + " bytes of a head: " + head);
            }
            head.append((char)c);
        }
        final Response r = new Response(Integer.parseInt(head.substring(9, 12)), head.toString(), "");
        final String length = r.header("content-length");
        if (null == length)
        {
            throw new IOException("no content-length: " + head);
        }
        final byte[] body = in.readNBytes(Integer.parseInt(length));
        return new Response(r.status(), r.head(), new String(body, StandardCharsets.ISO_8859_1));
    }

    List<Response> read(final int n) throws IOException
    {
        final List<Response> responses = new ArrayList<>(n);
        for (int i = 0; i < n; i++)
        {
            responses.add(read());
        }
        return responses;
    }

    /** @return true iff the server closed the connection (end of input) with nothing more to read. */
    boolean closedByServer() throws IOException
    {
        return in.read() < 0;
    }

    /** Close with a reset (SO_LINGER 0): the server's next write to the connection fails. */
    void resetAndClose() throws IOException
    {
        socket.setSoLinger(true, 0);
        socket.close();
    }

    public void close() throws IOException
    {
        socket.close();
    }
}
