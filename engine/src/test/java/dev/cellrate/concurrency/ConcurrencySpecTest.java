package dev.cellrate.concurrency;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The edges of the concurrency limiter a user can see: the largest N is accepted and reported, and a forged
 * ticket naming the slot just past the last one is refused rather than touching memory past the slots.
 */
class ConcurrencySpecTest
{
    @Test
    void theLargestMaxInFlightIsAcceptedAndReported()
    {
        final ConcurrencyLimiter limiter = new ConcurrencyLimiter(Tickets.MAX_SLOTS);
        assertEquals(Tickets.MAX_SLOTS, limiter.maxInFlight());
        final long ticket = limiter.tryAcquire();
        assertTrue(ticket >= 0);
        assertTrue(limiter.release(ticket));
        assertEquals(16, new ConcurrencyLimiter(16).maxInFlight());
    }

    @Test
    void aTicketForTheSlotPastTheLastIsRefused()
    {
        for (final int n : new int[] {1, 8, 16, 64})
        {
            final ConcurrencyLimiter limiter = new ConcurrencyLimiter(n);
            assertFalse(limiter.release(Tickets.ticket(0, n)), "slot " + n + " of " + n);
            assertEquals(0, limiter.inFlight());
        }
    }
}
