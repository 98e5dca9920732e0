package dev.cellrate;

import dev.cellrate.KeyedShaper;
import dev.cellrate.Reservation;
import dev.cellrate.ReservingLimiter;
import dev.cellrate.ShaperMode;
import dev.cellrate.table.SlotTable;
import dev.cellrate.tcm.Colour;
import dev.cellrate.tcm.SrTcm;
import org.agrona.concurrent.NanoClock;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The clock-reading forms of the shared interfaces ({@link Limiter}, {@link DebitLimiter}, {@link KeyedLimiter},
 * {@link KeyedDebitLimiter}, {@link Reserver}, {@link KeyedReserver}, {@link Marker}): each decides exactly as the
 * explicit form at the front's {@code clock().nanoTime()}, with one permit where it takes none, and passes the
 * holder it is given. Checked where the answer is not 0 (a retry-after, a wait, a colour other than green), and
 * at two clock readings, so an answer that ignored the clock would be seen.
 */
class ClockFormsSpecTest
{
    private static final long T_NS = 100;
    private static final Limit BURST_1 = Limit.ofGcra(T_NS, 0);
    private static final Limit BURST_3 = Limit.ofGcra(T_NS, 2 * T_NS);

    /** A clock the test moves. */
    private static final class ManualClock implements NanoClock
    {
        long nowNs;

        @Override
        public long nanoTime()
        {
            return nowNs;
        }
    }

