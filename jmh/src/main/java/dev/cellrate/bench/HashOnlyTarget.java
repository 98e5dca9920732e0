package dev.cellrate.bench;

import dev.cellrate.TestFronts;
import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.table.SlotTable;

/**
 * A baseline that only computes cellrate's key word (the seeded mixer for long keys, the seeded hash of the
 * UTF-8 bytes for string and byte keys) and touches no table: with the benchmark's key streams it shows what
 * reading and hashing a key costs, so the rest of a keyed decision can be read off the {@code cellrate} row.
 */
final class HashOnlyTarget extends KeyedTarget
{
    private final SlotTable hasher = hasher();

    /**
     * @return the (tiny) table of a limiter whose key-word functions are cellrate's, with a fixed seed.
     */
    static SlotTable hasher()
    {
        return TestFronts.tableOf(KeyedRateLimiter.builder(Limit.ofGcra(1, 0)).slotCount(64).shardCount(1).seed(0x5EEDL).build());
    }

    @Override
    boolean wantsBoxedKeys()
    {
        return false;
    }

    @Override
    long decideLong(final long key, final Long boxedKey, final long nowNs)
    {
        return hasher.keyWord(key);
    }

    @Override
    long decideString(final String key, final long nowNs)
    {
        return hasher.keyWord(key);
    }

    @Override
    long decideBytes(final byte[] bytes, final int offset, final int length, final long nowNs)
    {
        return hasher.keyWord(bytes, offset, length);
    }
}
