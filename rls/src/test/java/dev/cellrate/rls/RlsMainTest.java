package dev.cellrate.rls;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RlsMainTest
{
    @Test
    void aBadConfigurationStopsTheStartWithFileLineAndField(@TempDir final Path dir) throws Exception
    {
        Files.writeString(dir.resolve("edge.yaml"),
            "domain: d\ndescriptors:\n  - key: a\n    rate_limit:\n      unit: second\n      requests_per_unit: x\n");
        final PrintStream err = System.err;
        final ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        final int code;
        try
        {
            code = new CommandLine(new RlsMain()).execute(
                "--config", dir.toString(), "--grpc-port", "0", "--http-port", "-1", "--bind", "127.0.0.1");
        }
        finally
        {
            System.setErr(err);
        }
        assertEquals(2, code);
        final String message = captured.toString(StandardCharsets.UTF_8);
        assertTrue(message.contains("edge.yaml:6: descriptors[0].rate_limit.requests_per_unit: 'x' must be an integer"),
            message);
    }

    @Test
    void aBadOptionIsNamed()
    {
        final StringWriter err = new StringWriter();
        final int code = new CommandLine(new RlsMain()).setErr(new PrintWriter(err))
            .execute("--config", "/nonexistent", "--grpc-port", "eighty");
        assertEquals(2, code);
        assertTrue(err.toString().contains("--grpc-port"), err.toString());
    }

    @Test
    void aBreakerSettingOutOfRangeIsNamedWithItsRangeBeforeRedisIsAsked(@TempDir final Path dir) throws Exception
    {
        Files.writeString(dir.resolve("ok.yaml"),
            "domain: d\ndescriptors:\n  - key: a\n    rate_limit:\n      unit: second\n      requests_per_unit: 1\n");
        final PrintStream err = System.err;
        final ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        final int code;
        try
        {
            code = new CommandLine(new RlsMain()).execute("--config", dir.toString(), "--grpc-port", "0",
                "--http-port", "-1", "--bind", "127.0.0.1", "--redis", "redis://127.0.0.1:1",
                "--redis-breaker-window-calls", "10", "--redis-breaker-minimum-calls", "11");
        }
        finally
        {
            System.setErr(err);
        }
        assertEquals(2, code);
        final String message = captured.toString(StandardCharsets.UTF_8);
        assertTrue(message.contains("--redis-breaker-minimum-calls must be in [1, 10] but was 11"), message);
    }
}
