package dev.cellrate.bench;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.github.bucket4j.Bucket;

import java.time.Duration;

/**
 * Bucket4j buckets in a Caffeine cache that expires idle keys ({@code expireAfterAccess}), the usual way to
 * bound a keyed peer's memory.
 */
final class Bucket4jCaffeineTarget extends KeyedTarget
{
    /** Idle time after which a key's bucket is dropped. */
    static final Duration IDLE_EXPIRY = Duration.ofMinutes(10);

    private final Cache<Object, Bucket> buckets;

    /**
     * @param keyCount expected keys (initial capacity).
     */
    Bucket4jCaffeineTarget(final int keyCount)
    {
        buckets = Caffeine.newBuilder()
            .initialCapacity(keyCount)
            .expireAfterAccess(IDLE_EXPIRY)
            .build();
    }

    @Override
    long decideLong(final long key, final Long boxedKey, final long nowNs)
    {
        return buckets.get(boxedKey, Bucket4jMapTarget.NEW_BUCKET).tryConsume(1) ? 0 : 1;
    }

    @Override
    long decideString(final String key, final long nowNs)
    {
        return buckets.get(key, Bucket4jMapTarget.NEW_BUCKET).tryConsume(1) ? 0 : 1;
    }

    long size()
    {
        return buckets.estimatedSize();
    }
}
