package dev.cellrate.spring;

import dev.cellrate.Decision;
import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import dev.cellrate.http.RateLimitFields;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The engine deciding the same sequence as an application under test, on its own table, to say which header
 * values the application must send: "what the engine computes".
 */
final class EngineTwin
{
    private final KeyedRateLimiter limiter;
    private final RateLimitFields fields;
    private final Decision decision = new Decision();
    private final byte[] value = new byte[256];

    EngineTwin(final String policyName, final Limit limit)
    {
        this.limiter = KeyedRateLimiter.builder(limit).expectedKeys(1_000).build();
        this.fields = new RateLimitFields(policyName, limit);
    }

    /** Decide, and return the header fields an enforced response carries (lower-case names). */
    Map<String, String> decide(final String key, final long nowNs)
    {
        final long code = limiter.tryAcquire(key, 1, nowNs, decision);
        final Map<String, String> h = new LinkedHashMap<>();
        if (!Result.isAdmitted(code))
        {
            h.put("retry-after", ascii(RateLimitFields.writeDelaySeconds(decision.retryAfterNs(), value, 0)));
        }
        h.put("ratelimit-policy", ascii(fields.writePolicy(value, 0)));
        h.put("ratelimit", ascii(fields.writeRateLimit(decision, value, 0)));
        return h;
    }

    boolean admitted()
    {
        return decision.admitted();
    }

    long retryAfterNs()
    {
        return decision.retryAfterNs();
    }

    private String ascii(final int length)
    {
        return new String(value, 0, length, StandardCharsets.ISO_8859_1);
    }
}
