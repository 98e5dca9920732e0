package dev.cellrate;

import dev.cellrate.table.TableLayout;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The keyed fronts as a user builds them, through {@link KeyedRateLimiter#builder(Limit)}: the classed and the
 * reconfigurable front each get a table of their own and decide under the builder's settings; what a classed
 * table cannot honour is refused at build, naming the setting; the table holds the slots the builder promises
 * (slot count rounded up to a multiple of the shard count, and from 4 slots per shard on, to whole 4-slot lines).
 */
final class KeyedBuilderSpecTest
{
    /** One permit per second, no burst beyond one: a key admitted at t stays active until t + 1 s. */
    private static final Limit ONE = Limit.perSecond(1, 1);
    private static final Limit THREE = Limit.perSecond(1, 3);

    @Test
    void aClassedLimiterDecidesEachKeyUnderItsClass()
    {
        final ClassedKeyedRateLimiter limiter = KeyedRateLimiter.builder(ONE).shardCount(4).slotCount(64)
            .buildClassed(key -> (int)(key & 1), THREE);
        assertEquals(2, limiter.classCount());
        assertEquals(Result.ADMITTED, limiter.tryAcquire(2L, 1, 0));
        assertTrue(limiter.tryAcquire(2L, 1, 0) > 0, "class 0: a burst of one");
        for (int i = 0; i < 3; i++)
        {
            assertEquals(Result.ADMITTED, limiter.tryAcquire(1L, 1, 0), "class 1: a burst of three, permit " + i);
        }
        assertTrue(limiter.tryAcquire(1L, 1, 0) > 0);
        assertEquals(THREE, limiter.limit(1));
    }

    @Test
    void aClassedBuildRefusesWhatItCannotHonourNamingTheSetting()
    {
        final String fill = assertThrows(IllegalArgumentException.class, () -> KeyedRateLimiter.builder(ONE)
            .shardCount(4).slotCount(64).initialPermits(1).buildClassed(key -> 0, THREE)).getMessage();
        assertTrue(fill.contains("initialPermits"), fill);
        assertThrows(IllegalArgumentException.class, () -> KeyedRateLimiter.builder(ONE).shardCount(4).slotCount(64)
            .tableFullPolicy(TableFullPolicy.OVERFLOW).buildClassed(key -> 0, THREE));
        assertThrows(IllegalArgumentException.class, () -> KeyedRateLimiter.builder(ONE).shardCount(4).slotCount(64)
            .buildClassed(key -> 0, THREE, THREE), "three classes need more than four shards");
        assertEquals(3, KeyedRateLimiter.builder(ONE).shardCount(8).slotCount(64)
            .buildClassed(key -> 0, THREE, THREE).classCount(), "with eight shards they fit");
        assertThrows(IllegalArgumentException.class, () -> KeyedRateLimiter.builder(ONE).shardCount(4).slotCount(64)
            .buildClassed(null, THREE));
    }

    @Test
    void aReconfigurableLimiterKeepsTheBuildersInitialFillAndTakesANewLimit()
    {
        final ReconfigurableKeyedRateLimiter limiter =
            KeyedRateLimiter.builder(THREE).slotCount(64).initialPermits(1).buildReconfigurable();
        assertEquals(Result.ADMITTED, limiter.tryAcquire(7L, 1, 0), "a new key starts with one permit");
        assertTrue(limiter.tryAcquire(7L, 1, 0) > 0);
        limiter.setLimit(Limit.perSecond(1, 5));
        assertEquals(Limit.perSecond(1, 5), limiter.limit());
        assertEquals(Result.ADMITTED, limiter.tryAcquire(7L, 1, 0), "the larger burst covers the debt");
    }

    @Test
    void threeSlotsPerShardAreThreeAndFiveAreAWholeLineOfEight()
    {
        assertEquals(3, keysHeld(KeyedRateLimiter.builder(ONE).slotCount(3).shardCount(1).build()));
        assertEquals(8, keysHeld(KeyedRateLimiter.builder(ONE).slotCount(5).shardCount(1).build()));
    }

    /**
     * The size bound is inclusive: a table of exactly the largest slot count passes it, in one shard (the largest
     * count is odd, so one shard is the only way to hold it exactly). Seen without allocating 2 GB: a bad probe
     * bound, checked after the size and before any memory is taken, is what the build then refuses, against the
     * whole shard.
     */
    @Test
    void aTableOfExactlyTheLargestSlotCountIsWithinTheBound()
    {
        final int largest = TableLayout.MAX_SLOTS;
        final String refused = assertThrows(IllegalArgumentException.class,
            () -> KeyedRateLimiter.builder(ONE).slotCount(largest).shardCount(1).probeBound(0).build()).getMessage();
        assertEquals("probeBound must be in [1, " + largest + "] but was 0", refused);
        final String over = assertThrows(IllegalArgumentException.class,
            () -> KeyedRateLimiter.builder(ONE).slotCount(largest + 1).shardCount(1).probeBound(0).build())
            .getMessage();
        assertTrue(over.startsWith("slotCount must be in [1, " + largest + "]"), over);
    }

    /**
     * Rounding up to whole 4-slot lines stops where it would pass the largest table: two shards of
     * {@code (MAX_SLOTS - 1) / 2} slots (odd) fit, two whole lines of one more slot each would not, so each shard
     * keeps its odd count. Seen, again, through the probe-bound refusal, against the shard's slots.
     */
    @Test
    void roundingToWholeLinesStopsBelowTheLargestTable()
    {
        final int perShard = (TableLayout.MAX_SLOTS - 1) / 2;
        assertTrue(2L * ((perShard + 3) & ~3) > TableLayout.MAX_SLOTS, "a whole line each would pass the largest");
        final String refused = assertThrows(IllegalArgumentException.class,
            () -> KeyedRateLimiter.builder(ONE).slotCount(2 * perShard).shardCount(2).probeBound(0).build())
            .getMessage();
        assertEquals("probeBound must be in [1, " + perShard + "] but was 0", refused);
    }

    /** Distinct active keys admitted before the first table-full answer. */
    private static int keysHeld(final KeyedRateLimiter limiter)
    {
        for (int key = 0; key < 1_000; key++)
        {
            final long code = limiter.tryAcquire(key, 1, 0);
            if (Result.TABLE_FULL == code)
            {
                return key;
            }
            assertEquals(Result.ADMITTED, code, "key " + key);
        }
        return -1;
    }
}
