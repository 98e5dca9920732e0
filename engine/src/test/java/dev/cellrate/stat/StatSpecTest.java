package dev.cellrate.stat;

import dev.cellrate.TestFronts;
import dev.cellrate.observe.ShadowLimiter;
import dev.cellrate.observe.ObservedReserver;
import dev.cellrate.observe.ObservedMarker;
import dev.cellrate.observe.ObservedLimiter;
import dev.cellrate.observe.ObservedKeyedReserver;
import dev.cellrate.observe.ObservedKeyedLimiter;
import dev.cellrate.observe.ObservedConcurrencyLimiter;
import dev.cellrate.ClassedKeyedRateLimiter;
import dev.cellrate.Decision;
import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.RateLimiter;
import dev.cellrate.Result;
import dev.cellrate.TableFullPolicy;
import dev.cellrate.concurrency.ConcurrencyLimiter;
import dev.cellrate.ReconfigurableKeyedRateLimiter;
import dev.cellrate.KeyedShaper;
import dev.cellrate.Shaper;
import dev.cellrate.ShaperMode;
import dev.cellrate.table.SlotTable;
import dev.cellrate.tcm.Colour;
import dev.cellrate.tcm.SrTcm;
import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.NanoClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a user of the observing fronts, the sampler and the kinds sees (the cases PIT finds in
 * {@code dev.cellrate.stat}): every observed front answers as the front it wraps and counts, string keys go into
 * the sketch as their FNV-1a word, the sampler copies every statistic of every source it takes, the kinds'
 * labels and type ids, threads spread over stripes, and a reader that waits for a late writer.
 */
final class StatSpecTest
{
    @TempDir
    Path dir;

    private static final NanoClock ZERO = () -> 0;

    @Test
    void stringKeysEnterTheSketchAsTheFnv1aHashOfTheirChars()
    {
        // FNV-1a 64 reference values (the chars are ASCII, so these equal the byte-wise vectors).
        assertEquals(0xcbf29ce484222325L, TopKeys.keyOf(""));
        assertEquals(0xaf63dc4c8601ec8cL, TopKeys.keyOf("a"));
        assertEquals(0x85944171f73967e8L, TopKeys.keyOf("foobar"));
        assertEquals(0xaf62bd4c860004dfL, TopKeys.keyOf("\u0100"), "a char is one 16-bit step");

        final LimiterStats stats = StatFile.inMemory(64, 1 << 12).limiter("keys", 1, 4, 1);
        final KeyedRateLimiter keyed = KeyedRateLimiter.builder(Limit.ofGcra(1_000, 0)).slotCount(64).build();
        final ObservedKeyedLimiter limiter = ObservedKeyedLimiter.enforced(keyed, stats);
        assertSame(stats, limiter.stats());
        assertSame(keyed.clock(), limiter.clock());
        final Decision decision = new Decision();
        assertEquals(Result.ADMITTED, limiter.tryAcquire("foobar", 1, 0));
        assertTrue(limiter.tryAcquire("foobar", 1, 0) > 0);
        assertTrue(limiter.tryAcquire("foobar", 1, 0, decision) > 0);
        assertEquals(Result.ADMITTED, limiter.tryAcquire("a", 1, 0, decision));
        assertEquals(Result.ADMITTED, limiter.tryAcquire(5, 1, 0, decision));
        assertTrue(limiter.tryAcquire(5, 1, 0, decision) > 0);
        assertEquals(List.of(new TopKeys.Entry(0x85944171f73967e8L, 2, 0), new TopKeys.Entry(5, 1, 0)),
            List.of(stats.topKeys().top(4)), "admissions are not keys of the sketch");
        assertEquals(3, stats.outcome(StatKind.ADMITTED));
        assertEquals(3, stats.outcome(StatKind.REJECTED));

        final LimiterStats dryStats = StatFile.inMemory(64, 1 << 12).limiter("dry", 1, 4, 1);
        final ObservedKeyedLimiter dry = ObservedKeyedLimiter.dryRun(
            KeyedRateLimiter.builder(Limit.ofGcra(1_000, 0)).slotCount(64).build(), dryStats);
        assertEquals(Result.ADMITTED, dry.tryAcquire("a", 1, 0));
        assertEquals(Result.WOULD_HAVE_REJECTED, dry.tryAcquire("a", 1, 0));
        assertEquals(Result.WOULD_HAVE_REJECTED, dry.tryAcquire("a", 1, 0, decision));
        assertEquals(List.of(new TopKeys.Entry(0xaf63dc4c8601ec8cL, 2, 0)), List.of(dryStats.topKeys().top(4)));
        assertEquals(2, dryStats.outcome(StatKind.WOULD_REJECT));
    }

