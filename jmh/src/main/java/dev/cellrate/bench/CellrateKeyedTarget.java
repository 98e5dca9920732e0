package dev.cellrate.bench;

import dev.cellrate.TestFronts;
import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * cellrate's {@link KeyedRateLimiter}, sized as a user sizes it ({@code expectedKeys(keys)}), with the
 * admitting limit of the single-limiter benchmarks and the caller's time. String keys are hashed (their UTF-8
 * bytes, seeded) on every call. {@link #mapped} keeps the same table in a file.
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

    /**
     * The same limiter with its table in a file ({@code mappedFile}) in a fresh temporary directory, removed when
     * the JVM exits.
     *
     * @param keyCount expected keys.
     * @return the target.
     */
    static CellrateKeyedTarget mapped(final int keyCount)
    {
        try
        {
            final Path directory = Files.createTempDirectory("cellrate-bench");
            final Path file = directory.resolve("keyed.table");
            file.toFile().deleteOnExit();
            directory.toFile().deleteOnExit();
            return new CellrateKeyedTarget(KeyedRateLimiter.builder(SingleLimiterBenchmark.CELLRATE_ADMIT)
                .expectedKeys(keyCount).mappedFile(file).build());
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    private CellrateKeyedTarget(final KeyedRateLimiter limiter)
    {
        this.limiter = limiter;
    }

    KeyedRateLimiter limiter()
    {
        return limiter;
    }
}
