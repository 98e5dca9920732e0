package dev.cellrate.stat;

import dev.cellrate.observe.ShadowLimiter;
import dev.cellrate.observe.ObservedKeyedLimiter;
import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.RateLimiter;
import dev.cellrate.Result;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Top-keys: Space-Saving's guarantees on a skewed stream (every key above N/k is held; estimates bound the
 * truth from above within the error). Dry-run: never rejects, counts exactly what enforcing rejects; a shadow
 * limit beside an enforced one counts exactly what it would reject if enforced.
 */
final class TopKeysAndDryRunTest
{
    @Test
    void spaceSavingHoldsEveryHeavyHitterWithBoundedError()
    {
        final int k = 16;
        final TopKeys sketch = new TopKeys(new UnsafeBuffer(new byte[TopKeys.length(k, 1)]), 0, k, 1);
        final SplittableRandom random = new SplittableRandom(5);
        final Map<Long, Long> truth = new HashMap<>();
        final int n = 100_000;
        for (int i = 0; i < n; i++)
        {
            // Three heavy keys (30%, 15%, 8%) and a long tail of 10,000 keys.
            final double u = random.nextDouble();
            final long key = u < 0.30 ? 1_001 : u < 0.45 ? 2_002 : u < 0.53 ? 3_003 : random.nextLong(10_000);
            sketch.add(key);
            truth.merge(key, 1L, Long::sum);
        }
        final TopKeys.Entry[] top = sketch.top(k);
        assertEquals(1_001, top[0].key());
        assertEquals(2_002, top[1].key());
        assertEquals(3_003, top[2].key());
        long total = 0;
        for (final TopKeys.Entry entry : top)
        {
            final long actual = truth.get(entry.key());
            assertTrue(entry.count() >= actual && entry.count() - entry.error() <= actual, entry + " true " + actual);
            total += entry.count();
        }
        assertEquals(n, total, "Space-Saving's counts sum to the stream length");
        for (final Map.Entry<Long, Long> e : truth.entrySet())
        {
            if (e.getValue() > n / k)
            {
                boolean held = false;
                for (final TopKeys.Entry entry : top)
                {
                    held |= entry.key() == e.getKey();
                }
                assertTrue(held, "key above N/k not held: " + e);
            }
        }
    }

    @Test
    void sampledTopKeysSeeEveryKeyOfARoundRobinAndKeepCountersExact()
    {
        // One rejection in 8 feeds the sketch with weight 8. A round robin of 8 keys would alias with an
        // every-8th sample (one key seen, the others never); the hashed sample sees each about 1/8 of the time.
        final LimiterStats stats = StatFile.inMemory().limiter("sampled", 1, 16, 8);
        assertEquals(8, stats.topKeysSampleEvery());
        final int rounds = 100_000;
        for (int i = 0; i < rounds * 8; i++)
        {
            stats.record(i & 7, 1_000L);
        }
        assertEquals(rounds * 8L, stats.outcome(StatKind.REJECTED), "the counters stay exact");
        final TopKeys.Entry[] top = stats.topKeys().top(16);
        assertEquals(8, top.length, "every key of the round robin is seen");
        long total = 0;
        for (final TopKeys.Entry entry : top)
        {
            assertEquals(0, entry.error(), "8 keys fit in 16 entries");
            assertEquals(rounds, entry.count(), rounds * 0.05, "key " + entry.key() + ": within 5% of its count");
            total += entry.count();
        }
        assertEquals(rounds * 8.0, total, rounds * 8 * 0.01, "the weights add up to the rejections within 1%");

        // Skewed: a hot key with 30% of the rejections among 10,000 cold ones leads the sketch.
        final LimiterStats skewed = StatFile.inMemory().limiter("skewed", 1, 16, 8);
        final java.util.SplittableRandom random = new java.util.SplittableRandom(3);
        for (int i = 0; i < 1_000_000; i++)
        {
            skewed.record(random.nextInt(10) < 3 ? 42 : 1_000 + random.nextInt(10_000), 1_000L);
        }
        final TopKeys.Entry hot = skewed.topKeys().top(1)[0];
        assertEquals(42, hot.key());
        assertTrue(hot.count() - hot.error() <= 300_000 * 1.05 && hot.count() >= 300_000 * 0.95, hot.toString());
    }

