package dev.cellrate.bench;

import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;

import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The common way to key Bucket4j: one local (lock-free) bucket per key in a {@link ConcurrentHashMap}, found
 * or created with {@code computeIfAbsent}.
 */
final class Bucket4jMapTarget extends KeyedTarget
{
    /** The admitting bandwidth, immutable, shared by every key's bucket (as a user shares one config). */
    static final Bandwidth ADMIT_BANDWIDTH = Peers.bucket4jBandwidth(true);

    static final Function<Object, Bucket> NEW_BUCKET = key -> Bucket.builder()
        .addLimit(ADMIT_BANDWIDTH)
        .build();

    private final ConcurrentHashMap<Object, Bucket> buckets;

    /**
     * @param keyCount expected keys (initial capacity, so the map never resizes while measured).
     */
    Bucket4jMapTarget(final int keyCount)
    {
        buckets = new ConcurrentHashMap<>(keyCount * 2);
    }

    @Override
    long decideLong(final long key, final Long boxedKey, final long nowNs)
    {
        return buckets.computeIfAbsent(boxedKey, NEW_BUCKET).tryConsume(1) ? 0 : 1;
    }

    @Override
    long decideString(final String key, final long nowNs)
    {
        return buckets.computeIfAbsent(key, NEW_BUCKET).tryConsume(1) ? 0 : 1;
    }

    int size()
    {
        return buckets.size();
    }
}
