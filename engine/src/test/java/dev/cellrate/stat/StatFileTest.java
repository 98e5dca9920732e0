package dev.cellrate.stat;

import dev.cellrate.TestFronts;
import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.RateLimiter;
import dev.cellrate.Result;
import dev.cellrate.ShaperMode;
import dev.cellrate.TableFullPolicy;
import dev.cellrate.Shaper;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.agrona.IoUtil;
import org.agrona.SemanticVersion;
import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersManager;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
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
        final Shaper shaper = dev.cellrate.TestShapers.shaper(Limit.perSecond(10, 1), ShaperMode.delay(), dev.cellrate.layout.CellArray.allocate(1), 0, clock);
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
        assertEquals((TestFronts.tatNs(shaper) - 0) / Limit.perSecond(10, 1).emissionIntervalNs(),
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

    /**
     * What another process reading a {@link StatFile} sees (the cases PIT finds in {@code dev.cellrate.stat}):
     * the header words of {@link StatLayout} at their offsets, in the machine's byte order; one Agrona counter per
     * outcome and stripe with its key and label, in registration order; sketches at consecutive offsets; a file of
     * a newer minor version read (statistics it does not know skipped), another major version or a truncated file
     * refused with a message that says so; registration refused by name and without leaving half a limiter behind.
     */
    @Nested
    final class Specification
    {
        private static final int OUTCOMES = StatKind.WOULD_REJECT.ordinal() + 1;

        @TempDir
        Path dir;

        private ByteBuffer fileBytes() throws Exception
        {
            return ByteBuffer.wrap(Files.readAllBytes(dir.resolve(StatLayout.FILE_NAME))).order(ByteOrder.nativeOrder());
        }

        @Test
        void theHeaderHoldsTheLayoutsWordsAtTheirOffsets() throws Exception
        {
            final long beforeMs = System.currentTimeMillis();
            try (StatFile file = StatFile.create(dir, 32, 4096))
            {
                final long afterMs = System.currentTimeMillis();
                assertEquals(dir.resolve(StatLayout.FILE_NAME), file.path());
                final ByteBuffer bytes = fileBytes();
                final int metadataLength = 32 * CountersReader.METADATA_LENGTH;
                final int valuesLength = 32 * CountersReader.COUNTER_LENGTH;
                assertEquals(metadataLength, StatLayout.metadataLength(32));
                assertEquals(valuesLength, StatLayout.valuesLength(32));
                assertEquals(StatLayout.fileLength(metadataLength, valuesLength, 4096), bytes.capacity());
                assertEquals(128L + metadataLength + valuesLength + 4096, bytes.capacity());
                assertEquals(SemanticVersion.compose(1, 0, 0), bytes.getInt(0));
                assertEquals(StatLayout.VERSION, bytes.getInt(StatLayout.VERSION_OFFSET));
                assertEquals(metadataLength, bytes.getInt(4));
                assertEquals(valuesLength, bytes.getInt(8));
                assertEquals(4096, bytes.getInt(12));
                assertEquals(ProcessHandle.current().pid(), bytes.getLong(16));
                final long startMs = bytes.getLong(24);
                assertTrue(startMs >= beforeMs && startMs <= afterMs, startMs + " not in [" + beforeMs + ", " + afterMs + "]");
                try (StatReader reader = StatReader.open(dir, 1_000))
                {
                    assertEquals(ProcessHandle.current().pid(), reader.pid());
                    assertEquals(startMs, reader.startTimestampMs());
                    assertEquals(32, reader.counters().maxCounterId() + 1);
                }
                assertEquals(0, file.reader().startTimestampMs(), "an in-process reader has no start time");
                assertEquals(ProcessHandle.current().pid(), file.reader().pid());
            }
        }

        @Test
        void everyOutcomeAndStripeIsOneCounterWithItsKeyAndLabelInRegistrationOrder() throws Exception
        {
            try (StatFile file = StatFile.create(dir, 64, TopKeys.length(4, 2) + TopKeys.length(2, 1)))
            {
                final LimiterStats api = file.limiter("api", 2, 4);
                final LimiterStats solo = file.limiter("solo", 1, 2, 1);
                assertEquals(0, api.limiterId());
                assertEquals(1, solo.limiterId());
                assertEquals("api", api.name());
                assertEquals(2, api.stripes());
                assertEquals(1, solo.stripes());
                final int liveKeys = api.gauge(StatKind.LIVE_KEYS);
                assertEquals(liveKeys, api.gauge(StatKind.LIVE_KEYS), "a gauge is allocated once");
                api.set(liveKeys, 42);

                try (StatReader reader = StatReader.open(dir, 1_000))
                {
                    final CountersReader counters = reader.counters();
                    final List<String> labels = new ArrayList<>();
                    counters.forEach((id, label) -> labels.add(label));
                    final List<String> expected = new ArrayList<>();
                    expected.add("api top-rejected-keys");
                    for (int kind = 0; kind < OUTCOMES; kind++)
                    {
                        expected.add("api " + StatKind.values()[kind].label() + " #0");
                        expected.add("api " + StatKind.values()[kind].label() + " #1");
                    }
                    expected.add("solo top-rejected-keys");
                    for (int kind = 0; kind < OUTCOMES; kind++)
                    {
                        expected.add("solo " + StatKind.values()[kind].label());
                    }
                    expected.add("api live-keys");
                    assertEquals(expected, labels);

                    // Counter 0: api's sketch, its key says (limiter 0, k = 4, stripes 2, "api"), its value the offset 0.
                    assertKey(counters, 0, StatKind.TOP_KEYS, 0, 4, 2, "api");
                    assertEquals(0, counters.getCounterValue(0));
                    // Counters 1..14: api's outcomes, kind by kind, stripe by stripe.
                    assertKey(counters, 1, StatKind.ADMITTED, 0, 0, 2, "api");
                    assertKey(counters, 2, StatKind.ADMITTED, 0, 1, 2, "api");
                    assertKey(counters, 14, StatKind.WOULD_REJECT, 0, 1, 2, "api");
                    // Counter 15: solo's sketch right after api's, then its outcomes on one stripe.
                    assertKey(counters, 15, StatKind.TOP_KEYS, 1, 2, 1, "solo");
                    assertEquals(TopKeys.length(4, 2), counters.getCounterValue(15));
                    assertKey(counters, 16, StatKind.ADMITTED, 1, 0, 1, "solo");
                    assertKey(counters, 23, StatKind.LIVE_KEYS, 0, 0, 1, "api");
                    assertEquals(42, counters.getCounterValue(23));

                    final List<StatReader.Stat> stats = reader.stats();
                    assertEquals(2 * OUTCOMES + 1, stats.size(), "one statistic per limiter and kind, sketches apart");
                    assertEquals(StatKind.ADMITTED, stats.get(0).kind());
                    assertArrayEquals(new int[]{ 1, 2 }, stats.get(0).counterIds(), "api's admitted: its two stripes");
                    assertEquals("api", stats.get(0).limiter());
                    assertArrayEquals(new int[]{ 13, 14 }, stats.get(OUTCOMES - 1).counterIds());
                    assertEquals(1, stats.get(OUTCOMES).limiterId(), "in the order of their first counter: solo's next");
                    assertArrayEquals(new int[]{ 16 }, stats.get(OUTCOMES).counterIds());
                    assertEquals(StatKind.LIVE_KEYS, stats.get(2 * OUTCOMES).kind(), "then api's gauge, allocated last");
                    assertEquals("api", stats.get(2 * OUTCOMES).limiter());

                    final List<StatReader.Sketch> sketches = reader.sketches();
                    assertEquals(List.of(
                        new StatReader.Sketch(0, "api", 0, 4, 2).toString(),
                        new StatReader.Sketch(1, "solo", TopKeys.length(4, 2), 2, 1).toString()),
                        sketches.stream().map(StatReader.Sketch::toString).toList());

                    // Known calls, read back by the other side: values summed over the stripes.
                    api.record(Result.ADMITTED);
                    api.record(Result.ADMITTED);
                    api.record(7, 1_000L);
                    assertEquals(Result.WOULD_HAVE_REJECTED, api.dryRun(1_000L));
                    assertEquals(Result.NEVER, api.record(Result.NEVER));
                    solo.record(9, 5L);
                    solo.record(9, 5L);
                    solo.record(8, 5L);
                    assertEquals(2, reader.value(stats.get(StatKind.ADMITTED.ordinal())));
                    assertEquals(2, reader.value(stats.get(StatKind.REJECTED.ordinal())));
                    assertEquals(1, reader.value(stats.get(StatKind.NEVER_FIT.ordinal())));
                    assertEquals(1, reader.value(stats.get(StatKind.WOULD_REJECT.ordinal())));
                    assertEquals(42, reader.value(stats.get(2 * OUTCOMES)));
                    assertEquals(3, reader.value(stats.get(OUTCOMES + StatKind.REJECTED.ordinal())));
                    assertEquals(List.of(new TopKeys.Entry(9, 2, 0), new TopKeys.Entry(8, 1, 0)),
                        List.of(reader.top(sketches.get(1), 10)), "solo samples every rejection");
                    assertEquals(1, reader.top(sketches.get(1), 1).length);
                }
            }
        }

        private static void assertKey(
            final CountersReader counters, final int counterId, final StatKind kind, final int limiterId,
            final int stripe, final int stripes, final String name)
        {
            assertEquals(kind.typeId(), counters.getCounterTypeId(counterId));
            assertEquals(kind, StatKind.ofTypeId(counters.getCounterTypeId(counterId)));
            final int key = CountersReader.metaDataOffset(counterId) + CountersReader.KEY_OFFSET;
            final org.agrona.DirectBuffer metadata = counters.metaDataBuffer();
            assertEquals(limiterId, metadata.getInt(key + StatLayout.KEY_LIMITER_ID_OFFSET), "limiter id of " + counterId);
            assertEquals(stripe, metadata.getInt(key + StatLayout.KEY_STRIPE_OFFSET), "stripe of " + counterId);
            assertEquals(stripes, metadata.getInt(key + StatLayout.KEY_STRIPES_OFFSET), "stripes of " + counterId);
            assertEquals(name.length(), metadata.getInt(key + StatLayout.KEY_NAME_LENGTH_OFFSET));
            assertEquals(name, metadata.getStringWithoutLengthAscii(key + StatLayout.KEY_NAME_OFFSET, name.length()));
        }

        @Test
        void theLayoutsOffsetsAreChainedAsDrawn()
        {
            assertEquals(0, StatLayout.VERSION_OFFSET);
            assertEquals(4, StatLayout.METADATA_LENGTH_OFFSET);
            assertEquals(8, StatLayout.VALUES_LENGTH_OFFSET);
            assertEquals(12, StatLayout.SKETCH_LENGTH_OFFSET);
            assertEquals(16, StatLayout.PID_OFFSET);
            assertEquals(24, StatLayout.START_TIMESTAMP_OFFSET);
            assertEquals(128, StatLayout.HEADER_LENGTH);
            assertEquals(16, StatLayout.KEY_NAME_OFFSET);
            assertEquals(CountersReader.MAX_KEY_LENGTH - 16, StatLayout.MAX_NAME_LENGTH);
            assertEquals(3L * Integer.MAX_VALUE + 128, StatLayout.fileLength(Integer.MAX_VALUE, Integer.MAX_VALUE,
                Integer.MAX_VALUE), "the file length is computed in long");
        }

        /** Writes a file as a writer of {@code version} would, with one counter of each given type id. */
        private void writeFile(final int version, final int... typeIds) throws Exception
        {
            final int maxCounters = 16;
            final int metadataLength = StatLayout.metadataLength(maxCounters);
            final int valuesLength = StatLayout.valuesLength(maxCounters);
            final long length = StatLayout.fileLength(metadataLength, valuesLength, 0);
            Files.deleteIfExists(dir.resolve(StatLayout.FILE_NAME));
            final MappedByteBuffer mapped = IoUtil.mapNewFile(dir.resolve(StatLayout.FILE_NAME).toFile(), length, true);
            final UnsafeBuffer whole = new UnsafeBuffer(mapped);
            whole.putInt(StatLayout.METADATA_LENGTH_OFFSET, metadataLength);
            whole.putInt(StatLayout.VALUES_LENGTH_OFFSET, valuesLength);
            whole.putInt(StatLayout.SKETCH_LENGTH_OFFSET, 0);
            final CountersManager counters = new CountersManager(
                new UnsafeBuffer(mapped, StatLayout.HEADER_LENGTH, metadataLength),
                new UnsafeBuffer(mapped, StatLayout.HEADER_LENGTH + metadataLength, valuesLength), StandardCharsets.US_ASCII);
            final UnsafeBuffer key = new UnsafeBuffer(new byte[StatLayout.KEY_NAME_OFFSET + 3]);
            key.putInt(StatLayout.KEY_STRIPES_OFFSET, 1);
            key.putInt(StatLayout.KEY_NAME_LENGTH_OFFSET, 3);
            key.putStringWithoutLengthAscii(StatLayout.KEY_NAME_OFFSET, "new");
            for (final int typeId : typeIds)
            {
                final UnsafeBuffer label = new UnsafeBuffer(("new " + typeId).getBytes(StandardCharsets.US_ASCII));
                final int id = counters.allocate(typeId, key, 0, key.capacity(), label, 0, label.capacity());
                counters.setCounterValue(id, 100 + id);
            }
            whole.putIntRelease(StatLayout.VERSION_OFFSET, version);
            mapped.force();
        }

        @Test
        void aFileOfANewerMinorVersionIsReadAndStatisticsThisReaderDoesNotKnowAreSkipped() throws Exception
        {
            final int unknownKind = StatKind.TYPE_ID_BASE + StatKind.values().length;
            writeFile(SemanticVersion.compose(StatLayout.MAJOR_VERSION, 7, 0),
                StatKind.ADMITTED.typeId(), unknownKind, 1 /* a foreign (e.g. Aeron) counter */, StatKind.TYPE_ID_BASE - 1,
                StatKind.REJECTED.typeId());
            try (StatReader reader = StatReader.open(dir, 1_000))
            {
                final List<StatReader.Stat> stats = reader.stats();
                assertEquals(2, stats.size(), stats.toString());
                assertEquals(StatKind.ADMITTED, stats.get(0).kind());
                assertEquals("new", stats.get(0).limiter());
                assertEquals(100, reader.value(stats.get(0)));
                assertEquals(StatKind.REJECTED, stats.get(1).kind());
                assertEquals(104, reader.value(stats.get(1)));
                assertTrue(reader.sketches().isEmpty());
            }
        }

        @Test
        void aFileOfAnotherMajorVersionIsRefusedNamingBothVersions() throws Exception
        {
            writeFile(SemanticVersion.compose(StatLayout.MAJOR_VERSION + 1, 0, 0), StatKind.ADMITTED.typeId());
            final String newer = assertThrows(IllegalStateException.class, () -> StatReader.open(dir, 1_000)).getMessage();
            assertTrue(newer.contains("2.0.0") && newer.contains("major version 1"), newer);

            writeFile(SemanticVersion.compose(StatLayout.MAJOR_VERSION - 1, 9, 0), StatKind.ADMITTED.typeId());
            final String older = assertThrows(IllegalStateException.class, () -> StatReader.open(dir, 1_000)).getMessage();
            assertTrue(older.contains("0.9.0") && older.contains("major version 1"), older);
        }

        @Test
        void aFileShorterThanItsHeaderSaysIsRefusedAsTruncated() throws Exception
        {
            try (StatFile file = StatFile.create(dir, 16, 1024))
            {
                file.limiter("api", 1, 0).record(Result.ADMITTED);
            }
            final Path path = dir.resolve(StatLayout.FILE_NAME);
            final long length = Files.size(path);
            try (RandomAccessFile raf = new RandomAccessFile(path.toFile(), "rw"))
            {
                raf.setLength(length - 1);
            }
            final String message = assertThrows(IllegalStateException.class, () -> StatReader.open(dir, 1_000)).getMessage();
            assertTrue(message.contains("truncated") && message.contains(Long.toString(length - 1)) &&
                message.contains(Long.toString(length)), message);

            try (RandomAccessFile raf = new RandomAccessFile(path.toFile(), "rw"))
            {
                raf.setLength(length);
            }
            try (StatReader reader = assertDoesNotThrow(() -> StatReader.open(dir, 1_000)))
            {
                assertEquals(1, reader.value(reader.stats().get(0)), "the whole file reads again");
            }

            // A header whose lengths cannot describe any file (a negative length) is refused the same way.
            for (final int offset : new int[]{ StatLayout.METADATA_LENGTH_OFFSET, StatLayout.VALUES_LENGTH_OFFSET,
                StatLayout.SKETCH_LENGTH_OFFSET })
            {
                writeFile(StatLayout.VERSION, StatKind.ADMITTED.typeId());
                putInt(offset, -1);
                final String corrupt = assertThrows(IllegalStateException.class, () -> StatReader.open(dir, 1_000))
                    .getMessage();
                assertTrue(corrupt.contains("truncated") && corrupt.contains("-1"), corrupt);
            }
            // A header that describes no counters and no sketches (lengths 0) is a valid, empty file.
            Files.deleteIfExists(dir.resolve(StatLayout.FILE_NAME));
            final ByteBuffer empty = ByteBuffer.allocate(StatLayout.HEADER_LENGTH).order(ByteOrder.nativeOrder());
            empty.putInt(StatLayout.VERSION_OFFSET, StatLayout.VERSION);
            Files.write(dir.resolve(StatLayout.FILE_NAME), empty.array());
            try (StatReader reader = StatReader.open(dir, 1_000))
            {
                assertTrue(reader.stats().isEmpty() && reader.sketches().isEmpty());
            }
            // Lengths that fit the file exactly read (the sketch region empty).
            writeFile(StatLayout.VERSION, StatKind.ADMITTED.typeId());
            try (StatReader reader = StatReader.open(dir, 1_000))
            {
                assertEquals(1, reader.stats().size());
            }
        }

        private void putInt(final int offset, final int value) throws Exception
        {
            try (java.nio.channels.FileChannel channel = java.nio.channels.FileChannel.open(
                dir.resolve(StatLayout.FILE_NAME), java.nio.file.StandardOpenOption.WRITE))
            {
                channel.write(ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(0, value), offset);
            }
        }

        @Test
        void aFileStillShorterThanItsHeaderIsReportedWhenTheWaitEnds() throws Exception
        {
            Files.write(dir.resolve(StatLayout.FILE_NAME), new byte[StatLayout.HEADER_LENGTH - 1]);
            final String message = assertThrows(IllegalStateException.class, () -> StatReader.open(dir, 30)).getMessage();
            assertTrue(message.contains("truncated") && message.contains(StatLayout.FILE_NAME) &&
                message.contains(Integer.toString(StatLayout.HEADER_LENGTH - 1)), message);
            final String absent = assertThrows(IllegalStateException.class, () -> StatReader.open(dir.resolve("none"), 30))
                .getMessage();
            assertTrue(absent.contains("no statistics file"), absent);

            Files.write(dir.resolve(StatLayout.FILE_NAME), new byte[StatLayout.HEADER_LENGTH]);
            final String never = assertThrows(IllegalStateException.class, () -> StatReader.open(dir, 30)).getMessage();
            assertTrue(never.contains("never initialised"), "a header whose version is never written: " + never);
        }

        @Test
        void theFileStaysReadableWithItsLastValuesAfterCloseAndANewWriterReplacesIt() throws Exception
        {
            final Path nested = dir.resolve("a").resolve("b");
            final StatFile file = StatFile.create(nested, 16, 0);
            final LimiterStats stats = file.limiter("api", 1, 0);
            stats.record(Result.ADMITTED);
            file.close();
            file.close();
            assertEquals("closed", assertThrows(IllegalStateException.class, () -> file.limiter("late", 1, 0)).getMessage());
            assertEquals("closed", assertThrows(IllegalStateException.class, () -> stats.gauge(StatKind.LIVE_KEYS))
                .getMessage(), "no new counter after close");
            stats.record(Result.ADMITTED);
            try (StatReader reader = StatReader.open(nested, 1_000))
            {
                assertEquals(2, reader.value(reader.stats().get(0)), "recording after close still reaches the file");
                assertFalse(reader.isReplaced());
                try (StatFile next = StatFile.create(nested, 16, 0))
                {
                    assertTrue(reader.isReplaced());
                    try (StatReader fresh = StatReader.open(nested, 1_000))
                    {
                        assertTrue(fresh.stats().isEmpty(), "the new writer's file starts empty");
                    }
                }
            }
            assertNull(StatFile.inMemory(16, 0).path());
        }

        @Test
        void capacitiesAndRegistrationAreRefusedByName()
        {
            assertName("maxCounters", () -> StatFile.inMemory(15, 0));
            assertName("maxCounters", () -> StatFile.inMemory((1 << 20) + 1, 0));
            assertName("sketchLength", () -> StatFile.inMemory(16, -1));
            assertName("sketchLength", () -> StatFile.inMemory(16, (1 << 28) + 1));
            assertName("maxCounters", () -> StatFile.create(dir, 15, 0));
            assertFalse(Files.exists(dir.resolve(StatLayout.FILE_NAME)), "a refused file is not created");

            final StatFile file = StatFile.inMemory(1024, 1 << 20);
            assertName("sampleEvery", () -> file.limiter("x", 1, 4, 0));
            assertName("sampleEvery", () -> file.limiter("x", 1, 4, 2048));
            assertName("sampleEvery", () -> file.limiter("x", 1, 4, 3));
            assertName("stripes", () -> file.limiter("x", 0, 4));
            assertName("stripes", () -> file.limiter("x", 128, 4));
            assertName("stripes", () -> file.limiter("x", 6, 4));
            assertName("topK", () -> file.limiter("x", 1, -1));
            assertName("topK", () -> file.limiter("x", 1, TopKeys.MAX_K + 1));
            assertName("name", () -> file.limiter(null, 1, 0));
            assertName("name", () -> file.limiter("", 1, 0));
            assertName("name", () -> file.limiter("x".repeat(StatLayout.MAX_NAME_LENGTH + 1), 1, 0));
            assertName("name", () -> file.limiter("caf\u00e9", 1, 0));
            assertTrue(file.reader().stats().isEmpty(), "nothing registered by a refused call");

            final LimiterStats longest = file.limiter("x".repeat(StatLayout.MAX_NAME_LENGTH), 64, TopKeys.MAX_K, 1024);
            assertEquals(StatLayout.MAX_NAME_LENGTH, longest.name().length());
            assertEquals(1024, longest.topKeysSampleEvery());
            assertEquals(TopKeys.MAX_K, longest.topKeys().k());
            assertEquals(64, longest.topKeys().stripes());
            final LimiterStats exact = file.limiter("exact", 1, 0, 1);
            assertEquals(1, exact.topKeysSampleEvery());
            assertNull(exact.topKeys(), "topK 0: no sketch");
            assertName("not an outcome", () -> exact.outcome(StatKind.LIVE_KEYS));
            assertName("not a sampled statistic", () -> exact.gauge(StatKind.ADMITTED));
            assertName("not a sampled statistic", () -> exact.gauge(StatKind.TOP_KEYS));
        }

        private static void assertName(final String field, final org.junit.jupiter.api.function.Executable executable)
        {
            final String message = assertThrows(IllegalArgumentException.class, executable).getMessage();
            assertTrue(message.contains(field), message);
        }

        @Test
        void aFullFileRefusesARegistrationWholeAndTheExactFitIsAccepted()
        {
            // 16 counters: one limiter on two stripes takes 7 x 2 = 14, two gauges fill the rest exactly.
            final StatFile counters = StatFile.inMemory(16, 0);
            final LimiterStats api = counters.limiter("api", 2, 0);
            api.gauge(StatKind.LIVE_KEYS);
            api.gauge(StatKind.EVICTIONS);
            final String full = assertThrows(IllegalStateException.class, () -> api.gauge(StatKind.CAS_RETRIES)).getMessage();
            assertTrue(full.contains("no counters left") && full.contains("16"), full);

            // A limiter that does not fit is refused before any of its counters exists.
            final StatFile small = StatFile.inMemory(16, 0);
            small.limiter("a", 1, 0);
            assertThrows(IllegalStateException.class, () -> small.limiter("b", 2, 0));
            final List<StatReader.Stat> stats = small.reader().stats();
            assertEquals(OUTCOMES, stats.size(), "no half-registered limiter b: " + stats);
            final LimiterStats c = small.limiter("c", 1, 0);
            assertEquals(2 * OUTCOMES, small.reader().stats().size(), "c still fits: b took no counter");
            assertEquals("c", small.reader().stats().get(OUTCOMES).limiter());
            assertEquals(1, c.limiterId(), "limiter ids stay dense");

            // A limiter needs 7 counters per stripe, plus one for its sketch: 14 left take (2 stripes, no sketch)
            // exactly, and refuse (2 stripes, a sketch) whole.
            final StatFile exact = StatFile.inMemory(21, TopKeys.length(1, 2));
            exact.limiter("a", 1, 0);
            assertTrue(assertThrows(IllegalStateException.class, () -> exact.limiter("b", 2, 1)).getMessage()
                .contains("b needs 15, 14 of 21 free"));
            assertEquals(OUTCOMES, exact.reader().stats().size(), "no half-registered b");
            assertTrue(exact.reader().sketches().isEmpty(), "not even its sketch");
            exact.limiter("c", 2, 0);
            assertEquals(2 * OUTCOMES, exact.reader().stats().size());

            // A closed file says so first, even when it is also full.
            final StatFile closed = StatFile.inMemory(16, 0);
            closed.limiter("a", 2, 0);
            closed.close();
            assertEquals("closed", assertThrows(IllegalStateException.class, () -> closed.limiter("b", 1, 0)).getMessage());

            // The sketch region: an exact fit is accepted, one byte short is refused.
            final StatFile sketches = StatFile.inMemory(64, TopKeys.length(4, 2));
            assertEquals(0, sketches.limiter("fits", 2, 4).topKeys().offset());
            assertNull(sketches.limiter("no-sketch", 1, 0).topKeys(), "a full region still takes limiters without a sketch");
            final String region = assertThrows(IllegalStateException.class, () -> sketches.limiter("more", 1, 1)).getMessage();
            assertTrue(region.contains("sketch region full") && region.contains(Integer.toString(TopKeys.length(4, 2))), region);
            assertEquals(2 * OUTCOMES + 1, sketches.reader().stats().size() + sketches.reader().sketches().size());
            final StatFile short1 = StatFile.inMemory(64, TopKeys.length(4, 2) - 1);
            assertThrows(IllegalStateException.class, () -> short1.limiter("fits", 2, 4));
        }
    }
}
