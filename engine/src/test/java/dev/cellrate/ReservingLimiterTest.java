package dev.cellrate;

import dev.cellrate.Reservation;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import dev.cellrate.layout.CellArray;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import dev.cellrate.ZeroAllocation;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Reservations bounded by the caller's maximum wait, cancel, and waiting with a timeout.
 */
class ReservingLimiterTest
{
    /** 10 per second, burst 5: T = 100 ms, tau = 400 ms. */
    private static final Limit TEN_PER_SECOND_BURST_5 = Limit.ofGcra(100_000_000, 400_000_000);

    @Test
    void theWaitIsBoundedByTheCallersMaximumNotByTheBurst()
    {
        final ReservingLimiter limiter = new ReservingLimiter(TEN_PER_SECOND_BURST_5);
        for (int i = 0; i < 5; i++)
        {
            assertEquals(0, limiter.reserve(1, 0, 0), "the burst passes at once");
        }
        final long tatNs = limiter.tatNs();
        final long code = limiter.reserve(1, 0, 99_999_999);
        assertEquals(Result.encodeRetryAfter(1), code, "wait 100 ms does not fit 99.999999 ms");
        assertEquals(tatNs, limiter.tatNs(), "nothing charged when the wait does not fit");
        assertEquals(100_000_000, limiter.reserve(1, 0, 100_000_000), "it fits exactly");
        assertEquals(300_000_000, limiter.reserve(2, 0, 1_000_000_000), "two more permits: debt of three");
        assertEquals(Result.encodeRetryAfter(800_000_000), limiter.reserve(5, 0, 0));
        assertEquals(800_000_000, limiter.reserve(5, 0, Long.MAX_VALUE), "any cost up to the burst is granted");
        assertEquals(Result.NEVER, limiter.reserve(6, 0, Long.MAX_VALUE), "a cost above the burst never is");
        assertEquals(Result.NEVER, limiter.reserve(0, 0, Long.MAX_VALUE));
        assertEquals(Result.NEVER, limiter.reserve(-1, 0, Long.MAX_VALUE));
        assertEquals(Result.NEVER, limiter.reserve(1, 0, -1), "a negative maximum wait fits nothing");
    }

    @Test
    void oddTimesNeverGrantOnASaturatedWaitNorOverflow()
    {
        final ReservingLimiter limiter = new ReservingLimiter(TEN_PER_SECOND_BURST_5);
        assertEquals(0, limiter.reserve(5, Long.MAX_VALUE - 500_000_000, 0));
        assertEquals(Result.NEVER, limiter.reserve(5, Long.MAX_VALUE - 500_000_000, Long.MAX_VALUE),
            "the TAT would pass Long.MAX_VALUE");
        assertEquals(Result.NEVER, limiter.reserve(1, Long.MIN_VALUE, Long.MAX_VALUE),
            "clock jumped back beyond the long range: the wait is not representable");
        assertTrue(Result.isEncodedRetryAfter(limiter.reserve(1, Long.MIN_VALUE, 0)));
        assertEquals(Result.MAX_ENCODED_RETRY_AFTER_NS, Result.decodeRetryAfterNs(limiter.reserve(1, Long.MIN_VALUE, 0)));

        final ReservingLimiter fresh = new ReservingLimiter(TEN_PER_SECOND_BURST_5);
        assertEquals(CellArray.FRESH_TAT_NS, fresh.tatNs());
        assertEquals(0, fresh.reserve(5, Long.MIN_VALUE, 0), "a fresh cell is full at any time");
    }

    @Test
    void cancelRefundsUntilTheTimeToActAndOnlyOnce()
    {
        final ReservingLimiter limiter = new ReservingLimiter(TEN_PER_SECOND_BURST_5);
        final Reservation a = new Reservation();
        final Reservation b = new Reservation();
        final Reservation rejected = new Reservation();
        assertEquals(0, limiter.reserve(5, 1_000, 0, a));
        assertEquals(100_000_000, limiter.reserve(1, 1_000, Long.MAX_VALUE, b));
        assertEquals(1_000 + 100_000_000, b.releaseNs());
        assertFalse(limiter.cancel(a, 1_000), "a later reservation was granted since: no refund");
        assertFalse(limiter.cancel(a, 1_000), "and a second cancel changes nothing");
        assertTrue(limiter.reserve(1, 1_000, 0, rejected) < 0);
        assertFalse(limiter.cancel(rejected, 1_000), "nothing to cancel");
        final long before = limiter.tatNs();
        assertTrue(limiter.cancel(b, 1_000 + 100_000_000), "refund exactly at the time to act");
        assertEquals(before - 100_000_000, limiter.tatNs());
        assertFalse(limiter.cancel(b, 1_000), "a second cancel does nothing (Go would restore again)");
        assertEquals(before - 100_000_000, limiter.tatNs());

        final Reservation late = new Reservation();
        assertEquals(100_000_000, limiter.reserve(1, 1_000, Long.MAX_VALUE, late));
        final long charged = limiter.tatNs();
        assertFalse(limiter.cancel(late, 1_000 + 100_000_001), "the time to act has passed");
        assertEquals(charged, limiter.tatNs());
    }

