package dev.cellrate;

import dev.cellrate.table.TableLayout;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The table follows {@code expectedKeys} (multiply-shift homes, any slot count): its off-heap bytes per
 * expected key stay at about 21.3 (16 B slots at 75% load) plus the shard headers, at every key count from
 * 10 k to 100 M, instead of jumping with the next power of two; and the expected keys really fit.
 */
class KeyedSizingTest
{
    private static final Limit LIMIT = Limit.ofGcra(1_000, 1_000_000);

    @Test
    void bytesPerKeyFollowTheExpectedKeyCount()
    {
        for (final int keys : new int[] {10_000, 12_345, 100_000, 786_432, 786_433, 1_000_000, 1_048_577, 3_000_000})
        {
            final KeyedRateLimiter limiter = KeyedRateLimiter.builder(LIMIT).expectedKeys(keys).seed(keys).build();
            final double perKey = limiter.table().capacityBytes() / (double)keys;
            assertTrue(perKey <= 22.5, keys + " keys: " + perKey + " B/key");
            assertTrue(perKey >= 21.3, keys + " keys: " + perKey + " B/key");
        }
        // 100 M keys: computed, not allocated here (2.1 GB); the lab tool MemoryPerKey measures it
        // (tools/lab, docs/keyed-table.md: `... dev.cellrate.bench.MemoryPerKey 100000000 cellrate`).
        final int slots = KeyedRateLimiter.builder(LIMIT).expectedKeys(100_000_000).slotCount;
        final long bytes = TableLayout.length(KeyedRateLimiterBuilder.DEFAULT_SHARD_COUNT, slots);
        assertTrue(bytes / 100_000_000.0 <= 21.4, bytes + " bytes");
        assertTrue(slots <= TableLayout.MAX_SLOTS);
    }

    @Test
    void theExpectedKeysFitAtTheDesignedLoad()
    {
        for (final int keys : new int[] {10_000, 12_345, 100_000, 1_000_000})
        {
            final KeyedRateLimiter limiter = KeyedRateLimiter.builder(LIMIT).expectedKeys(keys).seed(keys * 7L).build();
            for (long key = 0; key < keys; key++)
            {
                assertEquals(Result.ADMITTED, limiter.tryAcquire(key, 1, 0), "key " + key + " of " + keys);
            }
            assertEquals(keys, limiter.liveKeys());
            assertEquals(0, limiter.tableFullEvents());
            // every key is found again (probing wraps around the end of its shard)
            for (long key = 0; key < keys; key++)
            {
                assertEquals(Result.ADMITTED, limiter.tryAcquire(key, 1, 1), "key " + key + " of " + keys);
            }
            assertEquals(keys, limiter.liveKeys());
        }
    }

    @Test
    void tinyTablesWithTheDefaultShardCountBuild()
    {
        final KeyedRateLimiter limiter = KeyedRateLimiter.builder(LIMIT).expectedKeys(3).build();
        assertTrue(limiter.table().slotCount() >= 4);
        for (long key = 0; key < 3; key++)
        {
            assertEquals(Result.ADMITTED, limiter.tryAcquire(key, 1, 0));
        }
    }
}
