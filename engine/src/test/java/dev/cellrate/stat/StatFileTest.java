package dev.cellrate.stat;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.RateLimiter;
import dev.cellrate.Result;
import dev.cellrate.TableFullPolicy;
import dev.cellrate.shaper.Shaper;
import dev.cellrate.ShaperMode;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Counters equal a replayed trace's outcomes exactly, through a mapped file read back by {@link StatReader};
 * striped recording is exact under two threads; the sampler copies the table's and shaper's statistics.
 */
final class StatFileTest
{
    @TempDir
    Path dir;

    @Test
    void replayedKeyedTraceEqualsCountersExactly()
    {
        try (StatFile file = StatFile.create(dir, 256, 1 << 16))
        {
            final LimiterStats stats = file.limiter("api-keys", 4, 8);
            final KeyedRateLimiter limiter = KeyedRateLimiter.builder(Limit.perSecond(100, 5))
                .slotCount(64).shardCount(1).probeBound(64).idleGraceNs(10_000_000_000L)
                .tableFullPolicy(TableFullPolicy.REJECT).build();
            final SplittableRandom random = new SplittableRandom(13);
            long admitted = 0;
            long rejected = 0;
            long never = 0;
            long tableFull = 0;
            long nowNs = 0;
            for (int i = 0; i < 200_000; i++)
            {
                nowNs += random.nextLong(0, 200_000);
                final long key = random.nextInt(100);
                final long permits = random.nextInt(20) == 0 ? 9 : 1 + random.nextInt(2);
                final long code = stats.record(key, limiter.tryAcquire(key, permits, nowNs));
                if (Result.ADMITTED == code)
                {
                    admitted++;
                }
                else if (code > 0)
                {
                    rejected++;
                }
                else if (Result.NEVER == code)
                {
                    never++;
                }
                else if (Result.TABLE_FULL == code)
                {
                    tableFull++;
                }
                else
                {
                    throw new AssertionError("unexpected code " + code);
                }
            }
            assertTrue(admitted > 0 && rejected > 0 && never > 0 && tableFull > 0,
                admitted + " " + rejected + " " + never + " " + tableFull);
            final StatSampler sampler = new StatSampler(new CachedNanoClock(), 0).add(limiter, stats);
            sampler.sampleNow();

            try (StatReader reader = StatReader.open(dir, 1_000))
            {
                final Map<StatKind, Long> values = valuesOf(reader, "api-keys");
                assertEquals(admitted, values.get(StatKind.ADMITTED));
                assertEquals(rejected, values.get(StatKind.REJECTED));
                assertEquals(never, values.get(StatKind.NEVER_FIT));
                assertEquals(tableFull, values.get(StatKind.TABLE_FULL_REJECTED));
                assertEquals(0L, values.get(StatKind.TABLE_FULL_ADMITTED));
                assertEquals(0L, values.get(StatKind.OTHER_REJECTED));
                assertEquals(0L, values.get(StatKind.WOULD_REJECT));
                assertEquals(limiter.liveKeys(), values.get(StatKind.LIVE_KEYS));
                assertEquals(limiter.tableFullEvents(), values.get(StatKind.TABLE_FULL_EVENTS));
                assertEquals(tableFull, limiter.tableFullEvents());
                assertEquals(limiter.evictions(), values.get(StatKind.EVICTIONS));
                assertEquals(limiter.casRetries(), values.get(StatKind.CAS_RETRIES));
                assertEquals(ProcessHandle.current().pid(), reader.pid());
                final List<StatReader.Sketch> sketches = reader.sketches();
                assertEquals(1, sketches.size());
                assertEquals("api-keys", sketches.get(0).limiter());
                assertTrue(reader.top(sketches.get(0), 5).length > 0);
            }
        }
    }