    @Test
    void topKeysUnderThreadsCountEverySampleOrDropIt() throws InterruptedException
    {
        final StatFile file = StatFile.inMemory();
        final LimiterStats stats = file.limiter("hot", 2, 4, 1);
        final int perThread = 200_000;
        final Thread[] threads = new Thread[3];
        for (int t = 0; t < threads.length; t++)
        {
            final long key = 10 + t;
            threads[t] = new Thread(() ->
            {
                for (int i = 0; i < perThread; i++)
                {
                    stats.record(key, 1_000L);
                }
            });
            threads[t].start();
        }
        for (final Thread thread : threads)
        {
            thread.join();
        }
        long counted = 0;
        for (final TopKeys.Entry entry : stats.topKeys().top(10))
        {
            counted += entry.count();
            assertEquals(0, entry.error(), "3 keys fit in 4 entries per stripe: no error");
        }
        assertEquals((long)threads.length * perThread, counted + stats.topKeys().droppedSamples());
        assertEquals((long)threads.length * perThread, stats.outcome(StatKind.REJECTED));
    }

    @Test
    void dryRunNeverRejectsAndCountsExactlyWhatEnforcingRejects()
    {
        final StatFile file = StatFile.inMemory();
        final LimiterStats enforcedStats = file.limiter("enforced", 1, 8);
        final LimiterStats dryStats = file.limiter("dry", 1, 8);
        final Limit limit = Limit.perSecond(50, 5);
        final KeyedRateLimiter enforced = KeyedRateLimiter.builder(limit).slotCount(1024).build();
        final ObservedKeyedLimiter dry =
            ObservedKeyedLimiter.dryRun(KeyedRateLimiter.builder(limit).slotCount(1024).build(), dryStats);
        final SplittableRandom random = new SplittableRandom(99);
        long enforcedRejections = 0;
        long nowNs = 0;
        for (int i = 0; i < 100_000; i++)
        {
            nowNs += random.nextLong(0, 2_000_000);
            final long key = random.nextInt(8);
            final long permits = random.nextInt(50) == 0 ? 6 : 1;
            final long enforcedCode = enforcedStats.record(key, enforced.tryAcquire(key, permits, nowNs));
            final long dryCode = dry.tryAcquire(key, permits, nowNs);
            assertTrue(Result.isAdmitted(dryCode), "dry-run rejected: " + dryCode);
            assertEquals(Result.isAdmitted(enforcedCode), Result.ADMITTED == dryCode,
                "dry-run and enforced decided differently at " + i);
            enforcedRejections += Result.isAdmitted(enforcedCode) ? 0 : 1;
        }
        assertTrue(enforcedRejections > 1_000);
        assertEquals(enforcedRejections, dryStats.outcome(StatKind.WOULD_REJECT));
        for (final StatKind kind : new StatKind[]{ StatKind.ADMITTED, StatKind.REJECTED, StatKind.NEVER_FIT })
        {
            assertEquals(enforcedStats.outcome(kind), dryStats.outcome(kind), kind.label());
        }
        assertEquals(enforcedStats.topKeys().top(8).length, dryStats.topKeys().top(8).length);
        assertEquals(java.util.Arrays.asList(enforcedStats.topKeys().top(8)),
            java.util.Arrays.asList(dryStats.topKeys().top(8)));
    }

    @Test
    void shadowLimitBesideAnEnforcedOneCountsWhatItWouldReject()
    {
        final StatFile file = StatFile.inMemory();
        final Limit enforcedLimit = Limit.perSecond(100, 10);
        final Limit candidate = Limit.perSecond(20, 4);
        final ShadowLimiter shadowed = new ShadowLimiter(
            new RateLimiter(enforcedLimit), file.limiter("api", 1, 0),
            new RateLimiter(candidate), file.limiter("api.shadow", 1, 0));
        final RateLimiter candidateAlone = new RateLimiter(candidate);
        final RateLimiter enforcedAlone = new RateLimiter(enforcedLimit);
        final SplittableRandom random = new SplittableRandom(3);
        long candidateRejections = 0;
        long nowNs = 0;
        for (int i = 0; i < 50_000; i++)
        {
            nowNs += random.nextLong(0, 20_000_000);
            final long code = shadowed.tryAcquire(1, nowNs);
            assertEquals(enforcedAlone.tryAcquire(1, nowNs), code, "the shadow changed the enforced decision");
            candidateRejections += Result.isAdmitted(candidateAlone.tryAcquire(1, nowNs)) ? 0 : 1;
        }
        assertTrue(candidateRejections > 1_000);
        assertEquals(candidateRejections, shadowed.shadowStats().outcome(StatKind.WOULD_REJECT));
        assertEquals(candidateRejections, shadowed.shadowStats().outcome(StatKind.REJECTED));
        assertFalse(shadowed.enforcedStats().outcome(StatKind.ADMITTED) == 0);
    }
}
