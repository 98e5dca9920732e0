package dev.cellrate.redis;

/**
 * Why a decision was answered by the {@link FailPolicy} instead of Redis.
 */
public enum FallbackCause
{
    /** Redis did not answer within the timeout. */
    TIMEOUT,

    /**
     * The command failed: connection lost or refused, or an error reply about the server (out of memory, busy,
     * read-only replica, ...). An error about one key's data is not a fallback: it is answered for that key
     * with {@link RedisRateLimiter#REJECTED_KEY_ERROR}.
     */
    ERROR,

    /** The circuit breaker is open after too many recent failures: Redis was not asked. */
    BREAKER_OPEN,

    /**
     * The limiter has not yet connected to Redis and loaded its script (Redis was down or unreachable when the
     * limiter was built, and the limiter keeps retrying in the background): Redis was not asked, and the
     * circuit breaker is not moved.
     */
    NOT_CONNECTED
}
