package dev.cellrate.stat;

import dev.cellrate.TestFronts;
import dev.cellrate.observe.ObservedReserver;
import dev.cellrate.observe.ObservedMarker;
import dev.cellrate.observe.ObservedKeyedReserver;
import dev.cellrate.observe.ObservedConcurrencyLimiter;
import dev.cellrate.KeyedReserver;
import dev.cellrate.Limit;
import dev.cellrate.Marker;
import dev.cellrate.Reserver;
import dev.cellrate.Result;
import dev.cellrate.concurrency.ConcurrencyLimiter;
import dev.cellrate.KeyedShaper;
import dev.cellrate.Reservation;
import dev.cellrate.Shaper;
import dev.cellrate.ShaperMode;
import dev.cellrate.table.SlotTable;
import dev.cellrate.tcm.Colour;
import dev.cellrate.tcm.SrTcm;
import dev.cellrate.tcm.TrTcm;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayDeque;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Dry-run on the fronts that are not policing limiters (the sibling of {@link DryRunEveryFrontTest}): shapers
 * (reservations), keyed shapers, the concurrency limit and the srTCM/trTCM markers. Two instances see the same
 * seeded trace, one enforced, one in dry-run: the dry-run one never rejects (never RED for a marker), decides
 * exactly as the enforced one (same delays, tickets, colours otherwise), and its would-reject count equals the
 * enforced rejections exactly; the enforced wrapper's counters equal the trace.
 */
final class DryRunReservingFrontsTest
{
    @ParameterizedTest
    @ValueSource(strings = {"delay", "nodelay"})
    void shaperDryRunNeverRejectsAndCountsWhatEnforcingRejects(final String modeName)
    {
        final ShaperMode mode = "delay".equals(modeName) ? ShaperMode.delay(3) : ShaperMode.nodelay();
        final Limit limit = Limit.perSecond(10, 5);
        final StatFile file = StatFile.inMemory();
        final Reserver enforced = ObservedReserver.enforced(new Shaper(limit, mode), file.limiter("enforced", 1, 0));
        final LimiterStats dryStats = file.limiter("dry", 1, 0);
        final ObservedReserver dry = ObservedReserver.dryRun(new Shaper(limit, mode), dryStats);
        final SplittableRandom random = new SplittableRandom(modeName.hashCode());
        final Reservation reservation = new Reservation();
        long rejections = 0;
        long nowNs = 1_000_000_000L;
        for (int i = 0; i < 20_000; i++)
        {
            nowNs += random.nextLong(0, 150_000_000L);
            final long permits = random.nextInt(40) == 0 ? 1 + random.nextInt(8) : 1;
            final long enforcedCode = enforced.reserve(permits, nowNs);
            final long dryCode = (i & 1) == 0 ? dry.reserve(permits, nowNs) : dry.reserve(permits, nowNs, reservation);
            assertTrue(Result.isReserved(dryCode), "dry-run rejected: " + dryCode);
            if (Result.isReserved(enforcedCode))
            {
                assertEquals(enforcedCode, dryCode, "same delay at " + i);
            }
            else
            {
                assertEquals(0, dryCode, "a dry-run pass goes now, at " + i);
                rejections++;
            }
        }
        assertTrue(rejections > 1_000, "the trace must reject: " + rejections);
        assertEquals(rejections, dryStats.outcome(StatKind.WOULD_REJECT));
        final LimiterStats enforcedStats = ((ObservedReserver)enforced).stats();
        assertEquals(enforcedStats.outcome(StatKind.REJECTED) + enforcedStats.outcome(StatKind.NEVER_FIT), rejections);
        assertEquals(enforcedStats.outcome(StatKind.ADMITTED), dryStats.outcome(StatKind.ADMITTED));
        assertEquals(0, enforcedStats.outcome(StatKind.WOULD_REJECT));
    }

    @Test
    void keyedShaperDryRunCountsPerKeyRejectionsAndTopKeys()
    {
        final Limit limit = Limit.perSecond(10, 3);
        final StatFile file = StatFile.inMemory();
        final LimiterStats enforcedStats = file.limiter("enforced", 1, 4);
        final LimiterStats dryStats = file.limiter("dry", 1, 4);
        final KeyedReserver enforced = ObservedKeyedReserver.enforced(TestFronts.keyedShaper(limit, ShaperMode.delay(2),
            new SlotTable(4, 64, 64, 1_000_000_000L, 7L, () -> Long.MAX_VALUE), SystemNanoClock.INSTANCE), enforcedStats);
        final KeyedReserver dry = ObservedKeyedReserver.dryRun(TestFronts.keyedShaper(limit, ShaperMode.delay(2),
            new SlotTable(4, 64, 64, 1_000_000_000L, 7L, () -> Long.MAX_VALUE), SystemNanoClock.INSTANCE), dryStats);
        final SplittableRandom random = new SplittableRandom(5);
        final String[] names = {"a", "b", "c"};
        long rejections = 0;
        long nowNs = 0;
        for (int i = 0; i < 20_000; i++)
        {
            nowNs += random.nextLong(0, 30_000_000L);
            final long key = random.nextInt(3) == 0 ? 7 : random.nextInt(50);
            final boolean byName = random.nextInt(5) == 0;
            final long enforcedCode = byName
                ? enforced.reserve(names[(int)(key % 3)], 1, nowNs, null) : enforced.reserve(key, 1, nowNs);
            final long dryCode = byName ? dry.reserve(names[(int)(key % 3)], 1, nowNs, null) : dry.reserve(key, 1, nowNs);
            assertTrue(Result.isReserved(dryCode));
            if (Result.isReserved(enforcedCode))
            {
                assertEquals(enforcedCode, dryCode);
            }
            else
            {
                assertEquals(0, dryCode, "a dry-run pass goes now");
                rejections++;
            }
        }
        assertTrue(rejections > 1_000, "rejections " + rejections);
        assertEquals(rejections, dryStats.outcome(StatKind.WOULD_REJECT));
        assertEquals(rejections, enforcedStats.outcome(StatKind.REJECTED) + enforcedStats.outcome(StatKind.NEVER_FIT));
        assertEquals(7L, dryStats.topKeys().top(1)[0].key(), "the hot key leads the would-reject sketch");
        assertEquals(7L, enforcedStats.topKeys().top(1)[0].key());
    }

