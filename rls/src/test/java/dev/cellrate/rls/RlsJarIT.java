package dev.cellrate.rls;

import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import dev.cellrate.stat.StatKind;
import dev.cellrate.stat.StatReader;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.cellrate.rls.Rls.d;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shaded jar runs with {@code java -jar} and no JVM flag, answers over gRPC, and writes its statistics to
 * the file another process reads.
 */
class RlsJarIT
{
    @Test
    void theJarRunsWithNoJvmFlagAndAnswers() throws Exception
    {
        final Path directory = Files.createTempDirectory("rls-config");
        Files.writeString(directory.resolve("c.yaml"),
            "domain: d\ndescriptors:\n  - key: k\n    rate_limit:\n      unit: hour\n      requests_per_unit: 2\n",
            StandardCharsets.UTF_8);
        final Path stats = Files.createTempDirectory("rls-stats");
        final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        final Process process = new ProcessBuilder(List.of(java, "-jar", System.getProperty("rls.jar"),
            "--config", directory.toString(), "--grpc-port", "0", "--http-port", "-1", "--bind", "127.0.0.1",
            "--stat-dir", stats.toString()))
            .redirectErrorStream(true).start();
        try
        {
            final BufferedReader out =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            final Pattern started = Pattern.compile("gRPC on (\\d+),");
            int port = -1;
            final StringBuilder seen = new StringBuilder();
            for (String line = out.readLine(); null != line; line = out.readLine())
            {
                seen.append(line).append('\n');
                final Matcher m = started.matcher(line);
                if (m.find())
                {
                    port = Integer.parseInt(m.group(1));
                    break;
                }
            }
            assertTrue(port > 0, "no start line in:\n" + seen);
            final ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
            try
            {
                final RateLimitServiceGrpc.RateLimitServiceBlockingStub stub = RateLimitServiceGrpc.newBlockingStub(channel);
                int ok = 0;
                for (int i = 0; i < 3; i++)
                {
                    ok += RateLimitResponse.Code.OK ==
                        stub.shouldRateLimit(Rls.request("d", 0, d("k", "v"))).getOverallCode() ? 1 : 0;
                }
                assertEquals(2, ok);
                // the service process's statistics, read from its file by this process
                try (StatReader reader = StatReader.open(stats, 5_000))
                {
                    assertEquals(Map.of(StatKind.TOTAL_HITS, 3L, StatKind.OVER_LIMIT, 1L,
                        StatKind.NEAR_LIMIT, 1L, StatKind.WITHIN_LIMIT, 2L, StatKind.SHADOW_MODE, 0L),
                        StatDirTest.hits(reader, "rls d.k"));
                    assertEquals(process.pid(), reader.pid());
                }
            }
            finally
            {
                channel.shutdownNow();
            }
        }
        finally
        {
            process.destroy();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
