package dev.cellrate.rls;

import dev.cellrate.Decision;
import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Result;
import dev.cellrate.KeyedCompositeRateLimiter;
import dev.cellrate.rls.config.RateLimitRule;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;

import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Embedded GCRA: one {@link KeyedRateLimiter} per rule, keyed by the descriptor's 64-bit identity
 * ({@link DescriptorKey}): an off-heap table sized for {@code keysPerRule} descriptors, or for one when every
 * entry on the rule's path has an explicit value (one descriptor can match it). A table that is full refuses
 * a new descriptor (the engine's fail-closed policy) until idle ones are reclaimed.
 * <p>
 * Algorithm, per request:
 * <ul>
 *     <li>a descriptor with hits 0 is a check: {@code peek} of one permit, nothing charged;</li>
 *     <li>a rule of 0 requests refuses; when it or a check refuses (outside shadow mode), no other descriptor is
 *     charged;</li>
 *     <li>a descriptor under {@code shadow_mode} is charged as if enforced, alone, and never rejects the others;</li>
 *     <li>a refund ({@code is_negative_hits}) gives its hits back after the others are decided, and never rejects;</li>
 *     <li>the other descriptors are charged all or nothing: one alone by {@code tryAcquire}; several with equal
 *     hits through a {@link KeyedCompositeRateLimiter} over their rules' limiters (a refused one leaves every
 *     other cell as it was); several with different hits are first all peeked, and charged only if every peek
 *     admits; when a concurrent request still takes a later one's last permits meanwhile, the earlier ones get
 *     their hits back by the engine's keyed refund (counted in {@link #rollbacks()}).</li>
 * </ul>
 * Remaining permits and the time until the bucket is full come from the decision holder for a single
 * descriptor and from peeks for several (the largest cost a peek admits, found by bisection over
 * [0, burst]; the retry-after of a peek of the whole burst).
 */
final class GcraDecider implements Decider
{
    /** Composites each thread keeps (one per combination of rules seen in requests; direct-mapped). */
    static final int COMPOSITES_PER_THREAD = 64;

    private final int keysPerRule;
    private final NanoClock clock;
    private final AtomicLong rollbacks = new AtomicLong();
    private final ThreadLocal<Scratch> scratch = ThreadLocal.withInitial(Scratch::new);

    /** A thread's reused decision holder, composite legs and composites, so a decision allocates nothing. */
    private static final class Scratch
    {
        final Decision decision = new Decision();
        final long[] keys = new long[RlsService.MAX_DESCRIPTORS];
        final KeyedRateLimiter[] limiters = new KeyedRateLimiter[RlsService.MAX_DESCRIPTORS];
        final KeyedCompositeRateLimiter[] composites = new KeyedCompositeRateLimiter[COMPOSITES_PER_THREAD];
    }

    GcraDecider(final int keysPerRule, final NanoClock clock)
    {
        this.keysPerRule = keysPerRule;
        this.clock = null == clock ? SystemNanoClock.INSTANCE : clock;
    }

    public RuleState state(final RateLimitRule rule, final RuleState previous)
    {
        if (null != previous && previous.rule.sameLimit(rule))
        {
            return previous.rule == rule ? previous : new RuleState(rule, previous.gcra, null);
        }
        final RuleState probe = new RuleState(rule, null, null);
        if (null == probe.limit)
        {
            return probe;
        }
        final int keys = rule.oneDescriptor() ? 1 : // a path of explicit values is one descriptor
            rule.fullKey().startsWith(RlsService.OVERRIDE_PREFIX) ? Math.min(keysPerRule, RlsService.MAX_OVERRIDE_KEYS) :
                keysPerRule;
        return new RuleState(rule, KeyedRateLimiter.builder(probe.limit).expectedKeys(keys).clock(clock).build(), null);
    }

    public long nowNs()
    {
        return clock.nanoTime();
    }

    public boolean hashedKeys()
    {
        return true;
    }

    public boolean textKeys()
    {
        return false;
    }

    /**
     * @return multi-descriptor requests with different hits whose later descriptor was refused by a race after
     * every peek admitted, and whose earlier descriptors were given their hits back.
     */
    long rollbacks()
    {
        return rollbacks.get();
    }

