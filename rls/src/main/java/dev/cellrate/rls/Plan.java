package dev.cellrate.rls;

import dev.cellrate.rls.config.RateLimitRule;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;

/**
 * One request's descriptors, resolved: per descriptor its rule (null: no limit), counter identity, hits and,
 * once decided, its outcome. Built by the service, filled by a {@link Decider}.
 */
final class Plan
{
    final RateLimitRequest request;
    final int count;
    final long nowNs;
    final RateLimitRule[] rules;
    final RuleState[] states;
    final RuleStats[] stats;
    final long[] keys;
    final String[] keyTexts;
    final long[] hits;
    final boolean[] unlimited;
    /** Per descriptor: true if its hits are a refund ({@code is_negative_hits}), given back, never charged. */
    final boolean[] refund;

    /** Outcome per descriptor: true if over the limit (before any shadow mode). */
    final boolean[] over;
    /** Remaining permits per descriptor after the decision. */
    final long[] remaining;
    /** ns until the descriptor's limit is back to full (GCRA) or its window ends (fixed window). */
    final long[] resetNs;

    Plan(final RateLimitRequest request, final long nowNs)
    {
        this.request = request;
        this.count = request.getDescriptorsCount();
        this.nowNs = nowNs;
        this.rules = new RateLimitRule[count];
        this.states = new RuleState[count];
        this.stats = new RuleStats[count];
        this.keys = new long[count];
        this.keyTexts = new String[count];
        this.hits = new long[count];
        this.unlimited = new boolean[count];
        this.refund = new boolean[count];
        this.over = new boolean[count];
        this.remaining = new long[count];
        this.resetNs = new long[count];
    }

    /**
     * @param i a descriptor.
     * @return true if the descriptor has a limit to decide (a rule that is not unlimited).
     */
    boolean limited(final int i)
    {
        return null != rules[i] && !unlimited[i];
    }

    /**
     * @param i a descriptor.
     * @return true if the descriptor is decided (limited, and not a refund).
     */
    boolean decided(final int i)
    {
        return limited(i) && !refund[i];
    }

    /**
     * @param i a descriptor.
     * @return true if the descriptor gives hits back to a limit (limited, a refund of at least one hit).
     */
    boolean refunds(final int i)
    {
        return limited(i) && refund[i] && hits[i] > 0 && null != states[i].limit;
    }
}
