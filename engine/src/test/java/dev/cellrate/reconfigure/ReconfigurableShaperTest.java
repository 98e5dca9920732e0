package dev.cellrate.reconfigure;

import dev.cellrate.Limit;
import dev.cellrate.Reserver;
import dev.cellrate.Result;
import dev.cellrate.Reservation;
import dev.cellrate.Shaper;
import dev.cellrate.ShaperMode;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link ReconfigurableShaper} is a {@link Reserver}: its reservations can be cancelled across a change of its
 * limit (they are on its one cell), and another shaper's cannot.
 */
final class ReconfigurableShaperTest
{
    private static final Limit LIMIT = Limit.perSecond(10, 5);

    @Test
    void aReconfigurableShaperIsAReserverWhoseReservationsSurviveALimitChange()
    {
        final ReconfigurableShaper shaper = new ReconfigurableShaper(LIMIT, ShaperMode.delay());
        final Reserver reserver = shaper;
        final Reservation reservation = new Reservation();
        assertTrue(Result.isReserved(reserver.reserve(3, 1_000, reservation)));
        final long tatNs = TestReconfigurables.tatNs(shaper);
        shaper.setLimit(Limit.perSecond(20, 5));
        assertTrue(shaper.cancel(reservation), "refunded after a change of limit");
        assertTrue(TestReconfigurables.tatNs(shaper) < tatNs);
        final Reservation foreign = new Reservation();
        new Shaper(LIMIT, ShaperMode.delay()).reserve(1, 1_000, foreign);
        assertThrows(IllegalArgumentException.class, () -> shaper.cancel(foreign));
    }
}
