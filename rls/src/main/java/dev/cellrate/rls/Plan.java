package dev.cellrate.rls;

import dev.cellrate.rls.config.RateLimitRule;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;

/**
 * One request's descriptors, resolved: per descriptor its rule (null: no limit), counter identity, hits and,
 * once decided, its outcome. Built by the service, filled by a {@link Decider}. With a {@link Decider} that
 * answers on the calling thread, each thread reuses one plan (sized for the most descriptors a request may hold),
 * so a request allocates none of these arrays.
 */
final class Plan
{
    RateLimitRequest request;
    int count;
    long nowNs;
    final RateLimitRule[] rules;
    final RuleState[] states;
    final RuleStats[] stats;
    final long[] keys;
    final String[] keyTexts;
    final long[] hits;
    final boolean[] unlimited;
    /** Per descriptor: true if its hits are a refund ({@code is_negative_hits}), given back, never charged. */
    final boolean[] refund;
    /** Per descriptor, while resolving: its statistics key. */
    final String[] statsKeys;
    /** Per descriptor, while resolving: the shared wildcard values of its entries, or null. */
    final String[][] shared;

    /** Outcome per descriptor: true if over the limit (before any shadow mode). */
    final boolean[] over;
    /** Remaining permits per descriptor after the decision. */
    final long[] remaining;
    /** ns until the descriptor's limit is back to full (GCRA) or its window ends (fixed window). */
    final long[] resetNs;
    /** The matcher's scratch, while resolving. */
    final dev.cellrate.rls.config.RlsConfig.Match match = new dev.cellrate.rls.config.RlsConfig.Match();
    /** The descriptor hasher's scratch, while resolving. */
    final DescriptorKey.Sip sip = new DescriptorKey.Sip();
    /** True while a request uses this plan (a reused plan is taken by one request at a time). */
    boolean inUse;

    Plan(final RateLimitRequest request, final long nowNs)
    {
        this(request.getDescriptorsCount());
        reset(request, nowNs);
    }

    /**
     * An empty plan for up to {@code capacity} descriptors, to be {@link #reset} for each request.
     *
     * @param capacity most descriptors.
     */
    Plan(final int capacity)
    {
        this.rules = new RateLimitRule[capacity];
        this.states = new RuleState[capacity];
        this.stats = new RuleStats[capacity];
        this.keys = new long[capacity];
        this.keyTexts = new String[capacity];
        this.hits = new long[capacity];
        this.unlimited = new boolean[capacity];
        this.refund = new boolean[capacity];
        this.statsKeys = new String[capacity];
        this.shared = new String[capacity][];
        this.over = new boolean[capacity];
        this.remaining = new long[capacity];
        this.resetNs = new long[capacity];
    }

    /**
     * Take the plan for a request: every per-descriptor entry back to its initial value.
     *
     * @param request the request (at most the plan's capacity of descriptors).
     * @param nowNs   its time.
     * @return this plan.
     */
    Plan reset(final RateLimitRequest request, final long nowNs)
    {
        final int n = request.getDescriptorsCount();
        this.request = request;
        this.count = n;
        this.nowNs = nowNs;
        java.util.Arrays.fill(rules, 0, n, null);
        java.util.Arrays.fill(states, 0, n, null);
        java.util.Arrays.fill(stats, 0, n, null);
        java.util.Arrays.fill(keys, 0, n, 0);
        java.util.Arrays.fill(keyTexts, 0, n, null);
        java.util.Arrays.fill(hits, 0, n, 0);
        java.util.Arrays.fill(unlimited, 0, n, false);
        java.util.Arrays.fill(refund, 0, n, false);
        java.util.Arrays.fill(statsKeys, 0, n, null);
        java.util.Arrays.fill(shared, 0, n, null);
        java.util.Arrays.fill(over, 0, n, false);
        java.util.Arrays.fill(remaining, 0, n, 0);
        java.util.Arrays.fill(resetNs, 0, n, 0);
        return this;
    }

    /** Release the plan's references after the answer (a reused plan keeps no request alive). */
    void release()
    {
        java.util.Arrays.fill(rules, 0, count, null);
        java.util.Arrays.fill(states, 0, count, null);
        java.util.Arrays.fill(stats, 0, count, null);
        java.util.Arrays.fill(keyTexts, 0, count, null);
        java.util.Arrays.fill(statsKeys, 0, count, null);
        java.util.Arrays.fill(shared, 0, count, null);
        request = null;
        inUse = false;
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
