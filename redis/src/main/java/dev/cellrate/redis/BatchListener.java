package dev.cellrate.redis;

/**
 * Receives the outcome of an asynchronous batch ({@link RedisRateLimiter#tryAcquireBatchAsync}) exactly once,
 * after every code of the batch is in the caller's array.
 */
@FunctionalInterface
public interface BatchListener
{
    /**
     * @param admitted keys of the batch admitted (read each key's code from the caller's array).
     */
    void onBatch(int admitted);
}