    public Map<String, Long> counters(final java.util.Collection<RuleState> states)
    {
        long tableFull = 0;
        long liveKeys = 0;
        for (final RuleState state : states)
        {
            if (null != state.gcra)
            {
                tableFull += state.gcra.tableFullEvents();
                liveKeys += state.gcra.liveKeys();
            }
        }
        return Map.of("cellrate_rls_table_full_events", tableFull, "cellrate_rls_live_descriptors", liveKeys,
            "cellrate_rls_rollbacks", rollbacks.get());
    }

    public void decide(final Plan plan, final Runnable done)
    {
        final int count = plan.count;
        final long nowNs = plan.nowNs;
        int legs = 0;
        long legHits = -1;
        boolean equalHits = true;
        boolean refused = false; // a descriptor outside the legs already refuses the request
        for (int i = 0; i < count; i++)
        {
            if (!plan.decided(i))
            {
                continue;
            }
            final RuleState state = plan.states[i];
            if (null == state.limit)
            {
                plan.over[i] = true; // requests_per_unit: 0 admits nothing
                plan.remaining[i] = 0;
                plan.resetNs[i] = 0;
                refused |= !plan.rules[i].shadowMode();
            }
            else if (0 == plan.hits[i])
            {
                final long code = state.gcra.peek(plan.keys[i], 1, nowNs);
                plan.over[i] = !Result.isAdmitted(code);
                refused |= plan.over[i] && !plan.rules[i].shadowMode();
                fillFromPeeks(plan, i);
            }
            else if (plan.rules[i].shadowMode())
            {
                decideAlone(plan, i);
            }
            else
            {
                legs++;
                if (legHits >= 0 && legHits != plan.hits[i])
                {
                    equalHits = false;
                }
                legHits = plan.hits[i];
            }
        }
        if (refused)
        {
            for (int i = 0; i < count; i++)
            {
                if (isLeg(plan, i))
                {
                    plan.over[i] = !Result.isAdmitted(plan.states[i].gcra.peek(plan.keys[i], plan.hits[i], nowNs));
                    fillFromPeeks(plan, i); // not charged: the request is refused anyway
                }
            }
        }
        else if (1 == legs)
        {
            for (int i = 0; i < count; i++)
            {
                if (isLeg(plan, i))
                {
                    decideAlone(plan, i);
                }
            }
        }
        else if (legs > 1)
        {
            if (equalHits)
            {
                decideComposite(plan, legs, legHits);
            }
            else
            {
                decidePeekThenCharge(plan);
            }
        }
        for (int i = 0; i < count; i++)
        {
            if (plan.refunds(i))
            {
                refund(plan, i);
            }
        }
        done.run();
    }

    /**
     * A refund ({@code is_negative_hits}): the descriptor's cell gets its hits back through the engine's keyed
     * refund, never beyond a full bucket (a descriptor with no cell is a full bucket and gets nothing); then its
     * remaining permits and reset are read as for a decision.
     */
    private static void refund(final Plan plan, final int i)
    {
        plan.states[i].gcra.refund(plan.keys[i], plan.hits[i], plan.nowNs);
        plan.over[i] = false;
        fillFromPeeks(plan, i);
    }

    private static boolean isLeg(final Plan plan, final int i)
    {
        return plan.decided(i) && null != plan.states[i].limit && 0 != plan.hits[i] && !plan.rules[i].shadowMode();
    }

    private void decideAlone(final Plan plan, final int i)
    {
        final Decision decision = scratch.get().decision;
        final long code = plan.states[i].gcra.tryAcquire(plan.keys[i], plan.hits[i], plan.nowNs, decision);
        plan.over[i] = !Result.isAdmitted(code);
        if (Result.NEVER == code || Result.TABLE_FULL == code)
        {
            fillFromPeeks(plan, i);
        }
        else
        {
            plan.remaining[i] = decision.remaining();
            plan.resetNs[i] = decision.resetAfterNs();
        }
    }

