package dev.cellrate;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * What a byte-key batch answers at the edges of its key ranges, as a caller sees it: empty keys (anywhere, the
 * end of the array or buffer included) are decided as the empty key of a single call, and a range that does not
 * fit is refused with the exception a single call throws for it, naming the first bad key in index order, before
 * any key of the batch is decided.
 */
class KeyedBatchSpecTest
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
