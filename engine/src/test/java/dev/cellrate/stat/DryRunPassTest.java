package dev.cellrate.stat;

import dev.cellrate.TestFronts;
import dev.cellrate.observe.ObservedReserver;
import dev.cellrate.observe.ObservedLimiter;
import dev.cellrate.observe.ObservedKeyedLimiter;
import dev.cellrate.observe.ObservedConcurrencyLimiter;
import dev.cellrate.Decision;
import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.RateLimiter;
import dev.cellrate.Result;
import dev.cellrate.concurrency.ConcurrencyLimiter;
import dev.cellrate.Reservation;
import dev.cellrate.Shaper;
import dev.cellrate.ShaperMode;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A dry-run pass satisfies the same test as a pass, on every front: a decision's {@link Result#isAdmitted}, a
 * reservation's {@link Result#isReserved} (a delay of 0: go now), a concurrency ticket {@code >= 0} whose release
 * frees nobody's slot; and a dry-run {@link Decision} of a would-be rejection describes an admission (no
 * retry-after). The would-be rejection is still counted.
 */
final class DryRunPassTest
{
    private static final Limit LIMIT = Limit.perSecond(1, 1);

    @Test
    void aDryRunDecisionPassIsAnAdmissionAndItsDecisionHasNoRetryAfter()
    {
        final StatFile file = StatFile.inMemory();
        final ObservedLimiter dry = ObservedLimiter.dryRun(new RateLimiter(LIMIT), file.limiter("single", 1, 0));
        final ObservedKeyedLimiter keyed = ObservedKeyedLimiter.dryRun(
            KeyedRateLimiter.builder(LIMIT).slotCount(64).build(), file.limiter("keyed", 1, 4));
        assertEquals(Result.ADMITTED, dry.tryAcquire(1, 0));
        assertEquals(Result.ADMITTED, keyed.tryAcquire(7, 1, 0));
        assertEquals(Result.ADMITTED, keyed.tryAcquire("seven", 1, 0));
        final Decision decision = new Decision();
        for (final long code : new long[]{
            dry.tryAcquire(1, 0), dry.tryAcquire(1, 0, decision), keyed.tryAcquire(7, 1, 0),
            keyed.tryAcquire(7, 1, 0, decision), keyed.tryAcquire("seven", 1, 0, decision) })
        {
            assertTrue(Result.isAdmitted(code), Result.name(code));
            assertTrue(decision.admitted(), decision.toString());
            assertEquals(0, decision.retryAfterNs(), "an admitted decision has no retry-after: " + decision);
        }
        assertEquals(2, dry.stats().outcome(StatKind.WOULD_REJECT));
        assertEquals(3, keyed.stats().outcome(StatKind.WOULD_REJECT));
    }

    @Test
    void aDryRunReservationPassIsReservedWithDelayZeroAndNothingToCancel()
    {
        final StatFile file = StatFile.inMemory();
        final Shaper shaper = new Shaper(LIMIT, ShaperMode.nodelay());
        final ObservedReserver dry = ObservedReserver.dryRun(shaper, file.limiter("shaper", 1, 0));
        assertEquals(0, dry.reserve(1, 0));
        final long tatNs = TestFronts.tatNs(shaper);
        final Reservation reservation = new Reservation();
        final long code = dry.reserve(1, 0, reservation);
        assertTrue(Result.isReserved(code), Result.name(code));
        assertEquals(0, code, "a dry-run pass goes now");
        assertTrue(reservation.admitted() && 0 == reservation.code() && 0 == reservation.releaseNs(),
            reservation.toString());
        assertEquals(0, reservation.incrementNs(), "nothing was reserved");
        assertFalse(shaper.cancel(reservation), "nothing to cancel");
        assertEquals(tatNs, TestFronts.tatNs(shaper));
        assertTrue(Result.isReserved(dry.reserve(1, 0)));
        assertEquals(2, dry.stats().outcome(StatKind.WOULD_REJECT));
    }

    @Test
    void aDryRunConcurrencyPassIsATicketWhoseReleaseFreesNobody()
    {
        final ConcurrencyLimiter limiter = new ConcurrencyLimiter(1);
        final ObservedConcurrencyLimiter dry = ObservedConcurrencyLimiter.dryRun(
            limiter, StatFile.inMemory().limiter("concurrency", 1, 0));
        final long held = dry.tryAcquire();
        assertTrue(held >= 0);
        final long pass = dry.tryAcquire();
        assertTrue(pass >= 0, "a dry-run pass is a ticket: " + Result.name(pass));
        assertTrue(pass != held);
        assertFalse(dry.release(pass), "the pass holds no slot");
        assertEquals(1, dry.inFlight(), "the real holder keeps its slot");
        assertTrue(dry.release(held));
        assertEquals(0, dry.inFlight());
    }
}
