package dev.cellrate;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Differential test of the batch calls: a batch must give exactly the codes of one single call per key in
 * index order, on twin limiters (same seed, same shape), with keys repeated inside a batch, costs from 0 to
 * above the burst, time going backwards, idle keys evicted between batches and a table small enough to fill
 * (every table-full policy).
 */
class KeyedBatchTest
{
    private static final Limit LIMIT = Limit.ofGcra(1_000, 3_000);

    @Test
    void longBatchesDecideAsSingleCallsInOrder()
    {
        for (final TableFullPolicy policy : TableFullPolicy.values())
        {
            for (long seed = 1; seed <= 4; seed++)
            {
                final KeyedRateLimiter batched = limiter(policy, seed);
                final KeyedRateLimiter single = limiter(policy, seed);
                final SplittableRandom random = new SplittableRandom(seed * 31 + policy.ordinal());
                final long[] keys = new long[64];
                final long[] codes = new long[64];
                final long[] expected = new long[64];
                long nowNs = 0;
                for (int batch = 0; batch < 3_000; batch++)
                {
                    nowNs += random.nextLong(-500, 2_000);
                    final int count = random.nextInt(65);
                    final long permits = random.nextInt(6); // 0 and 5 are NEVER (burst 4)
                    for (int i = 0; i < count; i++)
                    {
                        // few hot keys (many duplicates in a batch) and many cold ones (table fills, evictions)
                        keys[i] = random.nextInt(4) == 0 ? random.nextLong(3) : random.nextLong(5_000);
                        expected[i] = single.tryAcquire(keys[i], permits, nowNs);
                    }
                    batched.tryAcquire(keys, count, permits, nowNs, codes);
                    assertArrayEquals(java.util.Arrays.copyOf(expected, count), java.util.Arrays.copyOf(codes, count),
                        policy + " seed " + seed + " batch " + batch);
                }
                assertEquals(single.liveKeys(), batched.liveKeys());
                assertEquals(single.evictions(), batched.evictions());
                assertEquals(single.tableFullEvents(), batched.tableFullEvents());
                assertTrue(single.tableFullEvents() > 0, "the trace must fill the table");
                assertTrue(single.evictions() > 0, "the trace must evict idle keys");
            }
        }
    }

