package dev.cellrate.redis;

/**
 * Why a decision was answered by the {@link FailPolicy} instead of Redis.
 */
public enum FallbackCause
{
    /** Redis did not answer within the timeout. */
    TIMEOUT,

    /** The command failed: connection lost or refused, or an error reply other than NOSCRIPT. */
    ERROR,

    /** The circuit breaker is open after repeated failures: Redis was not asked. */
    BREAKER_OPEN
}