    @Test
    void observedFrontsAnswerAsTheWrappedFrontAndSayWhetherTheyEnforce()
    {
        final StatFile file = StatFile.inMemory();
        final LimiterStats stats = file.limiter("one", 1, 0);
        final RateLimiter rateLimiter = new RateLimiter(Limit.ofGcra(1_000, 0), ZERO);
        final ObservedLimiter enforced = ObservedLimiter.enforced(rateLimiter, stats);
        assertFalse(enforced.isDryRun());
        assertSame(stats, enforced.stats());
        assertSame(ZERO, enforced.clock());
        final Decision decision = new Decision();
        assertEquals(Result.ADMITTED, enforced.tryAcquire(1, 0, decision));
        assertEquals(1_000, enforced.tryAcquire(1, 0, decision), "the wrapped front's retry-after");
        final ObservedLimiter dry = ObservedLimiter.dryRun(new RateLimiter(Limit.ofGcra(1_000, 0), ZERO), stats);
        assertTrue(dry.isDryRun());
        assertEquals(Result.ADMITTED, dry.tryAcquire(1, 0, decision));
        assertEquals(Result.WOULD_HAVE_REJECTED, dry.tryAcquire(1, 0, decision));
        assertEquals(2, stats.outcome(StatKind.ADMITTED));
        assertEquals(2, stats.outcome(StatKind.REJECTED));
        assertEquals(1, stats.outcome(StatKind.WOULD_REJECT));

        final Shaper shaper = new Shaper(Limit.ofGcra(1_000, 0), ShaperMode.delay(), ZERO, 0);
        final ObservedReserver reserver = ObservedReserver.enforced(shaper, file.limiter("shaper", 1, 0));
        assertFalse(reserver.isDryRun());
        assertSame(ZERO, reserver.clock());
        assertTrue(ObservedReserver.dryRun(shaper, reserver.stats()).isDryRun());
        assertTrue(ObservedReserver.proceeds(0) && ObservedReserver.proceeds(5));
        assertTrue(ObservedReserver.proceeds(Result.WOULD_HAVE_REJECTED));
        assertFalse(ObservedReserver.proceeds(Result.QUEUE_FULL));
        assertFalse(ObservedReserver.proceeds(Result.ADMITTED_FAIL_OPEN), "a reservation's admissions are >= 0");
        assertFalse(ObservedReserver.proceeds(Result.encodeRetryAfter(5)));

        final KeyedShaper keyedShaper = TestFronts.keyedShaper(Limit.ofGcra(1_000, 0), ShaperMode.delay(),
            new SlotTable(1, 16, 16, 1_000_000_000L, 7L, ZERO), ZERO);
        assertSame(ZERO, ObservedKeyedReserver.enforced(keyedShaper, stats).clock());

        final ObservedConcurrencyLimiter slots =
            ObservedConcurrencyLimiter.enforced(new ConcurrencyLimiter(1), file.limiter("slots", 1, 0));
        assertFalse(slots.isDryRun());
        final long ticket = slots.tryAcquire();
        assertTrue(ticket >= 0);
        assertEquals(1, slots.inFlight());
        assertEquals(Result.CONCURRENCY_FULL, slots.tryAcquire());
        assertTrue(slots.release(ticket));
        assertFalse(slots.release(ticket), "a ticket releases once");
        assertEquals(0, slots.inFlight());
        assertTrue(ObservedConcurrencyLimiter.dryRun(new ConcurrencyLimiter(1), stats).isDryRun());

        final SrTcm marker = new SrTcm(1_000, 100, 100, ZERO);
        final ObservedMarker markers = ObservedMarker.enforced(marker, file.limiter("marker", 1, 0));
        assertFalse(markers.isDryRun());
        assertSame(ZERO, markers.clock());
        assertTrue(ObservedMarker.dryRun(marker, stats).isDryRun());
    }

