package dev.cellrate;

import dev.cellrate.ShaperMode;
import dev.cellrate.Reservation;
import dev.cellrate.Result;
import dev.cellrate.Limit;
import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Cancel semantics: a reservation is refunded in full, restoring exactly the TAT before it, iff no later
 * reservation is live (LIFO); otherwise nothing changes. After any sequence of reservations and cancels
 * (monotone time), the live reservations are exactly what a fresh GCRA would have admitted, at the same
 * slots, had the cancelled ones never come.
 */
class ShaperCancelTest
{
    private static final long T_NS = 100;
    private static final Limit LIMIT = Limit.ofGcra(T_NS, 4 * T_NS);

    @Test
    void cancellingTheLatestReservationRestoresTheCell()
    {
        final Shaper shaper = new Shaper(LIMIT, ShaperMode.delay());
        final Reservation a = new Reservation();
        assertEquals(0, shaper.reserve(1, 1_000, a));
        assertEquals(100, shaper.reserve(1, 1_000));
        final Reservation c = new Reservation();
        assertEquals(200, shaper.reserve(1, 1_000, c));
        assertEquals(1_300, shaper.tatNs());
        assertTrue(shaper.cancel(c));
        assertEquals(1_200, shaper.tatNs());
        assertFalse(shaper.cancel(c), "a holder refunds once");
        assertFalse(shaper.cancel(a), "a reservation with a later live one refunds nothing");
        assertEquals(1_200, shaper.tatNs());
        assertEquals(200, shaper.reserve(1, 1_000), "the refunded slot is taken again");
    }

    @Test
    void primitiveCancelTakesTheSlotInDelayMode()
    {
        final Shaper shaper = new Shaper(LIMIT, ShaperMode.delay());
        final long delayNs = shaper.reserve(3, 500);
        assertEquals(0, delayNs);
        final long secondDelayNs = shaper.reserve(2, 500);
        assertEquals(300, secondDelayNs);
        assertFalse(shaper.cancel(500 + delayNs, 3), "not the latest");
        assertFalse(shaper.cancel(500 + secondDelayNs, 1), "wrong cost");
        assertTrue(shaper.cancel(500 + secondDelayNs, 2));
        assertTrue(shaper.cancel(500 + delayNs, 3), "now the latest");
        assertEquals(500, shaper.tatNs());
        assertFalse(shaper.cancel(Long.MAX_VALUE, 1), "unrepresentable slot refunds nothing");
        assertFalse(shaper.cancel(500, 0), "impossible cost refunds nothing");
    }

    @Test
    void cancelInDelayNModeUsesTheSlotNotTheRelease()
    {
        final Shaper shaper = new Shaper(LIMIT, ShaperMode.delay(2));
        final Reservation r = new Reservation();
        for (int i = 0; i < 4; i++)
        {
            shaper.reserve(1, 0, r);
        }
        assertEquals(100, r.code());
        assertEquals(300, r.slotNs());
        assertEquals(100, r.releaseNs());
        assertTrue(shaper.cancel(r));
        assertEquals(300, shaper.tatNs());
    }

    @Test
    void rejectedReservationHasNothingToCancel()
    {
        final Shaper shaper = new Shaper(LIMIT, ShaperMode.delay());
        final Reservation r = new Reservation();
        assertEquals(0, shaper.reserve(5, 0));
        assertTrue(Result.isEncodedRetryAfter(shaper.reserve(1, 0, r)));
        assertFalse(r.admitted());
        final long tatNs = shaper.tatNs();
        assertFalse(shaper.cancel(r));
        assertEquals(tatNs, shaper.tatNs());
    }

    @Test
    void liveReservationsAreWhatGcraAdmitsWithoutTheCancelledOnes()
    {
        final SplittableRandom random = new SplittableRandom(77);
        for (int trace = 0; trace < 200; trace++)
        {
            final long emissionIntervalNs = 1 + random.nextLong(1_000);
            final long toleranceNs = random.nextLong(15 * emissionIntervalNs);
            final Limit limit = Limit.ofGcra(emissionIntervalNs, toleranceNs);
            final Shaper shaper = new Shaper(limit, ShaperMode.delay());
            final List<long[]> live = new ArrayList<>(); // {nowNs, permits, slotNs, tatBeforeNs}
            final List<Reservation> holders = new ArrayList<>();
            long nowNs = random.nextLong(-1_000_000, 1_000_000);
            for (int op = 0; op < 400; op++)
            {
                nowNs += random.nextInt(3) == 0 ? random.nextLong(2 * emissionIntervalNs) : 0;
                if (live.isEmpty() || random.nextInt(10) < 6)
                {
                    final Reservation r = new Reservation();
                    final long permits = 1 + random.nextLong(limit.burst());
                    final long tatBeforeNs = shaper.tatNs();
                    if (shaper.reserve(permits, nowNs, r) >= 0)
                    {
                        live.add(new long[] {nowNs, permits, r.slotNs(), tatBeforeNs});
                        holders.add(r);
                    }
                }
                else
                {
                    final int pick = random.nextBoolean() ? live.size() - 1 : random.nextInt(live.size());
                    final boolean latest = pick == live.size() - 1;
                    final long tatBeforeNs = shaper.tatNs();
                    assertEquals(latest, shaper.cancel(holders.get(pick)), "trace " + trace + " op " + op);
                    if (latest)
                    {
                        assertEquals(live.get(pick)[3], shaper.tatNs(), "restores exactly the TAT before");
                        live.remove(pick);
                        holders.remove(pick);
                    }
                    else
                    {
                        assertEquals(tatBeforeNs, shaper.tatNs());
                    }
                }
                if (op % 16 == 15)
                {
                    assertReplayMatches(limit, live, shaper.tatNs(), nowNs);
                }
            }
        }
    }

    private static void assertReplayMatches(
        final Limit limit, final List<long[]> live, final long tatNs, final long nowNs)
    {
        final ShaperModel fresh = new ShaperModel(limit.emissionIntervalNs(), limit.toleranceNs(), 0);
        for (final long[] reservation : live)
        {
            assertTrue(fresh.reserve(reservation[1], reservation[0]), "a live reservation would be rejected");
            assertEquals(BigInteger.valueOf(reservation[2]), fresh.lastSlot, "a live reservation moved slot");
        }
        final long freshTatNs = null == fresh.tat ? Long.MIN_VALUE : fresh.tat.longValueExact();
        assertEquals(Math.max(freshTatNs, nowNs), Math.max(tatNs, nowNs), "cell differs from replay (as of now)");
    }
}
