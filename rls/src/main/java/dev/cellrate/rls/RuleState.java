package dev.cellrate.rls;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.http.RateLimitFields;
import dev.cellrate.redis.MicrosLimit;
import dev.cellrate.rls.config.RateLimitRule;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;

import java.util.concurrent.TimeUnit;

/**
 * What deciding one rule needs: its GCRA {@link Limit} ({@code requests_per_unit} per {@code units x unit}, a
 * bucket of {@code burst}), the front that holds its state (an embedded keyed table, or Redis; the fixed-window
 * mode keeps its cells in {@link FixedWindowDecider}; Redis keeps them under the rule's key prefix), and its header writer. A reload keeps the state of a
 * rule whose limit is unchanged by keeping this object.
 */
final class RuleState
{
    final RateLimitRule rule;
    /** The GCRA limit, or null when the rule admits nothing ({@code requests_per_unit: 0}) or is unlimited. */
    final Limit limit;
    final long windowNs;
    /** The embedded table (GCRA mode; in Redis mode, the local cells of the LOCAL fail policy), or null. */
    final KeyedRateLimiter gcra;
    /** The limit rounded for Redis (Redis mode), or null. */
    final MicrosLimit redis;
    final RateLimitFields fields;
    /** The answer's {@code current_limit} of this rule, built once (null for an unlimited rule). */
    final RateLimitResponse.RateLimit currentLimit;
    /** {@link #currentLimit}'s wire bytes (for {@link WireAnswer}), or null. */
    final byte[] currentLimitBytes;

    RuleState(final RateLimitRule rule, final KeyedRateLimiter gcra, final MicrosLimit redis)
    {
        this.rule = rule;
        this.limit = limitOf(rule);
        this.windowNs = rule.unlimited() ? 0 : TimeUnit.SECONDS.toNanos(rule.windowSeconds());
        this.gcra = gcra;
        this.redis = redis;
        this.fields = null == limit ? null : new RateLimitFields(policyName(rule), limit);
        this.currentLimit = currentLimit(rule);
        this.currentLimitBytes = null == currentLimit ? null : currentLimit.toByteArray();
    }

    private static RateLimitResponse.RateLimit currentLimit(final RateLimitRule rule)
    {
        if (null == rule.unit())
        {
            return null; // unlimited: answered without a current_limit
        }
        final RateLimitResponse.RateLimit.Builder limit = RateLimitResponse.RateLimit.newBuilder()
            .setRequestsPerUnit((int)Math.min(rule.requestsPerUnit(), 0xFFFF_FFFFL))
            .setUnit(rule.unit().proto());
        if (null != rule.name())
        {
            limit.setName(rule.name());
        }
        return limit.build();
    }

    /**
     * @param rule a rule.
     * @return its GCRA limit, or null if it has none (unlimited, or 0 requests).
     */
    static Limit limitOf(final RateLimitRule rule)
    {
        if (rule.unlimited() || 0 == rule.requestsPerUnit())
        {
            return null;
        }
        return Limit.of(rule.requestsPerUnit(), rule.windowSeconds(), TimeUnit.SECONDS, rule.burst());
    }

    /**
     * @return the capacity the statistics measure near_limit against.
     */
    long capacity()
    {
        return null == limit ? 0 : limit.burst();
    }

    private static String policyName(final RateLimitRule rule)
    {
        final String raw = null != rule.name() ? rule.name() : rule.fullKey();
        final StringBuilder b = new StringBuilder();
        for (int i = 0; i < raw.length() && b.length() < RateLimitFields.MAX_NAME_LENGTH; i++)
        {
            final char c = raw.charAt(i);
            b.append(c >= 0x20 && c <= 0x7E ? c : '_');
        }
        return b.length() == 0 ? "limit" : b.toString();
    }
}
