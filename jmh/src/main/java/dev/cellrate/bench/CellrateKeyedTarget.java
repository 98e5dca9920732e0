package dev.cellrate.bench;

import dev.cellrate.TestFronts;
import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;

/**
 * cellrate's {@link KeyedRateLimiter}, sized as a user sizes it ({@code expectedKeys(keys)}), with the
 * admitting limit of the single-limiter benchmarks and the caller's time. String keys are hashed (their UTF-8
 * bytes, seeded) on every call.
 */
final class CellrateKeyedTarget extends KeyedTarget
{
    private final KeyedRateLimiter limiter;

    /**
     * @param keyCount expected keys.
     */
    CellrateKeyedTarget(final int keyCount)
    {
        limiter = KeyedRateLimiter.builder(SingleLimiterBenchmark.CELLRATE_ADMIT).expectedKeys(keyCount).build();
    }

    /**
     * @param keyCount expected keys.
     * @param limit    the limit of every key.
     */
    CellrateKeyedTarget(final int keyCount, final Limit limit)
    {
        limiter = KeyedRateLimiter.builder(limit).expectedKeys(keyCount).build();
    }

    @Override
    boolean wantsBoxedKeys()
    {
        return false;
    }

    @Override
    long offHeapBytes()
    {
        return TestFronts.tableOf(limiter).capacityBytes();
    }

    @Override
    long offHeapAddress()
    {
        return Smaps.tableAddress(limiter);
    }

    @Override
    long decideLong(final long key, final Long boxedKey, final long nowNs)
    {
        return limiter.tryAcquire(key, 1, nowNs);
    }

    @Override
    long decideBytes(final byte[] bytes, final int offset, final int length, final long nowNs)
    {
        return limiter.tryAcquire(bytes, offset, length, 1, nowNs);
    }

    @Override
    long decideString(final String key, final long nowNs)
    {
        return limiter.tryAcquire(key, 1, nowNs);
    }

    KeyedRateLimiter limiter()
    {
        return limiter;
    }
}