    private void decideComposite(final Plan plan, final int legs, final long hits)
    {
        final Scratch s = scratch.get();
        final long[] keys = s.keys;
        final KeyedRateLimiter[] limiters = s.limiters;
        int id = 1;
        int leg = 0;
        for (int i = 0; i < plan.count; i++)
        {
            if (isLeg(plan, i))
            {
                keys[leg] = plan.keys[i];
                limiters[leg] = plan.states[i].gcra;
                id = 31 * id + System.identityHashCode(limiters[leg]);
                leg++;
            }
        }
        final int slot = (id ^ id >>> 16) & (COMPOSITES_PER_THREAD - 1);
        KeyedCompositeRateLimiter composite = s.composites[slot];
        if (null == composite || !sameLegs(composite, limiters, legs))
        {
            composite = new KeyedCompositeRateLimiter(java.util.Arrays.copyOf(limiters, legs));
            s.composites[slot] = composite;
        }
        java.util.Arrays.fill(limiters, 0, legs, null); // the scratch keeps no limiter alive
        final long code = composite.tryAcquire(keys, hits, plan.nowNs);
        final boolean admitted = Result.isAdmitted(code);
        boolean anyOver = false;
        int lastLeg = -1;
        for (int i = 0; i < plan.count; i++)
        {
            if (isLeg(plan, i))
            {
                lastLeg = i;
                if (admitted)
                {
                    plan.over[i] = false;
                }
                else
                {
                    // which descriptors refuse: those whose cost a peek refuses now
                    plan.over[i] = !Result.isAdmitted(plan.states[i].gcra.peek(plan.keys[i], hits, plan.nowNs));
                    anyOver |= plan.over[i];
                }
                fillFromPeeks(plan, i);
            }
        }
        if (!admitted && !anyOver)
        {
            plan.over[lastLeg] = true; // refused by a race that has since cleared: still refused
        }
    }

    private static boolean sameLegs(final KeyedCompositeRateLimiter composite, final KeyedRateLimiter[] limiters,
        final int legs)
    {
        if (composite.legs() != legs)
        {
            return false;
        }
        for (int i = 0; i < legs; i++)
        {
            if (composite.leg(i) != limiters[i])
            {
                return false;
            }
        }
        return true;
    }

    private void decidePeekThenCharge(final Plan plan)
    {
        boolean anyOver = false;
        for (int i = 0; i < plan.count; i++)
        {
            if (isLeg(plan, i))
            {
                plan.over[i] = !Result.isAdmitted(plan.states[i].gcra.peek(plan.keys[i], plan.hits[i], plan.nowNs));
                anyOver |= plan.over[i];
            }
        }
        if (!anyOver)
        {
            for (int i = 0; i < plan.count; i++)
            {
                if (isLeg(plan, i))
                {
                    final long code = plan.states[i].gcra.tryAcquire(plan.keys[i], plan.hits[i], plan.nowNs);
                    plan.over[i] = !Result.isAdmitted(code);
                    if (plan.over[i])
                    {
                        rollBack(plan, i);
                        break;
                    }
                }
            }
        }
        for (int i = 0; i < plan.count; i++)
        {
            if (isLeg(plan, i))
            {
                fillFromPeeks(plan, i);
            }
        }
    }

    /**
     * A concurrent request took descriptor {@code refused}'s last permits between the peeks and the charges: give
     * the descriptors charged before it their hits back (the engine's keyed refund lowers each TAT by exactly what
     * the charge added, never below now), so the refused request takes nothing, and mark the rest not charged.
     */
    private void rollBack(final Plan plan, final int refused)
    {
        rollbacks.incrementAndGet();
        for (int j = 0; j < refused; j++)
        {
            if (isLeg(plan, j))
            {
                plan.states[j].gcra.refund(plan.keys[j], plan.hits[j], plan.nowNs);
            }
        }
        for (int j = refused + 1; j < plan.count; j++)
        {
            if (isLeg(plan, j))
            {
                plan.over[j] = false; // not charged: an earlier descriptor was refused
            }
        }
    }

    /**
     * Remaining = the largest cost a peek admits now (bisection over [0, burst]); reset = the retry-after of a
     * peek of the whole burst (the time until the bucket is full).
     */
    private static void fillFromPeeks(final Plan plan, final int i)
    {
        final KeyedRateLimiter limiter = plan.states[i].gcra;
        final long key = plan.keys[i];
        final long nowNs = plan.nowNs;
        final long burst = plan.states[i].limit.burst();
        long low = 0;
        long high = burst;
        while (low < high)
        {
            final long mid = low + (high - low + 1) / 2;
            if (Result.isAdmitted(limiter.peek(key, mid, nowNs)))
            {
                low = mid;
            }
            else
            {
                high = mid - 1;
            }
        }
        plan.remaining[i] = low;
        final long code = limiter.peek(key, burst, nowNs);
        plan.resetNs[i] = code > 0 ? code : 0;
    }
}
