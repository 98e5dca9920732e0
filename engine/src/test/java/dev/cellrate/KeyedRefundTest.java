package dev.cellrate;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link KeyedRateLimiter#refund}: the key's TAT goes down by permits &times; T, never below now (a full bucket
 * at most) and never below the reclaim floor of its shard (the ABA rule); an absent key gets nothing.
 */
class KeyedRefundTest
{
    static final long T_NS = 100;
    /** Burst 3: ceiling tau + T = 300. */
    static final Limit BURST_3 = Limit.ofGcra(T_NS, 2 * T_NS);

    private static KeyedRateLimiter tiny()
    {
        return KeyedRateLimiter.builder(BURST_3)
            .shardCount(1).slotCount(4).probeBound(4).idleGraceNs(10).seed(0x5eed).build();
    }

    /** The key's TAT, read by a peek at {@code atNs} (at or before it): 3 permits' retry-after is TAT - atNs. */
    private static long tatNs(final KeyedRateLimiter limiter, final long key, final long atNs)
    {
        return atNs + limiter.peek(key, 3, atNs);
    }

    @Test
    void givesBackPermitsTimesTAndTheKeyMayUseThemAgain()
    {
        final KeyedRateLimiter limiter = tiny();
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 3, 1_000));
        assertEquals(1_300, tatNs(limiter, 1, 1_000));
        assertEquals(T_NS, limiter.refund(1, 1, 1_000));
        assertEquals(1_200, tatNs(limiter, 1, 1_000));
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 1, 1_000));
        assertEquals(T_NS, limiter.tryAcquire(1, 1, 1_000));
    }

    @Test
    void neverBelowNowSoNeverBeyondAFullBucket()
    {
        final KeyedRateLimiter limiter = tiny();
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 3, 1_000));
        // TAT 1300 at 1050: 250 ns above now; asking for 5 permits (500 ns) gives back the 250 only.
        assertEquals(250, limiter.refund(1, 5, 1_050));
        assertEquals(1_050, tatNs(limiter, 1, 1_050));
        // A full bucket again: exactly the burst, not one permit more.
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 3, 1_050));
        assertEquals(T_NS, limiter.tryAcquire(1, 1, 1_050));
        // Long.MAX_VALUE permits saturate instead of overflowing: down to now, again.
        assertEquals(300, limiter.refund(1, Long.MAX_VALUE, 1_050));
        assertEquals(1_050, tatNs(limiter, 1, 1_050));
    }

    /**
     * With one permit a quarter of the long range (T = 2^62) and the key a whole debt ceiling in debt (TAT at
     * {@code Long.MAX_VALUE}, far more than one permit above now), a one-permit refund gives back exactly T: the
     * product {@code permits * T} that just fits a long is used as it is, not saturated.
     */
    @Test
    void aPermitOfAQuarterOfTheLongRangeGivesBackExactlyItsWorth()
    {
        final long quarterNs = 1L << 62;
        final KeyedRateLimiter limiter = KeyedRateLimiter.builder(Limit.ofGcra(quarterNs, 0))
            .shardCount(1).slotCount(4).probeBound(4).idleGraceNs(10).seed(0x5eed).build();
        limiter.debit(1, 2, 0);
        assertEquals(Long.MAX_VALUE, limiter.peek(1, 1, 0), "the debt saturates at the end of time");
        assertEquals(quarterNs, limiter.refund(1, 1, 0));
        assertEquals(Long.MAX_VALUE - quarterNs, limiter.peek(1, 1, 0), "one permit's worth given back, no more");
    }

    @Test
    void aFullBucketOrAnAbsentKeyGetsNothingAndClaimsNothing()
    {
        final KeyedRateLimiter limiter = tiny();
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 1, 1_000));
        assertEquals(0, limiter.refund(1, 1, 2_000)); // TAT 1100 <= now: full already
        assertEquals(1_100, tatNs(limiter, 1, 1_000));
        assertEquals(0, limiter.refund(42, 1, 1_000));
        assertEquals(0, limiter.refund("absent", 2, 1_000));
        assertEquals(1, limiter.liveKeys());
    }

    @Test
    void aCostBelowOnePermitIsNever()
    {
        final KeyedRateLimiter limiter = tiny();
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 3, 1_000));
        assertEquals(Result.NEVER, limiter.refund(1, 0, 1_000));
        assertEquals(Result.NEVER, limiter.refund(1, -5, 1_000));
        assertEquals(1_300, tatNs(limiter, 1, 1_000));
    }

    @Test
    void aStringKeyIsTheKeyOfItsUtf8Bytes()
    {
        final KeyedRateLimiter limiter = tiny();
        final byte[] bytes = "x/a/b".getBytes(StandardCharsets.UTF_8);
        assertEquals(Result.ADMITTED, limiter.tryAcquire(bytes, 2, 3, 3, 1_000));
        assertEquals(T_NS, limiter.refund("a/b", 1, 1_000));
        assertEquals(2 * T_NS, limiter.refund("a/b", 2, 1_000));
        assertEquals(Result.ADMITTED, limiter.tryAcquire(bytes, 2, 3, 3, 1_000));
    }

    @Test
    void neverBelowTheReclaimFloorWhateverTheCallersTime()
    {
        final KeyedRateLimiter limiter = tiny();
        for (long key = 1; key <= 4; key++)
        {
            assertEquals(Result.ADMITTED, limiter.tryAcquire(key, 1, 1_000)); // TAT 1100 each: the table is full
        }
        // At 5000 every resident is idle (1100 <= 5000 - 10): key 5 reclaims a slot, which restarts at 4991
        // (above every word the earlier keys held), and its admission writes 5100.
        assertEquals(Result.ADMITTED, limiter.tryAcquire(5, 1, 5_000));
        assertEquals(5_100, tatNs(limiter, 5, 5_000));
        // A refund with a time far in the past stops at the floor 4991, not at its nowNs (0): no word an earlier
        // key of this slot held (1100 or below) can come back, so no paused decider of theirs can CAS it.
        assertEquals(109, limiter.refund(5, 10, 0));
        assertEquals(4_991, tatNs(limiter, 5, 4_000));
        assertEquals(0, limiter.refund(5, 10, 0));
    }
}