    @Test
    void concurrencyDryRunNeverRejectsAndHoldsWhatTheEnforcedOneHolds()
    {
        final StatFile file = StatFile.inMemory();
        final LimiterStats enforcedStats = file.limiter("enforced", 1, 0);
        final LimiterStats dryStats = file.limiter("dry", 1, 0);
        final ObservedConcurrencyLimiter enforced =
            ObservedConcurrencyLimiter.enforced(new ConcurrencyLimiter(4), enforcedStats);
        final ObservedConcurrencyLimiter dry = ObservedConcurrencyLimiter.dryRun(new ConcurrencyLimiter(4), dryStats);
        final ArrayDeque<long[]> held = new ArrayDeque<>();
        final SplittableRandom random = new SplittableRandom(11);
        long rejections = 0;
        for (int i = 0; i < 20_000; i++)
        {
            if (!held.isEmpty() && random.nextInt(3) == 0)
            {
                final long[] tickets = held.poll();
                assertEquals(enforced.release(tickets[0]), dry.release(tickets[1]));
                continue;
            }
            final long enforcedTicket = enforced.tryAcquire();
            final long dryTicket = dry.tryAcquire();
            assertTrue(dryTicket >= 0, "dry-run rejected: " + dryTicket);
            if (enforcedTicket >= 0)
            {
                assertTrue(dryTicket >= 0);
            }
            else
            {
                assertEquals(Result.CONCURRENCY_FULL, enforcedTicket);
                assertEquals(ObservedConcurrencyLimiter.DRY_RUN_TICKET, dryTicket);
                rejections++;
            }
            held.add(new long[] {enforcedTicket, dryTicket});
            assertEquals(enforced.inFlight(), dry.inFlight(), "the dry-run limit holds what the enforced one holds");
        }
        assertTrue(rejections > 1_000, "rejections " + rejections);
        assertFalse(dry.release(ObservedConcurrencyLimiter.DRY_RUN_TICKET));
        assertEquals(rejections, dryStats.outcome(StatKind.WOULD_REJECT));
        assertEquals(rejections, enforcedStats.outcome(StatKind.OTHER_REJECTED));
        assertEquals(enforcedStats.outcome(StatKind.ADMITTED), dryStats.outcome(StatKind.ADMITTED));
    }

    @ParameterizedTest
    @ValueSource(strings = {"srTCM", "trTCM"})
    void markerDryRunNeverMarksRedAndCountsWhatAPolicerDrops(final String name)
    {
        final StatFile file = StatFile.inMemory();
        final LimiterStats enforcedStats = file.limiter("enforced", 1, 0);
        final LimiterStats dryStats = file.limiter("dry", 1, 0);
        final Marker enforced = ObservedMarker.enforced(marker(name), enforcedStats);
        final Marker dry = ObservedMarker.dryRun(marker(name), dryStats);
        final SplittableRandom random = new SplittableRandom(name.hashCode());
        final long[] colours = new long[3];
        long nowNs = 0;
        for (int i = 0; i < 20_000; i++)
        {
            nowNs += random.nextInt(50) == 0 ? random.nextLong(0, 200_000_000L) : random.nextLong(0, 2_000_000L);
            final long bytes = 100 + random.nextInt(1_400);
            final boolean aware = random.nextInt(4) == 0;
            final int pre = random.nextInt(3);
            final int colour = aware ? enforced.markColourAware(bytes, pre, nowNs) : enforced.mark(bytes, nowNs);
            final int dryColour = aware ? dry.markColourAware(bytes, pre, nowNs) : dry.mark(bytes, nowNs);
            colours[colour]++;
            assertTrue(Colour.RED != dryColour, "dry-run marked RED");
            assertEquals(Colour.RED == colour ? Colour.YELLOW : colour, dryColour, "at " + i);
        }
        assertTrue(colours[Colour.GREEN] > 1_000 && colours[Colour.YELLOW] > 1_000 && colours[Colour.RED] > 1_000,
            java.util.Arrays.toString(colours));
        assertEquals(colours[Colour.RED], dryStats.outcome(StatKind.WOULD_REJECT));
        assertEquals(colours[Colour.RED], enforcedStats.outcome(StatKind.REJECTED));
        assertEquals(colours[Colour.GREEN] + colours[Colour.YELLOW], enforcedStats.outcome(StatKind.ADMITTED));
        assertEquals(enforcedStats.outcome(StatKind.ADMITTED), dryStats.outcome(StatKind.ADMITTED));
    }

    static Marker marker(final String name)
    {
        // ~650 kB/s offered against a committed 300 kB/s: all three colours occur.
        return "srTCM".equals(name)
            ? new SrTcm(300_000, 20_000, 40_000, SystemNanoClock.INSTANCE)
            : new TrTcm(500_000, 20_000, 300_000, 20_000, SystemNanoClock.INSTANCE);
    }
}