    @Test
    void aRefundRestoresTheSlotNotAnOlderValue()
    {
        final ReservingLimiter limiter = new ReservingLimiter(TEN_PER_SECOND_BURST_5);
        final Reservation r = new Reservation();
        assertEquals(0, limiter.reserve(1, 5_000_000_000L, 0, r));
        assertTrue(limiter.cancel(r, 5_000_000_000L));
        assertEquals(5_000_000_000L, limiter.tatNs(), "max(TAT before, t): never below the request's time");
        for (int i = 0; i < 5; i++)
        {
            assertEquals(0, limiter.reserve(1, 5_000_000_000L, 0));
        }
        assertTrue(limiter.reserve(1, 5_000_000_000L, 0) < 0, "the refund gave back one permit, not more");
    }

    @Test
    void acquireWithinNeverReturnsEarlyAndChargesNothingWhenTheWaitDoesNotFit() throws InterruptedException
    {
        // No assertion depends on how fast this thread runs (the machine may be loaded): only lower bounds.
        // 1 per hour, burst 1: a second permit does not fit a 1 ms timeout unless an hour passes.
        final ReservingLimiter slow =
            new ReservingLimiter(Limit.ofGcra(3_600_000_000_000L, 0), SystemNanoClock.INSTANCE);
        assertEquals(0, slow.acquireWithin(1, 0));
        final long tatNs = slow.tatNs();
        final long code = slow.acquireWithin(1, 1_000_000);
        assertTrue(Result.isEncodedRetryAfter(code), "an hour does not fit 1 ms: " + code);
        assertEquals(tatNs, slow.tatNs(), "nothing charged");

        // 1 per 100 ms, burst 1: five grants in a row cannot all have come within less than 400 ms.
        final ReservingLimiter limiter = new ReservingLimiter(Limit.ofGcra(100_000_000, 0), SystemNanoClock.INSTANCE);
        final long firstNs = System.nanoTime();
        assertEquals(0, limiter.acquireWithin(1, 0));
        long returnedNs = firstNs;
        for (int i = 0; i < 4; i++)
        {
            final long startNs = System.nanoTime();
            final long waitedNs = limiter.acquireWithin(1, 1_000_000_000);
            returnedNs = System.nanoTime();
            assertTrue(waitedNs >= 0, "granted: " + waitedNs);
            assertTrue(returnedNs - startNs >= waitedNs, "returned after " + (returnedNs - startNs) +
                " ns, before its time to act (" + waitedNs + " ns)");
            assertTrue(limiter.tatNs() - limiter.limit().ceilingNs() <= returnedNs,
                "the time to act is not in the future when acquireWithin returns");
        }
        assertTrue(returnedNs - firstNs >= 400_000_000, "five grants at 10/s span 400 ms: " + (returnedNs - firstNs));
    }

    @Test
    void interruptBeforeChargesNothingAndInterruptWhileWaitingRefunds() throws Exception
    {
        final ReservingLimiter limiter = new ReservingLimiter(Limit.ofGcra(10_000_000_000L, 0), SystemNanoClock.INSTANCE);
        assertEquals(0, limiter.acquireWithin(1, 0));
        final long tatNs = limiter.tatNs();
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, () -> limiter.acquireWithin(1, Long.MAX_VALUE));
        assertEquals(tatNs, limiter.tatNs(), "an interrupt pending on entry charges nothing");

