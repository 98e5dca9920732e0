package dev.cellrate;

import java.math.BigInteger;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Differential test: per-key decisions of a {@link KeyedRateLimiter} equal an exact per-key GCRA reference
 * (BigInteger, no table, no eviction) on seeded random traces with many interleaved keys, on tables small
 * enough that idle keys are evicted and their slots reused between requests of the same key.
 */
class KeyedRateLimiterReferenceTest
{
    static final long T_NS = 1_000;
    static final long TAU_NS = 3_000;
    static final long GRACE_NS = 1_000;

    /** Exact GCRA per key: absent key = full bucket. */
    static final class ReferenceModel
    {
        final Map<Long, BigInteger> tats = new HashMap<>();
        final BigInteger t = BigInteger.valueOf(T_NS);
        final BigInteger ceiling = BigInteger.valueOf(TAU_NS + T_NS);
        final long burst = 1 + TAU_NS / T_NS;

        long decide(final long key, final long permits, final long nowNs)
        {
            if (permits < 1 || permits > burst)
            {
                return Result.NEVER;
            }
            final BigInteger now = BigInteger.valueOf(nowNs);
            final BigInteger tat = tats.getOrDefault(key, BigInteger.valueOf(Long.MIN_VALUE));
            final BigInteger next = tat.max(now).add(t.multiply(BigInteger.valueOf(permits)));
            final BigInteger excess = next.subtract(now).subtract(ceiling);
            if (excess.signum() > 0)
            {
                return excess.longValueExact();
            }
            tats.put(key, next);
            return Result.ADMITTED;
        }
    }

    @Test
    void decisionsMatchReferenceWithEvictionBetweenRequests()
    {
        for (long seed = 1; seed <= 6; seed++)
        {
            runTrace(seed, 1, 64, 64, 60_000);
            runTrace(seed, 4, 256, 16, 60_000);
        }
    }

    @Test
    void bigTableWithoutEvictionAndSmallTableWithEvictionDecideIdentically()
    {
        final KeyedRateLimiter big = KeyedRateLimiter.builder(Limit.ofGcra(T_NS, TAU_NS))
            .shardCount(1).slotCount(1 << 14).probeBound(1 << 14).idleGraceNs(1L << 62).seed(11).build();
        final KeyedRateLimiter small = limiter(1, 64, 64, 12);
        final SplittableRandom random = new SplittableRandom(77);
        long baseNs = 0;
        for (int i = 0; i < 50_000; i++)
        {
            baseNs += random.nextLong(400);
            final long key = random.nextBoolean() ? random.nextLong(4) : random.nextLong(2_000);
            final long permits = 1 + random.nextLong(4);
            assertEquals(big.tryAcquire(key, permits, baseNs), small.tryAcquire(key, permits, baseNs), "request " + i);
        }
        assertEquals(0, big.evictions());
        assertTrue(small.evictions() > 10_000, "evictions " + small.evictions());
    }

    private static KeyedRateLimiter limiter(final int shards, final int slots, final int probe, final long seed)
    {
        return KeyedRateLimiter.builder(Limit.ofGcra(T_NS, TAU_NS))
            .shardCount(shards).slotCount(slots).probeBound(probe).idleGraceNs(GRACE_NS).seed(seed).build();
    }

    private static void runTrace(final long seed, final int shards, final int slots, final int probe, final int requests)
    {
        final KeyedRateLimiter limiter = limiter(shards, slots, probe, seed);
        final ReferenceModel model = new ReferenceModel();
        final SplittableRandom random = new SplittableRandom(seed);
        final Decision decision = new Decision();
        final StringBuilder textKey = new StringBuilder();
        long baseNs = -5_000_000 + random.nextLong(1_000);
        for (int i = 0; i < requests; i++)
        {
            // At most ~25 requests per (ceiling + grace) window on average, far below the slot count, so a
            // new key always finds a free or idle slot; sometimes a long pause idles every key at once.
            baseNs += random.nextInt(100) == 0 ? random.nextLong(20_000) : random.nextLong(400);
            final long nowNs = baseNs - random.nextLong(GRACE_NS / 2);
            final long key = random.nextInt(2) == 0 ? random.nextLong(4) : random.nextLong(5_000);
            final long permits = random.nextInt(20) == 0 ? 5 : 1 + random.nextLong(3);
            final long expected = model.decide(key, permits, nowNs);
            final long actual;
            switch (random.nextInt(4))
            {
                case 0:
                    actual = limiter.tryAcquire(key, permits, nowNs);
                    break;
                case 1:
                    actual = limiter.tryAcquire(key, permits, nowNs, decision);
                    assertEquals(actual, decision.code());
                    break;
                case 2:
                    actual = 1 == permits ? limiter.tryAcquire(key, 1, nowNs) : limiter.tryAcquire(key, permits, nowNs);
                    break;
                default:
                    actual = limiter.tryAcquire(key, permits, nowNs);
                    if (random.nextInt(8) == 0)
                    {
                        limiter.sweep(baseNs, 1 + random.nextInt(slots));
                    }
                    textKey.setLength(0);
                    break;
            }
            assertEquals(expected, actual, "seed " + seed + " request " + i + " key " + key + " at " + nowNs);
        }
        assertTrue(limiter.evictions() > 1_000, "evictions " + limiter.evictions());
        assertEquals(0, limiter.tableFullEvents());
        assertTrue(limiter.liveKeys() <= slots);
    }

    @Test
    void stringKeysMatchReferenceToo()
    {
        final KeyedRateLimiter limiter = limiter(2, 128, 64, 5);
        final ReferenceModel model = new ReferenceModel();
        final SplittableRandom random = new SplittableRandom(9);
        final StringBuilder key = new StringBuilder();
        long nowNs = 0;
        for (int i = 0; i < 40_000; i++)
        {
            nowNs += random.nextLong(400);
            final long id = random.nextBoolean() ? random.nextLong(3) : random.nextLong(3_000);
            key.setLength(0);
            key.append("user:").append(id);
            final long permits = 1 + random.nextLong(4);
            assertEquals(model.decide(id, permits, nowNs), limiter.tryAcquire(key, permits, nowNs), "request " + i);
        }
        assertTrue(limiter.evictions() > 1_000);
    }
}
