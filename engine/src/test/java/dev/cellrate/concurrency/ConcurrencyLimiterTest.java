package dev.cellrate.concurrency;

import dev.cellrate.Result;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ConcurrencyLimiterTest
{
    /**
     * Random acquire / release / double release / forged release against the simplest exact model: a set of
     * outstanding tickets (admit iff its size is below N; a release is valid iff the ticket is in the set).
     */
    @Test
    void matchesReferenceOnSeededRandomOperations()
    {
        int operations = 0;
        int mismatches = 0;
        for (final int maxInFlight : new int[] {1, 2, 7, 64})
        {
            final ConcurrencyLimiter limiter = new ConcurrencyLimiter(maxInFlight);
            final Set<Long> outstanding = new HashSet<>();
            final List<Long> released = new ArrayList<>();
            final SplittableRandom random = new SplittableRandom(maxInFlight);
            for (int i = 0; i < 6_000; i++)
            {
                final int kind = random.nextInt(100);
                operations++;
                if (kind < 45)
                {
                    final boolean expectAdmit = outstanding.size() < maxInFlight;
                    final long ticket = limiter.tryAcquire();
                    if (expectAdmit != ticket >= 0 || (!expectAdmit && ticket != Result.CONCURRENCY_FULL))
                    {
                        mismatches++;
                    }
                    if (ticket >= 0 && !outstanding.add(ticket))
                    {
                        mismatches++; // a ticket handed out twice while outstanding
                    }
                }
                else if (kind < 80 && !outstanding.isEmpty())
                {
                    final Long ticket = outstanding.iterator().next();
                    outstanding.remove(ticket);
                    released.add(ticket);
                    mismatches += limiter.release(ticket) ? 0 : 1;
                }
                else if (kind < 92 && !released.isEmpty())
                {
                    final long stale = released.get(random.nextInt(released.size()));
                    mismatches += limiter.release(stale) == outstanding.contains(stale) ? 0 : 1;
                }
                else
                {
                    final long forged = random.nextInt(4) == 0 ? -random.nextLong(6) : random.nextLong(1L << 40);
                    mismatches += limiter.release(forged) == outstanding.contains(forged) ? 0 : 1;
                    if (outstanding.remove(forged))
                    {
                        released.add(forged);
                    }
                }
                mismatches += limiter.inFlight() == outstanding.size() ? 0 : 1;
            }
        }
        assertTrue(operations >= 20_000, "operations " + operations);
        assertEquals(0, mismatches, "mismatches vs reference in " + operations + " operations");
    }

    @Test
    void releaseWithoutMatchingAcquireRaisesNoCapacity()
    {
        final ConcurrencyLimiter limiter = new ConcurrencyLimiter(2);
        final long first = limiter.tryAcquire();
        final long second = limiter.tryAcquire();
        assertEquals(Result.CONCURRENCY_FULL, limiter.tryAcquire());
        assertTrue(limiter.release(first));
        assertFalse(limiter.release(first), "double release");
        final long third = limiter.tryAcquire();
        assertFalse(limiter.release(first), "stale ticket of a re-acquired slot");
        assertFalse(limiter.release(Result.CONCURRENCY_FULL));
        assertFalse(limiter.release(Long.MAX_VALUE));
        assertEquals(2, limiter.inFlight());
        assertEquals(Result.CONCURRENCY_FULL, limiter.tryAcquire());
        assertTrue(limiter.release(second));
        assertTrue(limiter.release(third));
        assertEquals(0, limiter.inFlight());
        assertFalse(limiter.release(third));
        assertEquals(0, limiter.inFlight());
    }

    @Test
    void twoThreadsNeverExceedTheLimitAndEndAtZero() throws InterruptedException
    {
        final ConcurrencyLimiter limiter = new ConcurrencyLimiter(3);
        final AtomicInteger inside = new AtomicInteger();
        final AtomicInteger worst = new AtomicInteger();
        final AtomicLong failures = new AtomicLong();
        final CountDownLatch start = new CountDownLatch(1);
        final Runnable work = () ->
        {
            try
            {
                start.await();
            }
            catch (final InterruptedException e)
            {
                return;
            }
            for (int i = 0; i < 200_000; i++)
            {
                final long ticket = limiter.tryAcquire();
                if (ticket >= 0)
                {
                    worst.accumulateAndGet(inside.incrementAndGet(), Math::max);
                    inside.decrementAndGet();
                    failures.addAndGet(limiter.release(ticket) ? 0 : 1);
                    failures.addAndGet(limiter.release(ticket) ? 1 : 0);
                }
            }
        };
        final Thread a = new Thread(work);
        final Thread b = new Thread(work);
        a.start();
        b.start();
        start.countDown();
        a.join();
        b.join();
        assertEquals(0, failures.get());
        assertTrue(worst.get() <= 3);
        assertEquals(0, limiter.inFlight());
    }

    @Test
    void validationNamesFieldAndRange()
    {
        assertEquals("maxInFlight must be in [1, 1048576] but was 0",
            assertThrows(IllegalArgumentException.class, () -> new ConcurrencyLimiter(0)).getMessage());
        assertEquals("maxInFlight must be in [1, 1048576] but was 1048577",
            assertThrows(IllegalArgumentException.class, () -> new ConcurrencyLimiter((1 << 20) + 1)).getMessage());
    }

    /**
     * The edges of the concurrency limiter a user can see: the largest N is accepted and reported, and a forged
     * ticket naming the slot just past the last one is refused rather than touching memory past the slots.
     */
    @Nested
    final class Specification
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
}
