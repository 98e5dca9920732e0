package dev.cellrate;

import java.lang.management.ManagementFactory;
import java.util.SplittableRandom;

import dev.cellrate.table.KeyHash;
import dev.cellrate.table.TableLayout;
import org.agrona.concurrent.NanoClock;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Attack tests: a flood of unique keys (10x the slot count) against a table holding established, active
 * keys; adversarially chosen long keys against the shard and slot placement.
 */
class KeyedFloodTest
{
    static final int SLOTS = 1 << 14;
    static final int ESTABLISHED = 1_000;
    static final long SECOND_NS = 1_000_000_000L;

    /** Eviction bounded by no clock (the times here are synthetic, possibly ahead of a freshly booted host's). */
    static final NanoClock TRUST_CALLER_TIME = () -> Long.MAX_VALUE;

    @Test
    void floodOfUniqueKeysKeepsMemoryFixedAndNeverResetsActiveKeys()
    {
        for (final TableFullPolicy policy : TableFullPolicy.values())
        {
            flood(policy);
        }
    }

    private static void flood(final TableFullPolicy policy)
    {
        // 1 per second, burst 10: a key drained at t0 stays drained for a second and active for ten.
        final KeyedRateLimiter limiter = KeyedRateLimiter.builder(Limit.perSecond(1, 10))
            .slotCount(SLOTS).shardCount(16).probeBound(64).idleGraceNs(SECOND_NS / 10).tableFullPolicy(policy)
            .clock(TRUST_CALLER_TIME)
            .build();
        final long t0 = 5 * SECOND_NS;
        for (long key = 0; key < ESTABLISHED; key++)
        {
            assertEquals(Result.ADMITTED, limiter.tryAcquire(key, 10, t0));
        }
        final long capacityBytes = limiter.table().capacityBytes();
        final long allocatedBefore = allocatedBytes();
        int admittedFlood = 0;
        int fullCodes = 0;
        final long floodKeys = 10L * SLOTS;
        for (long i = 0; i < floodKeys; i++)
        {
            final long nowNs = t0 + i * 1_000;  // the whole flood lasts 0.16 s: established keys stay active
            final long code = limiter.tryAcquire(1_000_000 + i, 1, nowNs);
            admittedFlood += Result.ADMITTED == code ? 1 : 0;
            fullCodes += Result.ADMITTED == code ? 0 : 1;
            if ((i & 1023) == 0)
            {
                // Every established key is still drained: no eviction handed it a fresh burst.
                final long established = i % ESTABLISHED;
                final long code2 = limiter.tryAcquire(established, 1, nowNs);
                if (code2 <= 0)
                {
                    fail(policy + " key " + established + " reset: " + code2 + " at flood key " + i);
                }
            }
        }
        final long allocated = allocatedBytes() - allocatedBefore;
        System.out.println(policy + ": " + floodKeys + " flood requests allocated " + allocated + " bytes on this thread");
        assertTrue(allocated < 64 * 1024, policy + ": the flood allocated " + allocated + " bytes");
        assertEquals(capacityBytes, limiter.table().capacityBytes());
        assertTrue(limiter.liveKeys() <= SLOTS, "live " + limiter.liveKeys());
        assertTrue(admittedFlood < SLOTS, "admitted " + admittedFlood);
        assertEquals(fullCodes, limiter.tableFullEvents(), policy.toString());
        assertTrue(fullCodes > 8 * SLOTS, policy + " full " + fullCodes);
        final long expectedFullCode = TableFullPolicy.REJECT == policy ? Result.TABLE_FULL :
            TableFullPolicy.ADMIT == policy ? Result.ADMITTED_TABLE_FULL : Result.REJECTED_OVERFLOW;
        assertEquals(expectedFullCode, limiter.tryAcquire(-1L, 1, t0 + floodKeys * 1_000));
        for (long key = 0; key < ESTABLISHED; key++)
        {
            assertTrue(limiter.tryAcquire(key, 1, t0 + floodKeys * 1_000) > 0, "established key " + key + " reset");
        }
        // One second later everything is idle: the table serves new keys again by evicting idle ones.
        assertEquals(Result.ADMITTED, limiter.tryAcquire(-2L, 1, t0 + 2 * SECOND_NS));
    }

    private static long allocatedBytes()
    {
        return ((com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean())
            .getThreadAllocatedBytes(Thread.currentThread().getId());
    }

    @Test
    void adversarialLongKeysSpreadEvenlyOverShardsAndSlots()
    {
        final int shards = 64;
        final int slotsPerShard = 1 << 10;
        final long seed = new SplittableRandom().nextLong();
        final long[][] attacks = new long[3][];
        final int n = 1 << 16;
        for (int a = 0; a < attacks.length; a++)
        {
            attacks[a] = new long[n];
            for (int i = 0; i < n; i++)
            {
                attacks[a][i] = a == 0 ? (long)i * shards : a == 1 ? (long)i << TableLayout.SHARD_SHIFT : (long)i << 32;
            }
        }
        for (final long[] keys : attacks)
        {
            final int[] perShard = new int[shards];
            final int[] perHome = new int[slotsPerShard];
            for (final long key : keys)
            {
                final long word = KeyHash.mixLong(key, seed);
                perShard[(int)(word >>> TableLayout.SHARD_SHIFT) & (shards - 1)]++;
                perHome[(int)word & (slotsPerShard - 1)]++;
            }
            // Expected 1024 per shard (sd 32) and 64 per home slot (sd 8): allow 6 sd.
            for (final int count : perShard)
            {
                assertTrue(Math.abs(count - n / shards) < 6 * 32, "shard count " + count + " seed " + seed);
            }
            for (final int count : perHome)
            {
                assertTrue(Math.abs(count - n / slotsPerShard) < 6 * 8, "home count " + count + " seed " + seed);
            }
        }
    }

    @Test
    void designedLoadInsertsRarelyHitTheProbeBound()
    {
        final KeyedRateLimiter limiter = KeyedRateLimiter.builder(Limit.perSecond(1, 1))
            .slotCount(1 << 20).seed(3).build();
        final int keys = (1 << 20) * KeyedRateLimiterBuilder.DESIGNED_LOAD_PERCENT / 100;
        int full = 0;
        for (int key = 0; key < keys; key++)
        {
            full += Result.TABLE_FULL == limiter.tryAcquire(key, 1, 0) ? 1 : 0;
        }
        System.out.println("designed load: " + keys + " keys in 2^20 slots, 64 shards, probe bound 128: " + full +
            " table-full");
        assertTrue(full <= keys / 10_000, "table-full " + full);
    }
}
