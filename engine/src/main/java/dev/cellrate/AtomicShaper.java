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
     * The end of every shaper's admission step: record the admission in the caller's holder, if one was given.
     *
     * @param reservation the caller's holder, or null.
     * @param answerNs    the answer (the delay or the wait, &ge; 0).
     * @param nowNs       the time of the request.
     * @param tatBeforeNs the word the charge replaced.
     * @param incrementNs the charge.
     * @param owner       the state the cell lives in (a buffer or a table).
     * @param cell        the cell in it (an offset or a key word).
     * @return {@code answerNs}.
     */
    static long granted(final Reservation reservation, final long answerNs, final long nowNs, final long tatBeforeNs,
        final long incrementNs, final Object owner, final long cell)
    {
        if (null != reservation)
        {
            reservation.admitted(answerNs, nowNs, tatBeforeNs, incrementNs, owner, cell);
        }
        return answerNs;
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

        /**
         * @param mode               the release mode.
         * @param emissionIntervalNs T, which scales the mode's immediate part {@code N * T}.
         * @param owner              the state the cell lives in.
         * @param cell               the cell's offset in it.
         */
        Slot(final ShaperMode mode, final long emissionIntervalNs, final Object owner, final int cell)
        {
            this.immediateNs = mode.immediateNs(emissionIntervalNs);
            this.owner = owner;
            this.cell = cell;
        }

        protected long admitted(final Reservation reservation, final long tatBeforeNs, final long tatAfterNs,
            final long incrementNs, final long nowNs)
        {
            return granted(reservation, ShaperMath.delayNs(tatBeforeNs, nowNs, immediateNs), nowNs, tatBeforeNs,
                incrementNs, owner, cell);
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
