package dev.cellrate.reconfigure;

import dev.cellrate.TestFronts;
import dev.cellrate.ReconfigurableKeyedRateLimiter;
import dev.cellrate.Decision;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import dev.cellrate.TableFullPolicy;
import dev.cellrate.table.SlotTable;
import dev.cellrate.testing.ModelCell;
import org.agrona.concurrent.NanoClock;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Reconfiguring a keyed table mid-trace equals the documented model (docs/operating.md, "Live
 * reconfiguration"): every key keeps its TAT across a change and every decision is the exact GCRA of the limit
 * current at that moment. Seeded traces over many keys, with random raises and lowers, against a BigInteger
 * model per key: every code (the exact retry-after included) and every TAT equal.
 */
final class KeyedReconfigureReferenceTest
{
    static final NanoClock FAR_CLOCK = () -> Long.MAX_VALUE;

    @Test
    void everyKeyEqualsTheModelAcrossRaisesAndLowers()
    {
        final int keys = 300;
        for (int seed = 0; seed < 12; seed++)
        {
            final SplittableRandom random = new SplittableRandom(7_000 + seed);
            final SlotTable table = new SlotTable(8, 128, 128, 1L << 62, 99L + seed, FAR_CLOCK);
            final ReconfigurableKeyedRateLimiter limiter =
                TestFronts.reconfigurableKeyed(ReconfigureReferenceTest.LIMITS[0], table, TableFullPolicy.REJECT);
            final ModelCell[] models = new ModelCell[keys];
            for (int k = 0; k < keys; k++)
            {
                models[k] = new ModelCell();
            }
            Limit limit = ReconfigureReferenceTest.LIMITS[0];
            long nowNs = random.nextLong(-1_000_000_000L, 1_000_000_000L);
            int raises = 0;
            int lowers = 0;
            long admitted = 0;
            long rejected = 0;
            final Decision decision = new Decision();
            for (int i = 0; i < 40_000; i++)
            {
                if (random.nextInt(150) == 0)
                {
                    final Limit next = ReconfigureReferenceTest.LIMITS[random.nextInt(ReconfigureReferenceTest.LIMITS.length)];
                    raises += next.emissionIntervalNs() < limit.emissionIntervalNs() ? 1 : 0;
                    lowers += next.emissionIntervalNs() > limit.emissionIntervalNs() ? 1 : 0;
                    limit = next;
                    limiter.setLimit(next);
                }
                nowNs += random.nextLong(0, 5_000_000L);
                // Skewed keys: a few hot keys carry debt across changes, many cold ones start full.
                final int k = random.nextInt(4) == 0 ? random.nextInt(keys) : random.nextInt(8);
                final long permits = 1 + random.nextInt(random.nextInt(8) == 0 ? 12 : 2);
                final long expected = models[k].decide(limit, permits, nowNs);
                final long code = random.nextBoolean()
                    ? limiter.tryAcquire(k, permits, nowNs)
                    : limiter.tryAcquire(k, permits, nowNs, decision);
                assertEquals(expected, code, "seed " + seed + " step " + i + " key " + k);
                admitted += Result.ADMITTED == code ? 1 : 0;
                rejected += code > 0 ? 1 : 0;
                if (null != models[k].tatNs)
                {
                    assertEquals(models[k].tatNs.longValueExact(), TestFronts.tatNs(limiter, k), "tat, seed " + seed + " step " + i);
                }
            }
            assertTrue(raises > 10 && lowers > 10, raises + " raises, " + lowers + " lowers");
            assertTrue(admitted > 1_000 && rejected > 1_000, admitted + " admitted, " + rejected + " rejected");
        }
    }

    @Test
    void aChangeGivesNobodyAFreshBurstAndKeepsDebtInTime()
    {
        final SlotTable table = new SlotTable(1, 16, 16, 1L << 62, 5L, FAR_CLOCK);
        final ReconfigurableKeyedRateLimiter limiter =
            TestFronts.reconfigurableKeyed(Limit.perSecond(100, 100), table, TableFullPolicy.REJECT);
        for (int i = 0; i < 100; i++)
        {
            assertEquals(Result.ADMITTED, limiter.tryAcquire(1L, 1, 0));
        }
        assertEquals(Result.ADMITTED, limiter.tryAcquire(2L, 50, 0));
        // Raising to 1000/s burst 100: key 1's 1 s of debt and key 2's 0.5 s are kept.
        limiter.setLimit(Limit.perSecond(1_000, 100));
        assertEquals(901_000_000L, limiter.tryAcquire(1L, 1, 0));
        assertEquals(401_000_000L, limiter.tryAcquire(2L, 1, 0));
        // A key never seen has a full bucket of the new size.
        for (int i = 0; i < 100; i++)
        {
            assertEquals(Result.ADMITTED, limiter.tryAcquire(3L, 1, 0));
        }
        assertTrue(limiter.tryAcquire(3L, 1, 0) > 0);
        // Lowering to 10/s burst 10 at 0.901 s: key 1 is 0.1 s in debt, so 10 permits (1 s) wait exactly 0.1 s.
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1L, 1, 901_000_000L));
        limiter.setLimit(Limit.perSecond(10, 10));
        assertEquals(Limit.perSecond(10, 10), limiter.limit());
        assertEquals(100_000_000L, limiter.tryAcquire(1L, 10, 901_000_000L));
        assertEquals(Result.NEVER, limiter.tryAcquire(1L, 11, 901_000_000L));
    }
}