    @Test
    void byteBatchesDecideAsSingleCallsInOrder()
    {
        final KeyedRateLimiter fromArray = limiter(TableFullPolicy.OVERFLOW, 7);
        final KeyedRateLimiter fromBuffer = limiter(TableFullPolicy.OVERFLOW, 7);
        final KeyedRateLimiter single = limiter(TableFullPolicy.OVERFLOW, 7);
        final SplittableRandom random = new SplittableRandom(99);
        final byte[] bytes = new byte[64 * 24];
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[bytes.length + 8], 8, bytes.length);
        final int[] offsets = new int[64];
        final int[] lengths = new int[64];
        final long[] codesA = new long[64];
        final long[] codesB = new long[64];
        final long[] expected = new long[64];
        long nowNs = 0;
        for (int batch = 0; batch < 3_000; batch++)
        {
            nowNs += random.nextLong(-500, 2_000);
            final int count = random.nextInt(65);
            final long permits = random.nextInt(6);
            int position = random.nextInt(3); // keys at odd offsets in one buffer
            for (int i = 0; i < count; i++)
            {
                final long id = random.nextInt(4) == 0 ? random.nextLong(3) : random.nextLong(5_000);
                final byte[] key = ("user-" + id).getBytes(StandardCharsets.UTF_8);
                System.arraycopy(key, 0, bytes, position, key.length);
                offsets[i] = position;
                lengths[i] = key.length;
                position += key.length;
                expected[i] = single.tryAcquire(key, 0, key.length, permits, nowNs);
            }
            buffer.putBytes(0, bytes);
            fromArray.tryAcquire(bytes, offsets, lengths, count, permits, nowNs, codesA);
            fromBuffer.tryAcquire(buffer, offsets, lengths, count, permits, nowNs, codesB);
            assertArrayEquals(java.util.Arrays.copyOf(expected, count), java.util.Arrays.copyOf(codesA, count),
                "byte[] batch " + batch);
            assertArrayEquals(java.util.Arrays.copyOf(expected, count), java.util.Arrays.copyOf(codesB, count),
                "buffer batch " + batch);
        }
        assertTrue(single.tableFullEvents() > 0, "the trace must fill the table");
    }

    @Test
    void aBatchOfOneKeyRepeatedIsChargedOncePerOccurrence()
    {
        final KeyedRateLimiter limiter = limiter(TableFullPolicy.REJECT, 3);
        final long[] keys = {42, 42, 42, 42, 42, 42};
        final long[] codes = new long[6];
        limiter.tryAcquire(keys, 6, 1, 0, codes);
        // burst 4 at T = 1 us: four admissions (TAT 4 us), then two rejections decided on that TAT (1 us each)
        assertArrayEquals(new long[] {0, 0, 0, 0, 1_000, 1_000}, codes);
    }

    @Test
    void aBatchLongerThanOneTouchGroupDecidesAsSingleCalls()
    {
        // 200 keys drawn from 20: repeats inside a touch group of 64 and across the group boundaries (63/64,
        // 127/128, 191/192; and 31/32, 95/96 of the earlier group size 32)
        final KeyedRateLimiter single = limiter(TableFullPolicy.REJECT, 7);
        final KeyedRateLimiter batched = limiter(TableFullPolicy.REJECT, 7);
        final long[] keys = new long[200];
        final long[] codes = new long[200];
        for (int i = 0; i < keys.length; i++)
        {
            keys[i] = (i * 7L) % 20;
        }
        for (int round = 0; round < 5; round++)
        {
            final long nowNs = round * 700L;
            batched.tryAcquire(keys, keys.length, 1, nowNs, codes);
            for (int i = 0; i < keys.length; i++)
            {
                assertEquals(single.tryAcquire(keys[i], 1, nowNs), codes[i], "round " + round + ", key " + i);
            }
        }
        final int byteKeys = 100;
        final byte[] bytes = new byte[byteKeys * 4];
        final int[] offsets = new int[byteKeys];
        final int[] lengths = new int[byteKeys];
        for (int i = 0; i < byteKeys; i++)
        {
            bytes[i * 4] = (byte)i;
            offsets[i] = i * 4;
            lengths[i] = 4;
        }
        // past the end: the last key, in the second group, must throw before the first group decides
        lengths[byteKeys - 1] = 5;
        final KeyedRateLimiter fresh = limiter(TableFullPolicy.REJECT, 8);
        assertThrows(IndexOutOfBoundsException.class,
            () -> fresh.tryAcquire(bytes, offsets, lengths, byteKeys, 1, 0, new long[byteKeys]));
        assertEquals(0, fresh.liveKeys());
        // Ranges the first pass (touching key bytes) must refuse before reading them, so before any decision:
        // a negative offset, a negative length, an end that overflows int, one past a buffer's capacity.
        final org.agrona.concurrent.UnsafeBuffer buffer = new org.agrona.concurrent.UnsafeBuffer(bytes);
        final int[][] bad = {{-1, 4}, {8, -2}, {Integer.MAX_VALUE - 1, 4}, {bytes.length - 2, 3}};
        for (final int[] range : bad)
        {
            offsets[byteKeys - 1] = range[0];
            lengths[byteKeys - 1] = range[1];
            assertThrows(IndexOutOfBoundsException.class,
                () -> fresh.tryAcquire(bytes, offsets, lengths, byteKeys, 1, 0, new long[byteKeys]));
            assertThrows(IndexOutOfBoundsException.class,
                () -> fresh.tryAcquire(buffer, offsets, lengths, byteKeys, 1, 0, new long[byteKeys]));
            assertEquals(0, fresh.liveKeys());
        }
        offsets[byteKeys - 1] = (byteKeys - 1) * 4;
        lengths[byteKeys - 1] = 4;
        fresh.tryAcquire(bytes, offsets, lengths, byteKeys, 1, 0, new long[byteKeys]);
        assertEquals(byteKeys, fresh.liveKeys());
    }

    @Test
    void aCountThatDoesNotFitDecidesNothing()
    {
        final KeyedRateLimiter limiter = limiter(TableFullPolicy.REJECT, 5);
        final long[] keys = {1, 2, 3};
        assertThrows(IndexOutOfBoundsException.class, () -> limiter.tryAcquire(keys, 4, 1, 0, new long[4]));
        assertThrows(IndexOutOfBoundsException.class, () -> limiter.tryAcquire(keys, 3, 1, 0, new long[2]));
        assertThrows(IndexOutOfBoundsException.class, () -> limiter.tryAcquire(keys, -1, 1, 0, new long[3]));
        assertThrows(IndexOutOfBoundsException.class,
            () -> limiter.tryAcquire(new byte[4], new int[] {0, 2}, new int[] {2, 4}, 2, 1, 0, new long[2]));
        assertEquals(0, limiter.liveKeys());
        limiter.tryAcquire(keys, 0, 1, 0, new long[0]);
        assertEquals(0, limiter.liveKeys());
    }

    @Test
    void batchesAllocateNothing()
    {
        final java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        Assertions.assertTrue(bean instanceof com.sun.management.ThreadMXBean, "this JVM counts allocated bytes per thread");
        final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean)bean;
        Assertions.assertTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled(),
            "this JVM counts allocated bytes per thread");
        final KeyedRateLimiter limiter = KeyedRateLimiter.builder(LIMIT).expectedKeys(10_000).seed(1).build();
        final long[] keys = new long[32];
        final long[] codes = new long[32];
        final byte[] bytes = new byte[32 * 8];
        final int[] offsets = new int[32];
        final int[] lengths = new int[32];
        final UnsafeBuffer buffer = new UnsafeBuffer(bytes);
        for (int i = 0; i < 32; i++)
        {
            offsets[i] = i * 8;
            lengths[i] = 8;
        }
        long minBytes = Long.MAX_VALUE;
        final long threadId = Thread.currentThread().getId();
        for (int round = 0; round < 6 && minBytes != 0; round++)
        {
            final long before = threads.getThreadAllocatedBytes(threadId);
            for (int b = 0; b < 20_000; b++)
            {
                for (int i = 0; i < 32; i++)
                {
                    keys[i] = (b * 32L + i) % 10_000;
                    bytes[i * 8] = (byte)(b + i);
                }
                limiter.tryAcquire(keys, 32, 1, b * 1_000L, codes);
                limiter.tryAcquire(bytes, offsets, lengths, 32, 1, b * 1_000L, codes);
                limiter.tryAcquire(buffer, offsets, lengths, 32, 1, b * 1_000L, codes);
            }
            minBytes = Math.min(minBytes, threads.getThreadAllocatedBytes(threadId) - before);
        }
        assertEquals(0, minBytes, "bytes allocated by 60,000 batches of 32");
    }

    private static KeyedRateLimiter limiter(final TableFullPolicy policy, final long seed)
    {
        // 4 shards x 64 slots, probe bound 16, grace 2 us: fills up and evicts under the traces above
        return KeyedRateLimiter.builder(LIMIT).shardCount(4).slotCount(256).probeBound(16).idleGraceNs(2_000)
            .tableFullPolicy(policy).seed(seed).build();
    }

    /**
     * What a byte-key batch answers at the edges of its key ranges, as a caller sees it: empty keys (anywhere, the
     * end of the array or buffer included) are decided as the empty key of a single call, and a range that does not
     * fit is refused with the exception a single call throws for it, naming the first bad key in index order, before
     * any key of the batch is decided.
     */
    @Nested
    final class Specification
    {
        private static final Limit BURST_2 = Limit.ofGcra(1_000, 1_000);

        private static KeyedRateLimiter limiter()
        {
            return KeyedRateLimiter.builder(BURST_2).slotCount(64).shardCount(1).probeBound(16).idleGraceNs(1_000_000)
                .seed(11).build();
        }

        @Test
        void emptyKeysAnywhereAreDecidedAsTheEmptyKeyOfASingleCall()
        {
            final byte[] bytes = "abcdefgh".getBytes(StandardCharsets.US_ASCII);
            final UnsafeBuffer heap = new UnsafeBuffer(bytes);
            final UnsafeBuffer direct = new UnsafeBuffer(ByteBuffer.allocateDirect(bytes.length));
            direct.putBytes(0, bytes);
            // empty keys at the start, inside and at the very end (offset == length), between keys "ab" and "h"
            final int[] offsets = {0, 0, 3, 8, 7, 8, 8};
            final int[] lengths = {0, 2, 0, 0, 1, 0, 0};
            final int count = offsets.length;
            final KeyedRateLimiter single = limiter();
            final long[] expected = new long[count];
            for (int i = 0; i < count; i++)
            {
                expected[i] = single.tryAcquire(bytes, offsets[i], lengths[i], 1, 0);
            }
            // the empty key: admitted twice (burst 2), then rejected until 1 us; "ab" and "h" once each
            assertEquals(Result.ADMITTED, expected[0]);
            assertEquals(Result.ADMITTED, expected[2]);
            assertEquals(1_000, expected[3]);
            for (final UnsafeBuffer buffer : new UnsafeBuffer[]{heap, direct})
            {
                final long[] codes = new long[count];
                limiter().tryAcquire(buffer, offsets, lengths, count, 1, 0, codes);
                assertArrayEquals(expected, codes);
            }
            final long[] codes = new long[count];
            limiter().tryAcquire(bytes, offsets, lengths, count, 1, 0, codes);
            assertArrayEquals(expected, codes);

            // nothing but empty keys, in an empty array and an empty buffer
            final long[] empty = new long[2];
            limiter().tryAcquire(new byte[0], new int[2], new int[2], 2, 1, 0, empty);
            assertArrayEquals(new long[]{Result.ADMITTED, Result.ADMITTED}, empty);
            final long[] emptyBuffer = new long[3];
            limiter().tryAcquire(new UnsafeBuffer(new byte[0]), new int[3], new int[3], 3, 1, 0, emptyBuffer);
            assertArrayEquals(new long[]{Result.ADMITTED, Result.ADMITTED, 1_000}, emptyBuffer);
        }

        @Test
        void aRangeThatDoesNotFitIsRefusedAsBySingleCallNamingTheFirstBadKeyBeforeAnyDecision()
        {
            final byte[] bytes = new byte[16];
            final UnsafeBuffer buffer = new UnsafeBuffer(new byte[24], 8, 16);
            // a negative offset, a negative length, an end overflowing int, an end one past the array, an offset past it
            final int[][] bad = {{-1, 4}, {8, -2}, {Integer.MAX_VALUE - 1, 4}, {13, 4}, {17, 0}};
            for (final int[] range : bad)
            {
                final String message = assertThrows(IndexOutOfBoundsException.class,
                    () -> limiter().tryAcquire(bytes, range[0], range[1], 1, 0)).getMessage();
                assertEquals(message, assertThrows(IndexOutOfBoundsException.class,
                    () -> limiter().tryAcquire(buffer, range[0], range[1], 1, 0)).getMessage());
                // good keys before and after the bad one (index 2), and a second bad key after it (index 4)
                final int[] offsets = {0, 4, range[0], 8, -5};
                final int[] lengths = {4, 4, range[1], 8, 1};
                final KeyedRateLimiter fromArray = limiter();
                assertEquals(message, assertThrows(IndexOutOfBoundsException.class,
                    () -> fromArray.tryAcquire(bytes, offsets, lengths, 5, 1, 0, new long[5])).getMessage());
                assertEquals(0, fromArray.liveKeys(), "no key of the batch decided");
                final KeyedRateLimiter fromBuffer = limiter();
                assertEquals(message, assertThrows(IndexOutOfBoundsException.class,
                    () -> fromBuffer.tryAcquire(buffer, offsets, lengths, 5, 1, 0, new long[5])).getMessage());
                assertEquals(0, fromBuffer.liveKeys(), "no key of the batch decided");
                // the bad key beyond count is not looked at
                final long[] codes = new long[5];
                fromArray.tryAcquire(bytes, offsets, lengths, 2, 1, 0, codes);
                assertArrayEquals(new long[]{Result.ADMITTED, Result.ADMITTED, 0, 0, 0}, codes);
            }
        }
    }
}
