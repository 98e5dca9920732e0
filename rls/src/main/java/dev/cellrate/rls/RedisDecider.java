package dev.cellrate.rls;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.redis.FailPolicy;
import dev.cellrate.redis.MicrosLimit;
import dev.cellrate.redis.RedisComposite;
import dev.cellrate.rls.config.RateLimitRule;
import org.agrona.concurrent.NanoClock;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * GCRA in Redis, shared by every replica: each descriptor's cell is the Redis key
 * {@code prefix + rule's full key + ":" + domain_key_value_...}, holding its TAT in &micro;s on the server's clock.
 * A request's limited descriptors are decided in one round trip, all or nothing, by a {@link RedisComposite}
 * (one {@code EVALSHA}): the descriptors are charged only if every one conforms, so a refused request takes
 * nothing from any of them, even when other replicas decide the same keys at the same time. As in the embedded
 * mode, hits 0 is a check of one permit that can refuse the others and charges nothing, a rule of 0 requests
 * refuses the request, a {@code shadow_mode} descriptor is charged on its own and never refuses the others, and
 * a refund ({@code is_negative_hits}) gives its hits back in the same call, never beyond a full bucket.
 * <p>
 * Failure: when Redis does not answer within the timeout (or fails), or the circuit breaker is open after too many
 * recent failures (then Redis is not asked and the answer comes at once), the fail policy answers the whole request:
 * {@code OPEN} admits it, {@code CLOSED} refuses it, {@code LOCAL} decides it in this process's own tables, all
 * or nothing as the embedded mode does (each replica then keeps the limits by itself).
 */
final class RedisDecider implements Decider
{
    /** How long a key outlives its TAT, ms. */
    static final long EXTRA_TTL_MS = 1_000;

    private final RedisComposite composite;
    private final FailPolicy policy;
    private final String prefix;
    private final GcraDecider local;

    /**
     * @param composite   the calls to Redis (timeout and circuit breaker).
     * @param policy      who answers when Redis does not.
     * @param prefix      of every key.
     * @param keysPerRule descriptors each rule's local table holds ({@link FailPolicy#LOCAL}).
     * @param clock       the local tables' clock, or null for the system's.
     */
    RedisDecider(final RedisComposite composite, final FailPolicy policy, final String prefix, final int keysPerRule,
        final NanoClock clock)
    {
        this.composite = composite;
        this.policy = policy;
        this.prefix = prefix;
        this.local = FailPolicy.LOCAL == policy ? new GcraDecider(keysPerRule, clock) : null;
    }

    public RuleState state(final RateLimitRule rule, final RuleState previous)
    {
        if (null != previous && previous.rule.sameLimit(rule))
        {
            return previous.rule == rule ? previous : new RuleState(rule, previous.gcra, previous.redis);
        }
        final RuleState probe = new RuleState(rule, null, null);
        if (null == probe.limit)
        {
            return probe;
        }
        final MicrosLimit micros = MicrosLimit.of(probe.limit);
        final KeyedRateLimiter cells = null == local ? null : local.state(rule, null).gcra;
        return new RuleState(rule, cells, micros);
    }

    public boolean synchronous()
    {
        return false; // answers on a Lettuce I/O thread
    }

    public boolean hashedKeys()
    {
        return null != local;
    }

    public boolean textKeys()
    {
        return true;
    }

    public long nowNs()
    {
        return System.currentTimeMillis() * 1_000_000L;
    }

    public Map<String, Long> counters(final java.util.Collection<RuleState> states)
    {
        return Map.of("cellrate_rls_redis_round_trips", composite.roundTrips(),
            "cellrate_rls_redis_failures", composite.failures(),
            "cellrate_rls_redis_script_reloads", composite.scriptReloads(),
            "cellrate_rls_redis_breaker_refusals", composite.breakerRefusals(),
            "cellrate_rls_redis_breaker_openings", composite.breakerOpenings(),
            "cellrate_rls_redis_breaker_open", composite.breakerOpen() ? 1L : 0L);
    }

    public void decide(final Plan plan, final Runnable done)
    {
        boolean refused = false; // a descriptor decided without Redis refuses the request
        for (int i = 0; i < plan.count; i++)
        {
            if (plan.decided(i) && null == plan.states[i].limit)
            {
                plan.over[i] = true; // requests_per_unit: 0 admits nothing
                refused |= !plan.rules[i].shadowMode();
            }
        }
        final RedisComposite.Legs legs = new RedisComposite.Legs(Math.max(1, plan.count)); // count <= MAX_DESCRIPTORS
        final int[] legOf = new int[plan.count];
        for (int i = 0; i < plan.count; i++)
        {
            legOf[i] = -1;
            if (!plan.limited(i) || null == plan.states[i].limit || plan.refund[i] && 0 == plan.hits[i])
            {
                continue;
            }
            final RuleState state = plan.states[i];
            final int mode = plan.refund[i] ? RedisComposite.REFUND : plan.rules[i].shadowMode() ? RedisComposite.ALONE :
                0 == plan.hits[i] || refused ? RedisComposite.CHECK : RedisComposite.CHARGE;
            final long permits = 0 == plan.hits[i] ? 1 : plan.hits[i];
            final byte[] key = (prefix + state.rule.fullKey() + ':' + plan.keyTexts[i]).getBytes(StandardCharsets.UTF_8);
            legOf[i] = legs.add(key, state.redis, permits, mode);
        }
        if (0 == legs.count())
        {
            done.run();
            return;
        }
        composite.decideAsync(legs, answered ->
        {
            if (null != answered.cause())
            {
                fallBack(plan, done);
                return;
            }
            for (int i = 0; i < plan.count; i++)
            {
                final int leg = legOf[i];
                if (leg < 0)
                {
                    continue;
                }
                plan.over[i] = !answered.conforms(leg);
                plan.remaining[i] = answered.remaining(leg);
                plan.resetNs[i] = answered.resetAfterNs(leg);
            }
            done.run();
        });
    }

    private void fallBack(final Plan plan, final Runnable done)
    {
        if (FailPolicy.LOCAL == policy)
        {
            local.decide(plan, done);
            return;
        }
        for (int i = 0; i < plan.count; i++)
        {
            if (plan.decided(i) && null != plan.states[i].limit)
            {
                plan.over[i] = FailPolicy.CLOSED == policy;
                plan.remaining[i] = 0;
                plan.resetNs[i] = 0;
            }
        }
        done.run();
    }
}
