package dev.cellrate;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The builder's settings hold for a table in a mapped file as for a table in memory: the initial fill of new
 * keys, a classed table at the smallest shard count that fits its classes, and a reconfigurable limit that every
 * front on the file follows at its next decision.
 */
final class KeyedMappedBuilderSpecTest
{
    private static final Limit ONE = Limit.perSecond(1, 1);
    private static final Limit THREE = Limit.perSecond(1, 3);

    @TempDir
    Path dir;

    @Test
    void newKeysOfAMappedTableStartWithTheInitialFill()
    {
        final KeyedRateLimiter limiter =
            KeyedRateLimiter.builder(THREE).slotCount(64).initialPermits(1).mappedFile(dir.resolve("plain")).build();
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1L, 1, 0));
        assertTrue(limiter.tryAcquire(1L, 1, 0) > 0, "one permit at the start, not a full bucket of three");
        final ReconfigurableKeyedRateLimiter reconfigurable = KeyedRateLimiter.builder(THREE).slotCount(64)
            .initialPermits(1).mappedFile(dir.resolve("reconfigurable")).buildReconfigurable();
        assertEquals(Result.ADMITTED, reconfigurable.tryAcquire(1L, 1, 0));
        assertTrue(reconfigurable.tryAcquire(1L, 1, 0) > 0);
        final KeyedShaper shaper = KeyedRateLimiter.builder(THREE).slotCount(64).initialPermits(1)
            .mappedFile(dir.resolve("shaper")).buildShaper(ShaperMode.delay());
        assertEquals(2 * THREE.emissionIntervalNs(), shaper.reserve(1L, 1, 0),
            "started at a lag of two intervals: the first permit waits for them");
    }

    @Test
    void aClassedTableAtFourShardsWithTwoClassesLivesInTheFile()
    {
        final Path file = dir.resolve("classed");
        final ClassedKeyedRateLimiter limiter = KeyedRateLimiter.builder(ONE).shardCount(4).slotCount(64)
            .mappedFile(file).buildClassed(key -> (int)(key & 1), THREE);
        assertTrue(Files.exists(file), "the table is the file's");
        assertEquals(Result.ADMITTED, limiter.tryAcquire(2L, 1, 0));
        assertTrue(limiter.tryAcquire(2L, 1, 0) > 0);
    }

    @Test
    void aLimitSetThroughOneFrontIsTheLimitOfTheOthersNextDecision()
    {
        final Path file = dir.resolve("shared");
        final ReconfigurableKeyedRateLimiter x =
            KeyedRateLimiter.builder(THREE).slotCount(64).mappedFile(file).buildReconfigurable();
        final ReconfigurableKeyedRateLimiter y =
            KeyedRateLimiter.builder(THREE).slotCount(64).mappedFile(file).buildReconfigurable();
        x.setLimit(ONE);
        assertEquals(Result.ADMITTED, y.tryAcquire(5L, 1, 0));
        assertTrue(y.tryAcquire(5L, 1, 0) > 0, "decided under the file's new burst of one");
        assertEquals(ONE, y.limit());
    }

    @Test
    void aFixedSeedPlacesKeysInAMappedTableAsInMemory()
    {
        // One slot in each of 16 shards: a key is admitted iff it is the first of its shard, so the pattern of 64
        // keys shows where the secret put each of them (another secret gives another pattern, but for odds far
        // below one in a million).
        final KeyedRateLimiter memory = KeyedRateLimiter.builder(ONE).seed(42).shardCount(16).slotCount(16)
            .probeBound(1).build();
        final KeyedRateLimiter mapped = KeyedRateLimiter.builder(ONE).seed(42).shardCount(16).slotCount(16)
            .probeBound(1).mappedFile(dir.resolve("seeded")).build();
        final StringBuilder inMemory = new StringBuilder();
        final StringBuilder inFile = new StringBuilder();
        for (int i = 0; i < 64; i++)
        {
            inMemory.append(Result.TABLE_FULL == memory.tryAcquire("key-" + i, 1, 0) ? 'F' : 'A');
            inFile.append(Result.TABLE_FULL == mapped.tryAcquire("key-" + i, 1, 0) ? 'F' : 'A');
        }
        assertEquals(inMemory.toString(), inFile.toString(), "the same secret, the same shards for the same keys");
    }
}
