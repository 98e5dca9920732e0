package dev.cellrate;

import dev.cellrate.table.TableLayout;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Large tables work and cost what docs/keyed-table.md says: millions of keys in 2<sup>24</sup> slots (256 MiB).
 */
class KeyedCapacityTest
{
    @Test
    void millionsOfKeysInTwoToTheTwentyFourSlots()
    {
        final long startNs = System.nanoTime();
        final KeyedRateLimiter limiter = KeyedRateLimiter.builder(Limit.perSecond(100, 10))
            .slotCount(1 << 24).shardCount(256).build();
        final long builtNs = System.nanoTime();
        // 10 M keys by hand (-Dcellrate.capacityKeys=10000000, ~25 s on a busy 2-CPU VM); 4 M keeps CI short.
        final int keys = Integer.getInteger("cellrate.capacityKeys", 4_000_000);
        int full = 0;
        for (int key = 0; key < keys; key++)
        {
            full += Result.ADMITTED == limiter.tryAcquire(key, 1, 1_000) ? 0 : 1;
        }
        final long filledNs = System.nanoTime();
        int rejected = 0;
        for (int key = 0; key < keys; key += 7)
        {
            rejected += limiter.tryAcquire(key, 10, 1_000) > 0 ? 1 : 0;
        }
        final long bytes = limiter.table().capacityBytes();
        System.out.printf(
            "2^24 slots, 256 shards: %d bytes (%.2f B/key at %d keys, %.2f B/key at load 0.75); build %d ms, " +
            "inserts %d ms%n", bytes, bytes / (double)keys, keys, bytes / ((1 << 24) * 0.75),
            (builtNs - startNs) / 1_000_000, (filledNs - builtNs) / 1_000_000);
        assertEquals(0, full);
        assertEquals(keys, limiter.liveKeys());
        assertEquals((keys + 6) / 7, rejected, "every key kept its own charged cell");
        assertEquals((long)TableLayout.length(256, 1 << 24), bytes);
        assertTrue(bytes < (1 << 24) * 16 + 64 * 1024);
    }
}
