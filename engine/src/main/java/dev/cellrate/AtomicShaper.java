package dev.cellrate;

import dev.cellrate.gcra.CellLoop;
import dev.cellrate.gcra.ShaperMath;
import org.agrona.concurrent.AtomicBuffer;

/**
 * The shaper's steps in the one cell loop ({@link Slot}) and the refund of a reservation on one TAT word in an
 * {@link AtomicBuffer} ({@link Shaper}, {@link ReservingLimiter}). The reservation itself is the one cell loop's ({@link dev.cellrate.gcra.CellLoop}, with each front's steps): the
 * word is read with an acquire load and written only by a CAS, and a reservation is linearised at its successful
 * CAS from {@code TAT} to {@code max(t, TAT) + n * T}, so two reservations never see the same {@code TAT}: their
 * slots are distinct and at least {@code n * T} apart.
 * <p>
 * Refund: {@link #cancel} is one CAS from the TAT a reservation left back to the TAT before it. It succeeds
 * only while the cell still holds the TAT this reservation left. Reservations push TATs and successful
 * cancels pop them, so the cell always holds the TAT left by the latest live reservation: the CAS succeeds
 * iff no later reservation is live, and then restores exactly the state before the reservation. A refund
 * therefore never lowers the TAT below what a live reservation requires.
 */
final class AtomicShaper
{
    private AtomicShaper()
    {
    }

    /**
     * Refund a reservation if no later reservation is live.
     *
     * @param buffer        the buffer holding the word.
     * @param offset        the word's offset.
     * @param tatAfterNs    the TAT the reservation left ({@code slot + n * T}).
     * @param restoredTatNs the TAT to restore: the one before the reservation (or, if unknown, the slot
     *                      {@code max(t, TAT before)}, which decides the same at every time &ge; t); must be
     *                      below {@code tatAfterNs}, else nothing is refunded.
     * @return true iff refunded (the cell went from {@code tatAfterNs} to {@code restoredTatNs}).
     */
    static boolean cancel(
        final AtomicBuffer buffer, final int offset, final long tatAfterNs, final long restoredTatNs)
    {
        return restoredTatNs < tatAfterNs && buffer.compareAndSetLong(offset, tatAfterNs, restoredTatNs);
    }

    /**
     * What the shaper does with the cell loop's outcome. The request conforms as the policer's does (lag &le;
     * &tau; + T - I, so no wait); an admission answers the mode's delay on its slot,
     * {@link ShaperMath#delayNs}, and records it in the caller's {@link Reservation}; a rejection answers the
     * loop's retry-after encoded ({@link Result#encodeRetryAfter}), or {@link Result#NEVER}, and records it.
     * Immutable.
     */
    static final class Slot extends CellLoop<Reservation>
    {
        private final long immediateNs;
        private final Object owner;
        private final int cell;

        Slot(final long immediateNs, final Object owner, final int cell)
        {
            this.immediateNs = immediateNs;
            this.owner = owner;
            this.cell = cell;
        }

        protected long admitted(
            final Reservation reservation,
            final long tatBeforeNs,
            final long tatAfterNs,
            final long incrementNs,
            final long nowNs)
        {
            final long delayNs = ShaperMath.delayNs(tatBeforeNs, nowNs, immediateNs);
            if (null != reservation)
            {
                reservation.admitted(delayNs, nowNs, tatBeforeNs, incrementNs, owner, cell);
            }
            return delayNs;
        }

        protected long rejected(final Reservation reservation, final long code, final long tatNs, final long nowNs)
        {
            final long answer = code > 0 ? Result.encodeRetryAfter(code) : code;
            if (null != reservation)
            {
                reservation.rejected(answer, nowNs);
            }
            return answer;
        }
    }
}
