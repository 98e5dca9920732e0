package dev.cellrate.examples.gateway;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Clients that reset their connections (SO_LINGER 0), as load generators do at the end of a run: no stack
 * trace and no "reached the tail of the pipeline" warning, from Netty's log or the gateway's stderr.
 */
final class ClientResetTest
{
    @Test
    void resetsAreQuiet() throws Exception
    {
        final List<LogRecord> records = new ArrayList<>();
        final Handler capture = new Handler()
        {
            public void publish(final LogRecord record)
            {
                synchronized (records)
                {
                    records.add(record);
                }
            }

            public void flush()
            {
            }

            public void close()
            {
            }
        };
        capture.setLevel(Level.ALL);
        final Logger root = Logger.getLogger("");
        root.addHandler(capture);
        final PrintStream err = System.err;
        final ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try (TestGateway gateway = new TestGateway(1_000_000))
        {
            for (int i = 0; i < 20; i++)
            {
                final RawHttp client = new RawHttp("127.0.6." + (1 + i), gateway.port);
                client.send(RawHttp.get("/a") + RawHttp.get("/b") + RawHttp.get("/c"));
                if (0 == (i & 1))
                {
                    client.read(); // some responses in flight, unread, when the reset comes
                }
                client.reset();
            }
            try (RawHttp client = new RawHttp("127.0.6.100", gateway.port))
            {
                assertEquals(200, client.send(RawHttp.get("/")).read().status(), "still serving");
            }
            assertEquals(0, gateway.awaitBackendConnections(0), "backend connections left open");
        }
        finally
        {
            System.setErr(err);
            root.removeHandler(capture);
        }
        final String stderr = captured.toString(StandardCharsets.UTF_8);
        synchronized (records)
        {
            for (final LogRecord r : records)
            {
                final String message = String.valueOf(r.getMessage());
                assertFalse(message.contains("reached the tail of the pipeline"), message);
                assertTrue(null == r.getThrown() || r.getLevel().intValue() < Level.INFO.intValue(),
                    "a stack trace logged at " + r.getLevel() + ": " + message);
            }
        }
        assertFalse(stderr.contains("\tat "), "a stack trace on stderr:\n" + stderr);
        assertFalse(stderr.contains("reached the tail"), stderr);
        assertTrue(stderr.lines().count() <= 20, "at most one line per reset:\n" + stderr);
    }
}
