package dev.cellrate;

import java.nio.charset.StandardCharsets;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Forged and hostile keys, through the public keyed front with its default (random) secret.
 * <p>
 * Item 2: the pre-SipHash byte hash let anyone forge a key that shares a victim's cell for every seed (an xor
 * of bit 34 of {@code P1 * block} becomes bit 63 after the rotation, and bit 63 survives the multiplication;
 * flipping bit 63 of the next block cancels it). Ten forged requests drained the victim's burst of ten.
 * Seen to fail on the unfixed code: all 20 tables rejected the victim.
 */
class KeyedHashAttackTest
{
    private static final Limit BURST_10 = Limit.ofGcra(1_000_000, 9_000_000);
    /** The constant of the old byte hash's round; the forgery is built on it. */
    private static final long OLD_P1 = 0x9e3779b97f4a7c15L;

    static byte[] forgedTwin(final byte[] victim, final int block)
    {
        final long w = readLongLe(victim, 8 * block);
        final long wForged = inverse(OLD_P1) * ((OLD_P1 * w) ^ (1L << 34));
        final byte[] forged = victim.clone();
        writeLongLe(forged, 8 * block, wForged);
        forged[8 * block + 15] ^= (byte)0x80;
        return forged;
    }

    @Test
    void forgedTwinOfAVictimKeyDoesNotDrainItsBudget()
    {
        final byte[] victim = "user:alice/12345".getBytes(StandardCharsets.UTF_8);
        final byte[] forged = forgedTwin(victim, 0);
        assertTrue(!java.util.Arrays.equals(victim, forged));
        int drained = 0;
        for (int table = 0; table < 20; table++)
        {
            final KeyedRateLimiter limiter = KeyedRateLimiter.builder(BURST_10).slotCount(1 << 10).build();
            for (int i = 0; i < 10; i++)
            {
                assertEquals(Result.ADMITTED, limiter.tryAcquire(forged, 0, forged.length, 1, 1_000));
            }
            drained += Result.ADMITTED == limiter.tryAcquire(victim, 0, victim.length, 1, 1_000) ? 0 : 1;
        }
        assertEquals(0, drained, "tables in which the forged key drained the victim's burst");
    }

    @Test
    void negativeLengthIsRejectedLikeOnePastTheEnd()
    {
        final KeyedRateLimiter limiter = KeyedRateLimiter.builder(BURST_10).slotCount(1 << 10).build();
        final byte[] key = new byte[8];
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[8]);
        assertThrows(IndexOutOfBoundsException.class, () -> limiter.tryAcquire(key, 0, 9, 1, 1_000));
        assertThrows(IndexOutOfBoundsException.class, () -> limiter.tryAcquire(key, 0, -1, 1, 1_000));
        assertThrows(IndexOutOfBoundsException.class, () -> limiter.tryAcquire(key, 0, Integer.MIN_VALUE, 1, 1_000));
        assertThrows(IndexOutOfBoundsException.class, () -> limiter.tryAcquire(key, 4, -8, 1, 1_000));
        assertThrows(IndexOutOfBoundsException.class, () -> limiter.tryAcquire(key, -1, 1, 1, 1_000));
        assertThrows(IndexOutOfBoundsException.class, () -> limiter.tryAcquire(buffer, 0, 9, 1, 1_000));
        assertThrows(IndexOutOfBoundsException.class, () -> limiter.tryAcquire(buffer, 0, -1, 1, 1_000));
        assertThrows(IndexOutOfBoundsException.class,
            () -> limiter.tryAcquire(buffer, 0, Integer.MIN_VALUE, 1, 1_000));
        assertThrows(IndexOutOfBoundsException.class, () -> limiter.tryAcquire(buffer, 4, -8, 1, 1_000));
        assertEquals(Result.ADMITTED, limiter.tryAcquire(key, 0, 8, 1, 1_000));
        assertEquals(Result.ADMITTED, limiter.tryAcquire(buffer, 8, 0, 1, 1_000), "empty key at the end");
    }

    static long inverse(final long odd)
    {
        long x = odd;
        for (int i = 0; i < 6; i++)
        {
            x *= 2 - odd * x;
        }
        return x;
    }

    static long readLongLe(final byte[] bytes, final int offset)
    {
        long word = 0;
        for (int i = 7; i >= 0; i--)
        {
            word = (word << 8) | (bytes[offset + i] & 0xFFL);
        }
        return word;
    }

    static void writeLongLe(final byte[] bytes, final int offset, final long word)
    {
        for (int i = 0; i < 8; i++)
        {
            bytes[offset + i] = (byte)(word >>> (8 * i));
        }
    }
}