        final AtomicReference<Throwable> thrown = new AtomicReference<>();
        final Thread waiter = new Thread(() ->
        {
            try
            {
                limiter.acquireWithin(1, Long.MAX_VALUE);
            }
            catch (final Throwable ex)
            {
                thrown.set(ex);
            }
        });
        waiter.start();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (limiter.tatNs() == tatNs && System.nanoTime() < deadline)
        {
            Thread.onSpinWait();
        }
        assertEquals(tatNs + 10_000_000_000L, limiter.tatNs(), "the waiter holds a 10 s reservation");
        waiter.interrupt();
        waiter.join(TimeUnit.SECONDS.toMillis(10));
        assertFalse(waiter.isAlive());
        assertTrue(thrown.get() instanceof InterruptedException, String.valueOf(thrown.get()));
        assertEquals(tatNs, limiter.tatNs(), "the interrupted reservation was refunded");
    }

    @Test
    void payLaterWaitsForTheFirstPermitOnlyAndRefundsOnInterrupt() throws Exception
    {
        // T = 10 s, tau = 0, costs up to 5, full at start.
        final ReservingLimiter limiter = ReservingLimiter.payLater(
            Limit.ofGcra(10_000_000_000L, 0), 5, SystemNanoClock.INSTANCE);
        assertTrue(limiter.isPayLater());
        assertEquals(5, limiter.maxPermits());
        assertEquals(0, limiter.reserve(3, 0, 0), "a cost of 3 passes at once and is paid later");
        assertEquals(30_000_000_000L, limiter.reserve(5, 0, Long.MAX_VALUE), "the next waits for the debt only");
        assertEquals(Result.NEVER, limiter.reserve(6, 0, Long.MAX_VALUE));
        assertThrows(IllegalArgumentException.class,
            () -> ReservingLimiter.payLater(Limit.ofGcra(1L << 61, 0), 3, SystemNanoClock.INSTANCE));

        final ReservingLimiter waiting = ReservingLimiter.payLater(
            Limit.ofGcra(10_000_000_000L, 0), 5, SystemNanoClock.INSTANCE);
        assertEquals(0, waiting.acquireWithin(3, 0));
        final long tatNs = waiting.tatNs();
        final AtomicReference<Throwable> thrown = new AtomicReference<>();
        final Thread waiter = new Thread(() ->
        {
            try
            {
                waiting.acquireWithin(2, Long.MAX_VALUE);
            }
            catch (final Throwable ex)
            {
                thrown.set(ex);
            }
        });
        waiter.start();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (waiting.tatNs() == tatNs && System.nanoTime() < deadline)
        {
            Thread.onSpinWait();
        }
        assertEquals(tatNs + 20_000_000_000L, waiting.tatNs(), "the waiter charged its 2 permits");
        waiter.interrupt();
        waiter.join(TimeUnit.SECONDS.toMillis(10));
        assertTrue(thrown.get() instanceof InterruptedException, String.valueOf(thrown.get()));
        assertEquals(tatNs, waiting.tatNs(), "refunded exactly");
    }

    @Test
    void concurrentReservationsNeverGrantMoreThanTheArrivalCurve() throws Exception
    {
        // At one instant, with a maximum wait W, at most burst + W / T permits can be granted.
        final ReservingLimiter limiter = new ReservingLimiter(TEN_PER_SECOND_BURST_5);
        final AtomicLong granted = new AtomicLong();
        final Thread[] threads = new Thread[4];
        for (int t = 0; t < threads.length; t++)
        {
            threads[t] = new Thread(() ->
            {
                for (int i = 0; i < 10_000; i++)
                {
                    if (limiter.reserve(1, 7, 1_000_000_000) >= 0)
                    {
                        granted.incrementAndGet();
                    }
                }
            });
            threads[t].start();
        }
        for (final Thread thread : threads)
        {
            thread.join();
        }
        assertEquals(5 + 10, granted.get());
    }

    @Test
    void reserveCancelAndWaitingAllocateNothing()
    {
        final ReservingLimiter limiter = new ReservingLimiter(Limit.ofGcra(1_000, 0), SystemNanoClock.INSTANCE);
        final Reservation reservation = new Reservation();
        ZeroAllocation.assertAllocatesNothing("reserve, cancel, acquireWithin", () ->
        {
            long sink = 0;
            for (int i = 0; i < 100_000; i++)
            {
                sink += limiter.reserve(1 + (i & 1), i * 1_000L, i & 0xFFFF, reservation);
                sink += limiter.cancel(reservation, i * 1_000L) ? 1 : 0;
            }
            try
            {
                for (int i = 0; i < 200; i++)
                {
                    sink += limiter.acquireWithin(1, 1_000_000);
                }
            }
            catch (final InterruptedException ex)
            {
                throw new AssertionError(ex);
            }
            return sink;
        });
    }
}