    @Test
    void limiterClockFormsDecideAtTheClockWithOnePermitByDefault()
    {
        final ManualClock clock = new ManualClock();
        final RateLimiter limiter = new RateLimiter(BURST_3, clock);
        clock.nowNs = 1_000;
        assertEquals(Result.ADMITTED, limiter.tryAcquire(), "one permit of three");
        assertEquals(Result.ADMITTED, limiter.tryAcquire(2), "the other two");
        assertEquals(T_NS, limiter.tryAcquire(), "empty at 1_000: one permit in T");
        assertEquals(3 * T_NS, limiter.tryAcquire(3));
        clock.nowNs = 1_040;
        assertEquals(T_NS - 40, limiter.tryAcquire(), "the same cell 40 ns later by the clock");
        final Decision decision = new Decision();
        assertEquals(2 * T_NS - 40, limiter.tryAcquire(2, decision));
        assertEquals(2 * T_NS - 40, decision.retryAfterNs(), "the holder is filled");
        assertFalse(decision.admitted());
        clock.nowNs = 1_100;
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, decision));
        assertTrue(decision.admitted());
    }

    @Test
    void debitLimiterClockFormsPeekAndDebitAtTheClock()
    {
        final ManualClock clock = new ManualClock();
        final RateLimiter limiter = new RateLimiter(BURST_1, clock);
        clock.nowNs = 5_000;
        assertEquals(Result.ADMITTED, limiter.peek(1));
        assertEquals(Result.NEVER, limiter.peek(2), "above the burst");
        assertEquals(T_NS, limiter.debit(1), "charged: the next permit conforms T later");
        assertEquals(T_NS, limiter.peek(1), "peek sees the debit and charges nothing");
        assertEquals(T_NS, limiter.peek(1));
        clock.nowNs = 5_030;
        assertEquals(T_NS - 30, limiter.peek(1));
        assertEquals(2 * T_NS - 30, limiter.debit(1), "a second debit at the clock's time");
    }

    @Test
    void keyedLimiterClockFormsDecideTheirKeyAtTheClock()
    {
        final ManualClock clock = new ManualClock();
        final KeyedLimiter limiter = TestFronts.classed(new Limit[] {BURST_1},
            key -> 0, new SlotTable(4, 16, 16, 1_000_000L, 3L, clock), TableFullPolicy.REJECT);
        clock.nowNs = 10_000;
        assertEquals(Result.ADMITTED, limiter.tryAcquire(7L, 1));
        assertEquals(T_NS, limiter.tryAcquire(7L, 1));
        assertEquals(Result.ADMITTED, limiter.tryAcquire("seven", 1));
        assertEquals(T_NS, limiter.tryAcquire("seven", 1));
        final Decision decision = new Decision();
        clock.nowNs = 10_025;
        assertEquals(T_NS - 25, limiter.tryAcquire(7L, 1, decision));
        assertEquals(T_NS - 25, decision.retryAfterNs());
        assertEquals(T_NS - 25, limiter.tryAcquire("seven", 1, decision));
        assertEquals(T_NS - 25, decision.retryAfterNs());
        clock.nowNs = 10_100;
        assertEquals(Result.ADMITTED, limiter.tryAcquire("seven", 1, decision));
        assertTrue(decision.admitted());
    }

    @Test
    void keyedDebitLimiterClockFormsPeekAndDebitTheirKeyAtTheClock()
    {
        final ManualClock clock = new ManualClock();
        final KeyedRateLimiter limiter = KeyedRateLimiter.builder(BURST_1).slotCount(16).shardCount(1).probeBound(16)
            .idleGraceNs(1_000_000).seed(3).clock(clock).build();
        final KeyedDebitLimiter front = limiter;
        clock.nowNs = 20_000;
        assertEquals(Result.ADMITTED, front.peek(9L, 1));
        assertEquals(T_NS, front.debit(9L, 1));
        assertEquals(T_NS, front.peek(9L, 1));
        clock.nowNs = 20_060;
        assertEquals(T_NS - 60, front.peek(9L, 1));
        assertEquals(2 * T_NS - 60, front.debit(9L, 1));
        assertEquals(Result.ADMITTED, front.peek(10L, 1), "another key is untouched");
    }

    @Test
    void reserverClockFormsReserveAtTheClock()
    {
        final ManualClock clock = new ManualClock();
        final ReservingLimiter limiter = new ReservingLimiter(BURST_1, clock);
        final Reserver front = limiter;
        clock.nowNs = 30_000;
        assertEquals(0, front.reserve(), "granted at once");
        assertEquals(T_NS, front.reserve(), "one permit by default: waits T");
        assertEquals(2 * T_NS, front.reserve(1), "behind the two before it");
        clock.nowNs = 30_050;
        final Reservation reservation = new Reservation();
        assertEquals(3 * T_NS - 50, front.reserve(1, reservation), "50 ns later by the clock");
        assertTrue(reservation.admitted());
        assertEquals(30_050, reservation.nowNs(), "the holder records the clock's time");
        assertEquals(3 * T_NS - 50, reservation.code());
    }

    @Test
    void keyedReserverFormsReserveTheirKeyAtTheClockOrTheGivenTime()
    {
        final ManualClock clock = new ManualClock();
        final KeyedReserver shaper = TestFronts.keyedShaper(BURST_3, ShaperMode.delay(),
            new SlotTable(1, 16, 16, 1_000_000L, 5L, clock), clock);
        clock.nowNs = 40_000;
        assertEquals(0, shaper.reserve(1L, 1), "granted at once");
        assertEquals(T_NS, shaper.reserve(1L, 1), "delayed to its slot T later");
        assertEquals(2 * T_NS, shaper.reserve(1L, 1, 40_000), "the explicit time without a holder");
        final Reservation reservation = new Reservation();
        clock.nowNs = 40_070;
        assertEquals(Result.encodeRetryAfter(T_NS - 70), shaper.reserve(1L, 1, reservation),
            "the burst is spent: conforms 30 ns after the clock's time");
        assertFalse(reservation.admitted());
        assertEquals(40_070, reservation.nowNs());
        assertEquals(0, shaper.reserve("k", 1, reservation));
        assertEquals(T_NS, shaper.reserve("k", 1, reservation));
        assertTrue(reservation.admitted());
        assertEquals(T_NS, reservation.code(), "the string form fills the holder");
        assertEquals(40_070, reservation.nowNs());
    }

    @Test
    void markerClockFormsMarkAtTheClock()
    {
        final ManualClock clock = new ManualClock();
        // 1000 bytes/s, CBS 100, EBS 100: full at creation.
        final Marker marker = new SrTcm(1_000, 100, 100, clock);
        clock.nowNs = 0;
        assertEquals(Colour.GREEN, marker.mark(100));
        assertEquals(Colour.YELLOW, marker.mark(100), "committed spent, excess full");
        assertEquals(Colour.RED, marker.mark(1), "both spent");
        assertEquals(Colour.RED, marker.markColourAware(1, Colour.GREEN));
        clock.nowNs = 1_000_000_000L; // one second refills 1000 bytes: CBS and EBS full again
        assertEquals(Colour.YELLOW, marker.markColourAware(50, Colour.YELLOW), "colour-aware: yellow stays yellow");
        assertEquals(Colour.GREEN, marker.mark(100));
        assertEquals(Colour.YELLOW, marker.mark(1));
    }
}
