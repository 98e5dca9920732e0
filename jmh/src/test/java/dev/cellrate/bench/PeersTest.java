package dev.cellrate.bench;

import dev.cellrate.TestFronts;
import dev.cellrate.RateLimiter;
import dev.cellrate.Result;
import io.github.bucket4j.local.SynchronizationStrategy;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The benchmarks measure what they say: the admitting shapes admit every call, the rejecting shapes reject
 * every call, and every keyed target admits present keys.
 */
final class PeersTest
{
    private static final int CALLS = 100_000;

    @Test
    void admittingShapesAdmitEveryCall()
    {
        final RateLimiter cellrate = new RateLimiter(SingleLimiterBenchmark.CELLRATE_ADMIT);
        final com.google.common.util.concurrent.RateLimiter guava = Peers.guava(true);
        final io.github.bucket4j.Bucket lockFree = Peers.bucket4j(true, SynchronizationStrategy.LOCK_FREE);
        final io.github.bucket4j.Bucket synchronizedBucket = Peers.bucket4j(true, SynchronizationStrategy.SYNCHRONIZED);
        final io.github.resilience4j.ratelimiter.RateLimiter resilience4j = Peers.resilience4j(true);
        for (int i = 0; i < CALLS; i++)
        {
            assertEquals(Result.ADMITTED, cellrate.tryAcquire(1, i));
            assertEquals(Result.ADMITTED, cellrate.tryAcquire());
            assertTrue(guava.tryAcquire(), "guava");
            assertTrue(lockFree.tryConsume(1), "bucket4j lock-free");
            assertTrue(synchronizedBucket.tryConsume(1), "bucket4j synchronized");
            assertTrue(resilience4j.acquirePermission(), "resilience4j");
        }
    }

    @Test
    void rejectingShapesRejectEveryCall()
    {
        final RateLimiter cellrate = new RateLimiter(SingleLimiterBenchmark.CELLRATE_REJECT);
        assertEquals(Result.ADMITTED, cellrate.tryAcquire(1, 0));
        final com.google.common.util.concurrent.RateLimiter guava = Peers.guava(false);
        final io.github.bucket4j.Bucket lockFree = Peers.bucket4j(false, SynchronizationStrategy.LOCK_FREE);
        final io.github.bucket4j.Bucket synchronizedBucket = Peers.bucket4j(false, SynchronizationStrategy.SYNCHRONIZED);
        final io.github.resilience4j.ratelimiter.RateLimiter resilience4j = Peers.resilience4j(false);
        for (int i = 0; i < CALLS; i++)
        {
            assertTrue(cellrate.tryAcquire(1, i) > 0, "cellrate");
            assertFalse(guava.tryAcquire(), "guava");
            assertFalse(lockFree.tryConsume(1), "bucket4j lock-free");
            assertFalse(synchronizedBucket.tryConsume(1), "bucket4j synchronized");
            assertFalse(resilience4j.acquirePermission(), "resilience4j");
        }
    }

    @Test
    void keyedTargetsAdmitPresentKeys()
    {
        final int keys = 1_000;
        for (final String name : new String[]{"cellrate", "cellrateShaper", "randomCas", "bucket4jMap", "bucket4jCaffeine"})
        {
            // One key type per target, as in a benchmark fork.
            final KeyedTarget longs = KeyedBenchmark.newTarget(name, keys);
            final KeyedTarget strings = KeyedBenchmark.newTarget(name, keys);
            final KeyedTarget bytes = KeyedBenchmark.newTarget(name, keys);
            for (int round = 0; round < 3; round++)
            {
                for (int i = 0; i < keys; i++)
                {
                    final long key = KeyStream.longKey(i);
                    assertEquals(0, longs.decideLong(key, longs.wantsBoxedKeys() ? key : null, round * keys + i),
                        name);
                    assertEquals(0, strings.decideString(KeyStream.stringKey(i), round * keys + i), name);
                    final byte[] key16 = KeyStream.stringKey(i).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
                    assertEquals(0, bytes.decideBytes(key16, 0, key16.length, round * keys + i), name);
                }
            }
        }
    }

    @Test
    void randomCasArrayHasTheTableFootprint()
    {
        for (final int keys : new int[]{1_000, 4_000, 786_432, 786_433, 1_000_000})
        {
            final CellrateKeyedTarget table = new CellrateKeyedTarget(keys);
            assertEquals(TestFronts.tableOf(table.limiter()).slotCount(), RandomCasTarget.slotsFor(keys), "keys " + keys);
        }
        // keys / 0.75 rounded up to a multiple of the shard count, and per shard to a multiple of the 4-slot line
        assertEquals(1_336, RandomCasTarget.slotsFor(1_000));
        assertEquals(1_333_504, RandomCasTarget.slotsFor(1_000_000));
        assertEquals(13_333_504, RandomCasTarget.slotsFor(10_000_000));
    }

    @Test
    void batchFloorDoesTheSameCasesAsOneCasPerKey()
    {
        final int keys = 10_000;
        final RandomCasTarget each = new RandomCasTarget(keys);
        final RandomCasTarget batched = new RandomCasTarget(keys);
        final long[] batch = new long[KeyedBatchBenchmark.BATCH];
        final long[] scratch = new long[KeyedBatchBenchmark.BATCH];
        final int[] stream = KeyStream.indices(keys, "uniform", 1 << 14, 7L);
        for (int from = 0; from < stream.length; from += batch.length)
        {
            for (int i = 0; i < batch.length; i++)
            {
                batch[i] = KeyStream.longKey(stream[from + i]);
            }
            assertEquals(0, each.casEach(batch, batch.length, from), "one CAS per key, every CAS wins");
            assertEquals(0, batched.casBatch(batch, batch.length, from, scratch), "touched, then CASed");
        }
        final org.agrona.concurrent.UnsafeBuffer a = new org.agrona.concurrent.UnsafeBuffer(each.address(),
            (int)each.offHeapBytes());
        final org.agrona.concurrent.UnsafeBuffer b = new org.agrona.concurrent.UnsafeBuffer(batched.address(),
            (int)batched.offHeapBytes());
        long written = 0;
        for (int offset = 0; offset < a.capacity(); offset += 8)
        {
            assertEquals(a.getLong(offset), b.getLong(offset), "word at " + offset);
            written += a.getLong(offset) == 0 ? 0 : 1;
        }
        assertTrue(written > keys / 4, "the CASes wrote the slots of the keys: " + written);
    }
}
