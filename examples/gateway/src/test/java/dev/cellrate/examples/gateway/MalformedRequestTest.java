package dev.cellrate.examples.gateway;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Malformed requests, each sent as raw bytes over a real socket: the gateway answers 400 (431 / 414 for a
 * head too large, 505 for another major HTTP version), closes the connection, and the backend sees nothing. The list is the point: add to it.
 */
final class MalformedRequestTest
{
    static Stream<Arguments> malformed()
    {
        return Stream.of(
            Arguments.of("garbage request line", "\u0001\u0002garbage\r\n\r\n", 400),
            Arguments.of("request line of one word", "GARBAGE\r\nHost: x\r\n\r\n", 400),
            Arguments.of("unknown HTTP version", "GET / HTTP/7.3\r\nHost: x\r\n\r\n", 505),
            Arguments.of("header without a colon", "GET / HTTP/1.1\r\nHost: x\r\nNoColonHere\r\n\r\n", 400),
            Arguments.of("NUL in a header value", "GET / HTTP/1.1\r\nHost: x\r\nX-A: a\u0000b\r\n\r\n", 400),
            Arguments.of("NUL in a header name", "GET / HTTP/1.1\r\nHost: x\r\nX-\u0000A: b\r\n\r\n", 400),
            Arguments.of("space before the colon", "GET / HTTP/1.1\r\nHost: x\r\nX-A : b\r\n\r\n", 400),
            Arguments.of("20 KB header", "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + "a".repeat(20_000) + "\r\n\r\n", 431),
            Arguments.of("20 KB request line", "GET /" + "a".repeat(20_000) + " HTTP/1.1\r\nHost: x\r\n\r\n", 414),
            Arguments.of("Content-Length: abc", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n", 400),
            Arguments.of("negative Content-Length", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", 400),
            Arguments.of("two different Content-Lengths",
                "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", 400),
            Arguments.of("Content-Length with chunked",
                "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformed")
    void isRefusedAndClosed(final String name, final String request, final int status) throws Exception
    {
        try (TestGateway gateway = new TestGateway(100);
             RawHttp client = new RawHttp("127.0.5.1", gateway.port))
        {
            final RawHttp.Response response = client.send(request).read();
            assertNotNull(response, "an answer, not a silent close");
            assertEquals(status, response.status());
            assertEquals("close", response.header("connection"));
            assertTrue(client.closedByPeer(), "the connection is closed");
            assertEquals(0, gateway.backendRequests.get(), "the backend saw nothing");
        }
    }

    @ParameterizedTest(name = "{0}, behind two good requests")
    @MethodSource("malformed")
    void isAnsweredAfterTheResponsesOwedBeforeIt(final String name, final String request, final int status)
        throws Exception
    {
        try (TestGateway gateway = new TestGateway(100);
             RawHttp client = new RawHttp("127.0.5.2", gateway.port))
        {
            client.send(RawHttp.get("/1") + RawHttp.get("/2") + request);
            assertEquals(200, client.read().status());
            assertEquals(200, client.read().status());
            final RawHttp.Response response = client.read();
            assertNotNull(response, "an answer, not a silent close");
            assertEquals(status, response.status());
            assertTrue(client.closedByPeer(), "the connection is closed");
            assertEquals(2, gateway.backendRequests.get(), "the backend saw the two good requests only");
        }
    }

    /** A body declared larger than the gateway relays is refused before any of it is read or allocated. */
    @org.junit.jupiter.api.Test
    void aHugeDeclaredBodyIsRefusedWithoutReadingIt() throws Exception
    {
        try (TestGateway gateway = new TestGateway(100);
             RawHttp client = new RawHttp("127.0.5.3", gateway.port))
        {
            final RawHttp.Response response =
                client.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 9223372036854775807\r\n\r\nabc").read();
            assertNotNull(response);
            assertEquals(413, response.status());
            assertEquals(0, gateway.backendRequests.get(), "the backend saw nothing");
        }
    }
}
