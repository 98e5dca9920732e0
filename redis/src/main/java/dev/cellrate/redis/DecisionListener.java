package dev.cellrate.redis;

/**
 * Receives the outcome of an asynchronous decision, exactly once, on a Lettuce I/O thread or the limiter's
 * timeout thread: it must not block.
 */
@FunctionalInterface
public interface DecisionListener
{
    /**
     * @param code the result code, as the synchronous call would have returned it (see
     *             {@link RedisRateLimiter}); the caller's {@code Decision} holder, if one was passed, is
     *             filled before this is called.
     */
    void onDecision(long code);
}
