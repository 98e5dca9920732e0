package dev.cellrate.micrometer;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.TableFullPolicy;
import dev.cellrate.stat.LimiterStats;
import dev.cellrate.stat.StatFile;
import dev.cellrate.stat.StatKind;
import dev.cellrate.stat.StatReader;
import dev.cellrate.stat.StatSampler;
import dev.cellrate.stat.TopKeys;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every meter equals its counter (the sum of its stripes), for two limiters after a replayed trace, and the
 * rank gauges equal the top-keys sketch.
 */
final class CellrateMetricsTest
{
    @Test
    void metersEqualTheCounters()
    {
        final StatFile file = StatFile.inMemory();
        final LimiterStats free = file.limiter("free", 4, 4);
        final LimiterStats pro = file.limiter("pro", 4, 4);
        final KeyedRateLimiter freeLimiter = KeyedRateLimiter.builder(Limit.perSecond(10, 2)).slotCount(16)
            .shardCount(1).probeBound(16).tableFullPolicy(TableFullPolicy.ADMIT).build();
        final KeyedRateLimiter proLimiter = KeyedRateLimiter.builder(Limit.perSecond(100, 20)).slotCount(1024).build();
        final StatSampler sampler = new StatSampler(new CachedNanoClock(), 0)
            .add(freeLimiter, free).add(proLimiter, pro);
        final SplittableRandom random = new SplittableRandom(11);
        long nowNs = 0;
        for (int i = 0; i < 50_000; i++)
        {
            nowNs += random.nextLong(0, 1_000_000);
            final long key = random.nextInt(40);
            free.record(key, freeLimiter.tryAcquire(key, 1 + random.nextInt(3), nowNs));
            pro.dryRun(key, proLimiter.tryAcquire(key, 1 + random.nextInt(30), nowNs));
        }
        sampler.sampleNow();

        final StatReader reader = file.reader();
        final SimpleMeterRegistry registry = new SimpleMeterRegistry();
        final CellrateMetrics metrics = new CellrateMetrics(reader);
        metrics.bindTo(registry);

        int checked = 0;
        for (final StatReader.Stat stat : reader.stats())
        {
            final double expected = reader.value(stat);
            final String name = CellrateMetrics.meterName(stat.kind());
            final double actual;
            if (stat.kind().isOutcome())
            {
                final FunctionCounter counter = registry.find(name).tag(CellrateMetrics.LIMITER_TAG, stat.limiter())
                    .tag(CellrateMetrics.OUTCOME_TAG, stat.kind().label()).functionCounter();
                assertNotNull(counter, stat.toString());
                actual = counter.count();
            }
            else if (stat.kind().isCumulative())
            {
                actual = registry.find(name).tag(CellrateMetrics.LIMITER_TAG, stat.limiter()).functionCounter().count();
            }
            else
            {
                actual = registry.find(name).tag(CellrateMetrics.LIMITER_TAG, stat.limiter()).gauge().value();
            }
            assertEquals(expected, actual, stat.limiter() + " " + stat.kind());
            checked++;
        }
        assertEquals(2 * 7 + 2 * 4, checked, "7 outcomes and 4 table statistics per limiter");
        assertTrue(free.outcome(StatKind.TABLE_FULL_ADMITTED) > 0, "the free table filled (ADMIT policy)");
        assertTrue(pro.outcome(StatKind.WOULD_REJECT) > 0);
        assertEquals((double)free.outcome(StatKind.REJECTED), registry.find(CellrateMetrics.DECISIONS)
            .tags(CellrateMetrics.LIMITER_TAG, "free", CellrateMetrics.OUTCOME_TAG, "rejected").functionCounter().count());

        final TopKeys.Entry[] top = free.topKeys().top(4);
        assertTrue(top.length > 0);
        for (int rank = 1; rank <= top.length; rank++)
        {
            final Gauge gauge = registry.find(CellrateMetrics.TOP_REJECTED).tags(CellrateMetrics.LIMITER_TAG, "free",
                CellrateMetrics.RANK_TAG, Integer.toString(rank)).gauge();
            assertEquals((double)top[rank - 1].count(), gauge.value());
        }
        assertEquals(java.util.List.of(top), metrics.topRejected("free", 4));
    }

    /**
     * Micrometer holds a function counter's state object weakly: the meters must still read after a garbage
     * collection while the binder is alive.
     */
    @Test
    void metersStillReadAfterAGarbageCollection() throws InterruptedException
    {
        final StatFile file = StatFile.inMemory();
        final LimiterStats stats = file.limiter("gc");
        stats.record(7, 1_000);
        final SimpleMeterRegistry registry = new SimpleMeterRegistry();
        final CellrateMetrics metrics = new CellrateMetrics(file.reader());
        metrics.bindTo(registry);
        for (int i = 0; i < 5; i++)
        {
            System.gc();
            Thread.sleep(20);
        }
        final FunctionCounter rejected = registry.find(CellrateMetrics.DECISIONS).tag(CellrateMetrics.LIMITER_TAG, "gc")
            .tag(CellrateMetrics.OUTCOME_TAG, StatKind.REJECTED.label()).functionCounter();
        assertEquals(1.0, rejected.count());
        assertNotNull(metrics);
    }
}
