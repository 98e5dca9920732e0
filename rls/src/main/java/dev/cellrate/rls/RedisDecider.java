package dev.cellrate.rls;

import dev.cellrate.Decision;
import dev.cellrate.Result;
import dev.cellrate.redis.FailPolicy;
import dev.cellrate.redis.RedisRateLimiter;
import dev.cellrate.rls.config.RateLimitRule;
import io.lettuce.core.api.StatefulRedisConnection;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * GCRA in Redis through cellrate-redis: one {@link RedisRateLimiter} per rule over one shared connection, the
 * Redis key {@code prefix + full key + ":" + domain_key_value_...} (the same on every replica). Each limited
 * descriptor costs one asynchronous {@code EVALSHA} on the server's clock; the descriptors of a request go out
 * together on the connection, and the answer is sent when the last comes back. The fail policy applies when
 * Redis does not answer in time.
 * <p>
 * Differences from the embedded mode: descriptors are decided one by one (no all-or-nothing across them);
 * hits 0 (a check) answers OK without asking Redis, remaining and reset unknown (0).
 */
final class RedisDecider implements Decider
{
    private final StatefulRedisConnection<byte[], byte[]> connection;
    private final FailPolicy policy;
    private final String prefix;
    private final long timeoutNs;

    RedisDecider(
        final StatefulRedisConnection<byte[], byte[]> connection, final FailPolicy policy, final String prefix,
        final long timeoutNs)
    {
        this.connection = connection;
        this.policy = policy;
        this.prefix = prefix;
        this.timeoutNs = timeoutNs;
    }

    public RuleState state(final RateLimitRule rule, final RuleState previous)
    {
        if (null != previous && previous.rule.sameLimit(rule))
        {
            return previous.rule == rule ? previous : new RuleState(rule, null, previous.redis);
        }
        final RuleState probe = new RuleState(rule, null, null);
        if (null == probe.limit)
        {
            return probe;
        }
        final RedisRateLimiter limiter = RedisRateLimiter.builder(connection, probe.limit, policy)
            .prefix(prefix + rule.fullKey() + ":")
            .name("rls " + rule.fullKey())
            .timeoutNs(timeoutNs)
            .build();
        return new RuleState(rule, null, limiter);
    }

    public void retire(final RuleState state)
    {
        if (null != state.redis)
        {
            state.redis.close();
        }
    }

    public long nowNs()
    {
        return System.currentTimeMillis() * 1_000_000L;
    }

    public void decide(final Plan plan, final Runnable done)
    {
        final AtomicInteger pending = new AtomicInteger(1);
        for (int i = 0; i < plan.count; i++)
        {
            if (!plan.limited(i))
            {
                continue;
            }
            final RuleState state = plan.states[i];
            if (null == state.limit)
            {
                plan.over[i] = true;
                continue;
            }
            if (0 == plan.hits[i])
            {
                continue;
            }
            final int index = i;
            final Decision decision = new Decision();
            pending.incrementAndGet();
            state.redis.tryAcquireAsync(plan.keyTexts[i], plan.hits[i], decision, code ->
            {
                plan.over[index] = !Result.isAdmitted(code);
                if (Result.ADMITTED == code || code > 0)
                {
                    plan.remaining[index] = decision.remaining();
                    plan.resetNs[index] = decision.resetAfterNs();
                }
                if (0 == pending.decrementAndGet())
                {
                    done.run();
                }
            });
        }
        if (0 == pending.decrementAndGet())
        {
            done.run();
        }
    }
}
