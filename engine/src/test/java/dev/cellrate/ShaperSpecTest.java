package dev.cellrate;

import dev.cellrate.ShaperMode;
import dev.cellrate.Reservation;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import dev.cellrate.gcra.CellLoop;
import dev.cellrate.testing.InterposingBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a holder of a {@link Reservation} sees when it reuses the object, cancels twice, or loses a race:
 * a reservation refunds only the admission it describes, once, and never someone else's.
 */
class ShaperSpecTest
{
    private static final long T_NS = 100;
    private static final Limit LIMIT = Limit.ofGcra(T_NS, 2 * T_NS);

    @Test
    void aReusedReservationThatIsRejectedDescribesTheRejectionAndRefundsNothing()
    {
        final Shaper shaper = new Shaper(LIMIT, ShaperMode.delay());
        final Reservation r = new Reservation();
        assertEquals(0, shaper.reserve(1, 1_000, r));
        assertTrue(r.admitted());
        assertEquals(100, shaper.reserve(1, 1_000));
        assertEquals(200, shaper.reserve(1, 1_000));
        final long tatNs = shaper.tatNs();

        final long code = shaper.reserve(1, 1_000, r);
        assertTrue(Result.isEncodedRetryAfter(code), Result.name(code));
        assertEquals(code, r.code());
        assertFalse(r.admitted());
        assertEquals(1_000, r.nowNs());
        assertEquals(0, r.incrementNs());
        assertEquals(0, r.releaseNs());
        assertEquals(0, r.slotNs());
        assertEquals(r.tatBeforeNs(), r.tatAfterNs(), "a rejection holds nothing to refund");

        assertFalse(shaper.cancel(r), "the rejected request refunds nothing");
        assertEquals(tatNs, shaper.tatNs());
    }

    @Test
    void aReusedReservationRejectedAfterTheLatestAdmissionDoesNotRefundThatAdmission()
    {
        final Shaper shaper = new Shaper(LIMIT, ShaperMode.delay());
        final Reservation r = new Reservation();
        assertEquals(0, shaper.reserve(3, 1_000, r), "the whole burst, latest admission");
        final long tatNs = shaper.tatNs();
        assertTrue(Result.isEncodedRetryAfter(shaper.reserve(1, 1_000, r)));
        assertFalse(shaper.cancel(r), "the earlier admission is not this reservation's any more");
        assertEquals(tatNs, shaper.tatNs());
    }

    @Test
    void aCostThatCanNeverFitIsNeverAndResetsTheReservation()
    {
        final Shaper shaper = new Shaper(LIMIT, ShaperMode.delay());
        final Reservation r = new Reservation();
        assertEquals(0, shaper.reserve(1, 1_000, r));
        assertEquals(Result.NEVER, shaper.reserve(4, 1_000, r));
        assertEquals(Result.NEVER, r.code());
        assertFalse(shaper.cancel(r));
        assertEquals(1_100, shaper.tatNs());
        assertEquals(Result.NEVER, shaper.reserve(0, 1_000, r), "zero permits is not a reservation");
    }

    @Test
    void aSecondCancelDoesNotRefundALaterIdenticalReservation()
    {
        final Shaper shaper = new Shaper(LIMIT, ShaperMode.delay());
        final Reservation first = new Reservation();
        assertEquals(0, shaper.reserve(1, 1_000, first));
        assertTrue(shaper.cancel(first));
        assertEquals(first.tatBeforeNs(), first.tatAfterNs(), "a refunded reservation holds nothing");
        assertEquals(0, first.incrementNs());

        final Reservation second = new Reservation();
        assertEquals(0, shaper.reserve(1, 1_000, second), "the same slot, the same TAT after");
        assertEquals(1_100, shaper.tatNs());
        assertFalse(shaper.cancel(first), "the first holder already had its refund");
        assertEquals(1_100, shaper.tatNs(), "the second holder keeps its slot");
        assertTrue(shaper.cancel(second));
    }