    @Test
    void shaperOutcomesAndBacklog()
    {
        final StatFile file = StatFile.inMemory();
        final LimiterStats stats = file.limiter("egress", 1, 0);
        final CachedNanoClock clock = new CachedNanoClock();
        final Shaper shaper = dev.cellrate.shaper.TestShapers.shaper(Limit.perSecond(10, 1), ShaperMode.delay(), dev.cellrate.layout.CellArray.allocate(1), 0, clock);
        long admitted = 0;
        long rejected = 0;
        for (int i = 0; i < 30; i++)
        {
            final long code = stats.recordReservation(shaper.reserve(1, 0));
            admitted += Result.isReserved(code) ? 1 : 0;
            rejected += Result.isEncodedRetryAfter(code) ? 1 : 0;
        }
        assertEquals(admitted, stats.outcome(StatKind.ADMITTED));
        assertEquals(rejected, stats.outcome(StatKind.REJECTED));
        assertTrue(admitted > 0);
        final StatSampler sampler = new StatSampler(clock, 0).add(shaper, stats);
        clock.update(0);
        sampler.sampleNow();
        final Map<StatKind, Long> values = valuesOf(file.reader(), "egress");
        assertEquals((shaper.tatNs() - 0) / Limit.perSecond(10, 1).emissionIntervalNs(),
            values.get(StatKind.QUEUE_DEPTH));
        assertTrue(values.get(StatKind.QUEUE_DEPTH) > 0);
    }

    @Test
    void releaseAgentSampled()
    {
        final StatFile file = StatFile.inMemory();
        final LimiterStats stats = file.limiter("egress-agent", 1, 0);
        final CachedNanoClock clock = new CachedNanoClock();
        final dev.cellrate.release.ReleaseAgent<String> agent = new dev.cellrate.release.ReleaseAgent<>(8,
            new dev.cellrate.release.ReleaseHandler<>()
            {
                public void onRelease(final String item, final long dueNs, final long nowNs)
                {
                }

                public void onHandBack(final String item, final long dueNs)
                {
                }
            }, clock);
        final StatSampler sampler = new StatSampler(clock, 1_000).add(agent, stats);
        clock.update(100);
        for (int i = 0; i < 5; i++)
        {
            assertEquals(Result.ADMITTED, agent.submit("item" + i, 50L + i * 100));
        }
        agent.doWork();
        sampler.sampleNow();
        final Map<StatKind, Long> values = valuesOf(file.reader(), "egress-agent");
        assertEquals(1L, values.get(StatKind.RELEASED), "one item due at 50 released at 100");
        assertEquals(4L, values.get(StatKind.RELEASE_OUTSTANDING));
        assertEquals(50L, values.get(StatKind.MAX_LATENESS_NS));
        assertEquals(1, sampler.doWork(), "first duty cycle samples");
        assertEquals(0, sampler.doWork(), "then not before the interval");
        clock.update(1_100);
        assertEquals(1, sampler.doWork());
    }

    @Test
    void stripedRecordingIsExactUnderThreads() throws InterruptedException
    {
        final StatFile file = StatFile.inMemory();
        final LimiterStats stats = file.limiter("shared", 2, 0);
        final int perThread = 500_000;
        final Thread[] threads = new Thread[3];
        for (int t = 0; t < threads.length; t++)
        {
            threads[t] = new Thread(() ->
            {
                for (int i = 0; i < perThread; i++)
                {
                    stats.record((i & 1) == 0 ? Result.ADMITTED : 1_000L);
                }
            });
            threads[t].start();
        }
        for (final Thread thread : threads)
        {
            thread.join();
        }
        assertEquals(threads.length * perThread / 2L, stats.outcome(StatKind.ADMITTED));
        assertEquals(threads.length * perThread / 2L, stats.outcome(StatKind.REJECTED));
    }

