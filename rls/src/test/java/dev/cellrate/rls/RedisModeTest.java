package dev.cellrate.rls;

import dev.cellrate.redis.RedisServer;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static dev.cellrate.rls.Rls.d;
import static dev.cellrate.rls.Rls.withHits;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code --redis}: two replicas of the service share one real redis-server.
 */
class RedisModeTest
{
    private static final String CONFIG =
        "domain: d\ndescriptors:\n" +
        "  - key: k\n    rate_limit:\n      unit: hour\n      requests_per_unit: 10\n" +
        "  - key: u\n    rate_limit:\n      unlimited: true\n" +
        "  - key: s\n    shadow_mode: true\n    rate_limit:\n      unit: hour\n      requests_per_unit: 1\n";

    @Test
    void twoReplicasShareOneLimitThroughRedis() throws Exception
    {
        try (RedisServer redis = RedisServer.start())
        {
            final Path directory = Files.createTempDirectory("rls-config");
            Files.writeString(directory.resolve("c.yaml"), CONFIG, StandardCharsets.UTF_8);
            final RlsServer.Options options = Rls.options(directory);
            options.redisUri = redis.url();
            options.redisTimeoutMs = 2_000;
            try (Rls one = new Rls(options, null); Rls two = new Rls(options, null))
            {
                int admitted = 0;
                for (int i = 0; i < 8; i++)
                {
                    admitted += Code.OK == one.call("d", d("k", "shared")).getOverallCode() ? 1 : 0;
                    admitted += Code.OK == two.call("d", d("k", "shared")).getOverallCode() ? 1 : 0;
                }
                assertEquals(10, admitted, "10 per hour across both replicas");
                final RateLimitResponse over = one.call("d", d("k", "shared"));
                assertEquals(Code.OVER_LIMIT, over.getOverallCode());
                assertEquals(10, over.getStatuses(0).getCurrentLimit().getRequestsPerUnit());
                final RateLimitResponse fresh = two.call("d", d("k", "other"));
                assertEquals(9, fresh.getStatuses(0).getLimitRemaining());
                assertTrue(fresh.getStatuses(0).getDurationUntilReset().getSeconds() >= 359);

                assertEquals(Code.OK, one.call("d", withHits(d("k", "other"), 0)).getOverallCode(),
                    "a check of one permit");
                assertEquals(9, one.call("d", withHits(d("k", "other"), 0)).getStatuses(0).getLimitRemaining(),
                    "a check charges nothing");
                assertEquals(Code.OVER_LIMIT, one.call("d", withHits(d("k", "other"), 11)).getOverallCode());
                assertEquals(20, one.admitted(20, "d", d("u", "x")), "unlimited never reaches Redis");
                assertEquals(3, two.admitted(3, "d", d("s", "x")), "shadow mode answers OK");
                assertEquals(2, two.server.service().stats().get("d.s").shadowMode.sum());
            }
        }
    }
}