    @Test
    void anAdmittedReservationDescribesItsSlotAndRelease()
    {
        final Shaper shaper = new Shaper(LIMIT, ShaperMode.delay());
        assertEquals(0, shaper.reserve(1, 1_000));
        final Reservation r = new Reservation();
        assertEquals(100, shaper.reserve(2, 1_000, r));
        assertTrue(r.admitted());
        assertEquals(1_100, r.slotNs());
        assertEquals(1_100, r.releaseNs());
        assertEquals(200, r.incrementNs());
        assertEquals(1_100, r.tatBeforeNs());
        assertEquals(1_300, r.tatAfterNs());
        assertTrue(r.toString().contains("releaseNs=1100"), r.toString());
    }

    @Test
    void aReservationThatLosesTheRaceIsPlacedAfterTheWinner()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64]);
        buffer.putLongRelease(8, 1_000);
        final Racing loop = new Racing(buffer).beforeNextCas(() -> buffer.putLongRelease(8, 1_100)); // one slot
        final Reservation r = new Reservation();
        final long delayNs = loop.reserve(T_NS, 1_000, r);
        assertEquals(100, delayNs, "placed after the winner, not on top of it");
        assertEquals(2, loop.attempts, "one lost CAS, one retry");
        assertEquals(1_100, r.tatBeforeNs());
        assertEquals(1_200, buffer.getLongVolatile(8));
    }

    @Test
    void aReservationThatLosesTheRaceToTheLastSlotIsRejected()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64]);
        buffer.putLongRelease(8, 1_200);
        final Racing loop = new Racing(buffer).beforeNextCas(() -> buffer.putLongRelease(8, 1_300)); // the last slot
        final Reservation r = new Reservation();
        final long code = loop.reserve(T_NS, 1_000, r);
        assertEquals(Result.encodeRetryAfter(100), code);
        assertEquals(2, loop.attempts, "the lost CAS, then the rejection on the winner's TAT");
        assertFalse(r.admitted());
        assertEquals(1_300, buffer.getLongVolatile(8), "nothing written by the loser");
    }

    @Test
    void aCancelAfterAnotherReservationSlippedInRefundsNothing()
    {
        final InterposingBuffer buffer = new InterposingBuffer(64);
        buffer.putLongRelease(0, 1_100);
        buffer.beforeNextCas(() -> buffer.putLongRelease(0, 1_200));
        assertFalse(AtomicShaper.cancel(buffer, 0, 1_100, 1_000));
        assertEquals(1_200, buffer.getLongVolatile(0));
        assertFalse(AtomicShaper.cancel(buffer, 0, 1_200, 1_200), "restoring the same TAT is no refund");
        assertTrue(AtomicShaper.cancel(buffer, 0, 1_200, 1_100));
    }

    /**
     * The cell loop with the shaper's own steps ({@link AtomicShaper.Slot}, delay mode), racing one other caller's
     * write: its {@link CellLoop#stale} step runs the write after the next read of the word, so the first CAS loses.
     */
    private static final class Racing extends CellLoop<Reservation>
    {
        private final UnsafeBuffer buffer;
        private final AtomicShaper.Slot slot;
        private Runnable write;
        private int attempts;

        Racing(final UnsafeBuffer buffer)
        {
            this.buffer = buffer;
            this.slot = new AtomicShaper.Slot(ShaperMode.delay(), T_NS, buffer, 8);
        }

        Racing beforeNextCas(final Runnable write)
        {
            this.write = write;
            return this;
        }

        long reserve(final long incrementNs, final long nowNs, final Reservation reservation)
        {
            return charge(buffer.byteArray(), buffer.addressOffset() + 8, incrementNs, LIMIT.ceilingNs(), nowNs,
                reservation);
        }

        protected boolean stale(final Reservation reservation)
        {
            attempts++;
            final Runnable write = this.write;
            this.write = null;
            if (null != write)
            {
                write.run();
            }
            return false;
        }

        protected long admitted(final Reservation reservation, final long tatBeforeNs, final long tatAfterNs,
            final long incrementNs, final long nowNs)
        {
            return slot.admitted(reservation, tatBeforeNs, tatAfterNs, incrementNs, nowNs);
        }

        protected long rejected(final Reservation reservation, final long code, final long tatNs, final long nowNs)
        {
            return slot.rejected(reservation, code, tatNs, nowNs);
        }
    }
}
