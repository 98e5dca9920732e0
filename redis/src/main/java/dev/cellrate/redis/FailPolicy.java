package dev.cellrate.redis;

/**
 * What a {@link RedisRateLimiter} answers when Redis cannot decide (timeout, connection loss, an error reply,
 * or the circuit breaker is open). Chosen explicitly when the limiter is built: there is no default, since a
 * silent fail-open is how fleets lose their limits. Every fallback is counted and logged at a bounded rate.
 */
public enum FailPolicy
{
    /** Admit, with the code {@link RedisRateLimiter#ADMITTED_FAIL_OPEN}: availability over the limit. */
    OPEN,

    /** Reject, with the code {@link RedisRateLimiter#REJECTED_FAIL_CLOSED}: the limit over availability. */
    CLOSED,

    /**
     * Decide on an in-process cell per key with the same limit: each process keeps the limit by itself, so
     * a fleet of N processes admits up to N times the limit while Redis is away.
     */
    LOCAL
}
