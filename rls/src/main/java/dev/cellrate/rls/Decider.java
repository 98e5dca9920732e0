package dev.cellrate.rls;

import dev.cellrate.rls.config.RateLimitRule;

/**
 * A way of deciding a {@link Plan}: embedded GCRA ({@link GcraDecider}), fixed windows as the reference service
 * counts them ({@link FixedWindowDecider}), or GCRA in Redis ({@link RedisDecider}).
 */
interface Decider
{
    /**
     * @param rule     a rule of a new configuration (or a request's limit override).
     * @param previous the state of the rule with the same full key in the configuration being replaced, or null.
     * @return the rule's state: {@code previous} itself if its limit is unchanged, so its cells are kept.
     */
    RuleState state(RateLimitRule rule, RuleState previous);

    /**
     * Release what a state no longer in use holds (called after the configuration that used it is replaced).
     *
     * @param state the state.
     */
    default void retire(final RuleState state)
    {
    }

    /**
     * Decide every limited descriptor of the plan, filling its outcome, then run {@code done} exactly once
     * (on this thread, or on an I/O thread for Redis).
     *
     * @param plan the plan.
     * @param done what to run when every outcome is filled.
     */
    void decide(Plan plan, Runnable done);

    /**
     * @param states the rules' states in use.
     * @return this decider's counters by Prometheus metric name (for {@code /metrics}).
     */
    default java.util.Map<String, Long> counters(final java.util.Collection<RuleState> states)
    {
        return java.util.Map.of();
    }

    /**
     * @return true if {@link #decide} fills the plan and runs {@code done} before it returns, on the calling
     * thread (then the service reuses one plan per thread).
     */
    default boolean synchronous()
    {
        return true;
    }

    /**
     * @return true if this decider reads {@link Plan#keys} (the descriptors' 64-bit identities).
     */
    default boolean hashedKeys()
    {
        return false;
    }

    /**
     * @return true if this decider reads {@link Plan#keyTexts} (the descriptors' text identities).
     */
    default boolean textKeys()
    {
        return true;
    }

    /**
     * @return the time of a request for this decider, ns.
     */
    long nowNs();
}