    @Test
    void everyCodeHasOneOutcome()
    {
        final StatFile file = StatFile.inMemory();
        final LimiterStats stats = file.limiter("codes", 1, 0);
        stats.record(Result.ADMITTED);
        stats.record(7);
        stats.record(Result.NEVER);
        stats.record(Result.TABLE_FULL);
        stats.record(Result.REJECTED_OVERFLOW);
        stats.record(Result.ADMITTED_TABLE_FULL);
        stats.record(Result.ADMITTED_OVERFLOW);
        stats.record(Result.CONCURRENCY_FULL);
        stats.record(Result.QUEUE_FULL);
        stats.record(Result.CLOSED);
        stats.record(Result.ADMITTED_FAIL_OPEN);
        stats.record(Result.REJECTED_FAIL_CLOSED);
        assertEquals(2, stats.outcome(StatKind.ADMITTED), "ADMITTED and the fail-open admission");
        assertEquals(1, stats.outcome(StatKind.REJECTED));
        assertEquals(1, stats.outcome(StatKind.NEVER_FIT));
        assertEquals(2, stats.outcome(StatKind.TABLE_FULL_REJECTED));
        assertEquals(2, stats.outcome(StatKind.TABLE_FULL_ADMITTED));
        assertEquals(4, stats.outcome(StatKind.OTHER_REJECTED));
        final LimiterStats tickets = file.limiter("tickets", 1, 0);
        final dev.cellrate.concurrency.ConcurrencyLimiter concurrency = new dev.cellrate.concurrency.ConcurrencyLimiter(2);
        for (int i = 0; i < 5; i++)
        {
            tickets.recordReservation(concurrency.tryAcquire());
        }
        assertEquals(2, tickets.outcome(StatKind.ADMITTED));
        assertEquals(3, tickets.outcome(StatKind.OTHER_REJECTED));
    }

    @Test
    void badConfigurationNamesTheField()
    {
        final StatFile file = StatFile.inMemory();
        assertTrue(assertThrows(IllegalArgumentException.class, () -> file.limiter("x", 3, 0))
            .getMessage().contains("stripes"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> file.limiter("x", 1, 1000))
            .getMessage().contains("topK"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> file.limiter("x".repeat(200), 1, 0))
            .getMessage().contains("name"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> StatFile.inMemory(1, 0))
            .getMessage().contains("maxCounters"));
        final StatFile small = StatFile.inMemory(16, 0);
        assertThrows(IllegalStateException.class, () -> small.limiter("y", 4, 0));
    }

    @Test
    void aReaderNoticesItsFileWasReplaced()
    {
        StatFile.create(dir, 16, 0).close();
        final StatReader reader = StatReader.open(dir, 1_000);
        assertTrue(!reader.isReplaced());
        StatFile.create(dir, 16, 0).close();
        assertTrue(reader.isReplaced(), "a new writer's file is a new file");
        assertTrue(!StatFile.inMemory(16, 0).reader().isReplaced());
    }

    @Test
    void readerWaitsForTheVersionAndRefusesAnotherMajor() throws Exception
    {
        assertThrows(IllegalStateException.class, () -> StatReader.open(dir.resolve("none"), 50));
        StatFile.create(dir, 16, 0).close();
        try (java.nio.channels.FileChannel channel = java.nio.channels.FileChannel.open(
            dir.resolve(StatLayout.FILE_NAME), java.nio.file.StandardOpenOption.WRITE))
        {
            final java.nio.ByteBuffer version = java.nio.ByteBuffer.allocate(4).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            version.putInt(0, org.agrona.SemanticVersion.compose(StatLayout.MAJOR_VERSION + 1, 0, 0));
            channel.write(version, StatLayout.VERSION_OFFSET);
        }
        assertTrue(assertThrows(IllegalStateException.class, () -> StatReader.open(dir, 50))
            .getMessage().contains("version"));
        assertTrue(Files.exists(dir.resolve(StatLayout.FILE_NAME)));
    }

    static Map<StatKind, Long> valuesOf(final StatReader reader, final String limiter)
    {
        final Map<StatKind, Long> values = new EnumMap<>(StatKind.class);
        for (final StatReader.Stat stat : reader.stats())
        {
            if (stat.limiter().equals(limiter))
            {
                values.put(stat.kind(), reader.value(stat));
            }
        }
        return values;
    }
}