    @Test
    void aShadowLimiterAnswersAsTheEnforcedOneInEveryFormAndChargesTheShadow()
    {
        final StatFile file = StatFile.inMemory();
        final RateLimiter shadow = new RateLimiter(Limit.ofGcra(1_000, 0), ZERO);
        final ShadowLimiter limiter = new ShadowLimiter(new RateLimiter(Limit.ofGcra(100, 100), ZERO),
            file.limiter("api", 1, 0), shadow, file.limiter("api.shadow", 1, 0));
        assertSame(ZERO, limiter.clock());
        final Decision decision = new Decision();
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 0, decision));
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 0, decision), "the enforced limit's answer");
        assertEquals(100, limiter.tryAcquire(1, 0, decision), "the enforced limit's retry-after");
        assertEquals(100, decision.retryAfterNs());
        assertTrue(shadow.tryAcquire(1, 0) > 0, "the shadow was charged");
        assertEquals(2, limiter.shadowStats().outcome(StatKind.WOULD_REJECT));
        assertEquals(2, limiter.enforcedStats().outcome(StatKind.ADMITTED));
        assertEquals(1, limiter.enforcedStats().outcome(StatKind.REJECTED));
        assertThrows(IllegalArgumentException.class, () -> new ShadowLimiter(shadow, null, shadow, null));
    }

    @Test
    void theSamplerCopiesEveryStatisticOfEveryKeyedFront() throws InterruptedException
    {
        final StatFile file = StatFile.inMemory();
        final CachedNanoClock clock = new CachedNanoClock();
        final StatSampler sampler = new StatSampler(clock, 1_000);
        assertEquals("cellrate-stat-sampler", sampler.roleName());

        // A full one-shard table whose keys go idle: new keys evict them; one more key finds it full.
        final KeyedRateLimiter keyed = KeyedRateLimiter.builder(Limit.ofGcra(1_000, 0)).slotCount(8).shardCount(1)
            .probeBound(8).idleGraceNs(1).tableFullPolicy(TableFullPolicy.REJECT).clock(clock).build();
        final LimiterStats keyedStats = file.limiter("keyed", 1, 0);
        assertSame(sampler, sampler.add(keyed, keyedStats));
        long nowNs = 0;
        for (long key = 0; key < 64; key++)
        {
            nowNs += 1_000_000;
            clock.update(nowNs);
            keyed.tryAcquire(key, 1, nowNs);
            keyed.tryAcquire(key, 1, nowNs);
        }
        // Two threads admitting on one key (each a CAS) until the table has counted a lost CAS (a retry).
        final long deadlineNs = System.nanoTime() + 30_000_000_000L;
        final long hotNowNs = nowNs;
        final Runnable hammer = () ->
        {
            long hotNs = hotNowNs;
            while (keyed.casRetries() == 0 && System.nanoTime() < deadlineNs)
            {
                for (int i = 0; i < 1_000; i++)
                {
                    hotNs += 1_000;
                    keyed.tryAcquire(99, 1, hotNs);
                }
            }
        };
        final Thread other = new Thread(hammer);
        other.start();
        hammer.run();
        other.join();
        assertTrue(keyed.evictions() > 0 && keyed.liveKeys() > 0 && keyed.casRetries() > 0,
            keyed.evictions() + " " + keyed.liveKeys() + " " + keyed.casRetries());
        final long fullBefore = keyed.tableFullEvents();
        clock.update(nowNs);
        for (long key = 1_000; key < 1_016; key++)
        {
            keyed.tryAcquire(key, 1, nowNs); // nothing idle at nowNs: the table is full
        }
        assertTrue(keyed.tableFullEvents() > fullBefore);

        final ClassedKeyedRateLimiter classed = TestFronts.classed(new Limit[]{ Limit.ofGcra(1_000, 0) },
            key -> 0, new SlotTable(4, 16, 16, 1_000_000_000L, 3L, ZERO), TableFullPolicy.REJECT);
        classed.tryAcquire(1, 1, 0);
        classed.tryAcquire(2, 1, 0);
        final LimiterStats classedStats = file.limiter("classed", 1, 0);
        assertSame(sampler, sampler.add(classed, classedStats));

        final ReconfigurableKeyedRateLimiter reconfigurable = TestFronts.reconfigurableKeyed(
            Limit.ofGcra(1_000, 0), new SlotTable(1, 16, 16, 1_000_000_000L, 3L, ZERO), TableFullPolicy.REJECT);
        reconfigurable.tryAcquire(1, 1, 0);
        reconfigurable.tryAcquire(2, 1, 0);
        reconfigurable.tryAcquire(3, 1, 0);
        final LimiterStats reconfigurableStats = file.limiter("reconfigurable", 1, 0);
        assertSame(sampler, sampler.add(reconfigurable, reconfigurableStats));

        final KeyedShaper keyedShaper = TestFronts.keyedShaper(Limit.ofGcra(1_000, 0), ShaperMode.delay(),
            new SlotTable(1, 16, 16, 1_000_000_000L, 7L, ZERO), ZERO);
        keyedShaper.reserve(1, 1, 0, null);
        final LimiterStats shaperStats = file.limiter("keyed-shaper", 1, 0);
        assertSame(sampler, sampler.add(keyedShaper, shaperStats));

        assertEquals(1, sampler.doWork(), "the first duty cycle samples");
        final Map<StatKind, Long> values = StatFileTest.valuesOf(file.reader(), "keyed");
        assertEquals(keyed.liveKeys(), values.get(StatKind.LIVE_KEYS));
        assertEquals(keyed.evictions(), values.get(StatKind.EVICTIONS));
        assertEquals(keyed.tableFullEvents(), values.get(StatKind.TABLE_FULL_EVENTS));
        assertEquals(keyed.casRetries(), values.get(StatKind.CAS_RETRIES));
        assertEquals(2L, StatFileTest.valuesOf(file.reader(), "classed").get(StatKind.LIVE_KEYS));
        assertEquals(3L, StatFileTest.valuesOf(file.reader(), "reconfigurable").get(StatKind.LIVE_KEYS));
        assertEquals(1L, StatFileTest.valuesOf(file.reader(), "keyed-shaper").get(StatKind.LIVE_KEYS));

        classed.tryAcquire(3, 1, 0);
        clock.update(nowNs + 999);
        assertEquals(0, sampler.doWork(), "not before the interval");
        assertEquals(2L, StatFileTest.valuesOf(file.reader(), "classed").get(StatKind.LIVE_KEYS));
        clock.update(nowNs + 1_000);
        assertEquals(1, sampler.doWork(), "at the interval");
        assertEquals(3L, StatFileTest.valuesOf(file.reader(), "classed").get(StatKind.LIVE_KEYS));
        assertThrows(IllegalArgumentException.class, () -> new StatSampler(clock, -1));
        assertThrows(IllegalArgumentException.class, () -> new StatSampler(clock, 3_600_000_000_001L));
        assertThrows(IllegalArgumentException.class, () -> new StatSampler(null, 0));
    }

    @Test
    void aShapersBacklogIsItsQueuedDelayInPermitsAndNeverNegative()
    {
        final StatFile file = StatFile.inMemory();
        final LimiterStats stats = file.limiter("egress", 1, 0);
        final CachedNanoClock clock = new CachedNanoClock();
        final Shaper shaper = new Shaper(Limit.ofGcra(1_000, 10_000), ShaperMode.delay(), clock, 0);
        final StatSampler sampler = new StatSampler(clock, 0).add(shaper, stats);
        final long startNs = 1_000_000;
        for (int i = 0; i < 5; i++)
        {
            assertTrue(Result.isReserved(shaper.reserve(1, startNs)));
        }
        clock.update(startNs);
        sampler.sampleNow();
        assertEquals(5L, StatFileTest.valuesOf(file.reader(), "egress").get(StatKind.QUEUE_DEPTH),
            "TAT 5 intervals ahead of now");
        clock.update(startNs + 2_500);
        sampler.sampleNow();
        assertEquals(2L, StatFileTest.valuesOf(file.reader(), "egress").get(StatKind.QUEUE_DEPTH), "2.5 rounds down");
        clock.update(startNs + 60_000);
        sampler.sampleNow();
        assertEquals(0L, StatFileTest.valuesOf(file.reader(), "egress").get(StatKind.QUEUE_DEPTH), "idle: 0");
    }

    @Test
    void aFullShaperHasNoBacklogAtAnyTime()
    {
        final StatFile file = StatFile.inMemory();
        final LimiterStats stats = file.limiter("egress", 1, 0);
        final CachedNanoClock clock = new CachedNanoClock();
        final Shaper shaper = new Shaper(Limit.ofGcra(1_000, 10_000), ShaperMode.delay());
        final StatSampler sampler = new StatSampler(clock, 0).add(shaper, stats);
        for (final long nowNs : new long[] {0, 1, 1_000_000, Long.MAX_VALUE, -1_000_000, Long.MIN_VALUE})
        {
            clock.update(nowNs);
            sampler.sampleNow();
            assertEquals(0L, StatFileTest.valuesOf(file.reader(), "egress").get(StatKind.QUEUE_DEPTH),
                "a shaper never charged queues nothing at " + nowNs);
        }
    }

    @Test
    void theKindsHaveFixedLabelsTypeIdsAndClasses()
    {
        final String[] labels = { "admitted", "rejected", "never-fit", "table-full-rejected", "table-full-admitted",
            "other-rejected", "would-reject", "live-keys", "evictions", "table-full-events", "cas-retries",
            "queue-depth", "release-outstanding", "released", "max-lateness-ns", "top-rejected-keys", "total-hits",
            "over-limit", "near-limit", "within-limit", "shadow-mode" };
        final StatKind[] kinds = StatKind.values();
        assertEquals(labels.length, kinds.length);
        for (int i = 0; i < kinds.length; i++)
        {
            assertEquals(labels[i], kinds[i].label());
            assertEquals(0x4352_0000 + i, kinds[i].typeId());
            assertSame(kinds[i], StatKind.ofTypeId(kinds[i].typeId()));
            assertEquals(i <= StatKind.WOULD_REJECT.ordinal(), kinds[i].isOutcome(), kinds[i].label());
        }
        assertNull(StatKind.ofTypeId(StatKind.TYPE_ID_BASE - 1));
        assertNull(StatKind.ofTypeId(StatKind.TYPE_ID_BASE + kinds.length));
        for (final StatKind level : new StatKind[]{ StatKind.LIVE_KEYS, StatKind.QUEUE_DEPTH,
            StatKind.RELEASE_OUTSTANDING, StatKind.MAX_LATENESS_NS, StatKind.TOP_KEYS })
        {
            assertFalse(level.isCumulative(), level.label());
        }
        for (final StatKind count : new StatKind[]{ StatKind.ADMITTED, StatKind.WOULD_REJECT, StatKind.EVICTIONS,
            StatKind.TABLE_FULL_EVENTS, StatKind.CAS_RETRIES, StatKind.RELEASED })
        {
            assertTrue(count.isCumulative(), count.label());
        }
    }

    @Test
    void coloursCountAsAPolicerTreatsThem()
    {
        final LimiterStats stats = StatFile.inMemory().limiter("colours", 1, 0);
        assertEquals(Colour.GREEN, stats.recordColour(Colour.GREEN));
        assertEquals(Colour.YELLOW, stats.recordColour(Colour.YELLOW));
        assertEquals(Colour.RED, stats.recordColour(Colour.RED));
        assertEquals(7, stats.recordColour(7));
        assertEquals(2, stats.outcome(StatKind.ADMITTED));
        assertEquals(1, stats.outcome(StatKind.REJECTED));
        assertEquals(1, stats.outcome(StatKind.OTHER_REJECTED), "not a colour");
        assertEquals(Colour.YELLOW, stats.dryRunColour(Colour.RED));
        assertEquals(Colour.GREEN, stats.dryRunColour(Colour.GREEN));
        assertEquals(1, stats.outcome(StatKind.WOULD_REJECT));
        assertEquals(StatKind.OTHER_REJECTED.ordinal(), Outcome.kindOfColour(-1));
        assertEquals(StatKind.ADMITTED.ordinal(), Outcome.kindOfReservation(0));
        assertEquals(StatKind.NEVER_FIT.ordinal(), Outcome.kindOfReservation(Result.NEVER));
        assertEquals(StatKind.TABLE_FULL_ADMITTED.ordinal(), Outcome.kindOf(Result.ADMITTED_OVERFLOW));
        assertTrue(Outcome.isAdmission(StatKind.ADMITTED.ordinal()));
        assertTrue(Outcome.isAdmission(StatKind.TABLE_FULL_ADMITTED.ordinal()));
        assertFalse(Outcome.isAdmission(StatKind.REJECTED.ordinal()));
        assertFalse(Outcome.isAdmission(StatKind.WOULD_REJECT.ordinal()));
    }

    @Test
    void threadsThatRecordGetDistinctStripesRoundRobin() throws InterruptedException
    {
        final StatFile file = StatFile.inMemory(64, 0);
        final LimiterStats stats = file.limiter("spread", 2, 0);
        for (int t = 0; t < 2; t++)
        {
            final Thread thread = new Thread(() -> stats.record(Result.ADMITTED));
            thread.start();
            thread.join();
        }
        final StatReader reader = file.reader();
        final StatReader.Stat admitted = reader.stats().get(0);
        assertEquals(2, admitted.counterIds().length);
        assertEquals(1, reader.counters().getCounterValue(admitted.counterIds()[0]), "one thread per stripe");
        assertEquals(1, reader.counters().getCounterValue(admitted.counterIds()[1]));
        assertEquals(2, stats.outcome(StatKind.ADMITTED));
    }

    @Test
    void aReaderWaitsForAWriterThatComesLate() throws Exception
    {
        final Thread writer = new Thread(() ->
        {
            try
            {
                Thread.sleep(300);
            }
            catch (final InterruptedException ex)
            {
                throw new IllegalStateException(ex);
            }
            StatFile.create(dir).limiter("late").record(Result.ADMITTED);
        });
        writer.start();
        try (StatReader reader = StatReader.open(dir, 30_000))
        {
            writer.join();
            assertEquals(StatFile.DEFAULT_MAX_COUNTERS, reader.counters().maxCounterId() + 1, "default capacities");
            assertEquals("late", reader.stats().get(0).limiter());
            assertEquals(StatFile.DEFAULT_STRIPES, reader.stats().get(0).counterIds().length);
            assertEquals(StatFile.DEFAULT_TOP_K, reader.sketches().get(0).k());
        }
    }

    @Test
    void anInterruptedWaitIsRefusedAndKeepsTheInterrupt()
    {
        Thread.currentThread().interrupt();
        try
        {
            final String message = assertThrows(IllegalStateException.class,
                () -> StatReader.open(dir.resolve("none"), 10_000)).getMessage();
            assertTrue(message.startsWith("interrupted"), message);
            assertTrue(Thread.currentThread().isInterrupted(), "the interrupt is kept for the caller");
        }
        finally
        {
            Thread.interrupted();
        }
    }
}
