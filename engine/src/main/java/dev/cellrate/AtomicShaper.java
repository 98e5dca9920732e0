package dev.cellrate;

import dev.cellrate.gcra.ShaperMath;
import dev.cellrate.gcra.Gcra;
import org.agrona.concurrent.AtomicBuffer;

/**
 * The lock-free loops that reserve a slot on, and refund a reservation to, one TAT word in an
 * {@link AtomicBuffer}; every shaper layout (single cell, table slot) goes through here.
 * <p>
 * Concurrency: as {@link dev.cellrate.gcra.AtomicGcra}: the word is read with {@code getLongAcquire} and
 * written only by {@code compareAndExchangeLong}, whose release half pairs with the next acquire read. A
 * reservation is linearised at its successful CAS from {@code TAT} to {@code max(t, TAT) + n * T}, so two
 * reservations never see the same {@code TAT}: their slots are distinct and at least {@code n * T} apart. A
 * rejection writes nothing.
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
     * Reserve a slot on the word at {@code offset} if the request conforms (the shaper: no wait accepted,
     * the admitted request is delayed by the {@link ShaperMode}).
     *
     * @param buffer      the buffer holding the word.
     * @param offset      the word's offset (8-byte aligned).
     * @param incrementNs {@code n * T} in [1, ceilingNs], or {@link Result#NEVER} for an impossible cost.
     * @param ceilingNs   {@code &tau; + T}.
     * @param immediateNs {@code N * T} of the {@link ShaperMode}.
     * @param nowNs       the time of the request.
     * @param reservation filled on admission and on rejection, or null.
     * @return the delay in ns (&ge; 0) if admitted; {@link Result#NEVER}; or a retry-after code
     * (&le; {@link Result#ENCODED_RETRY_AFTER_BASE} - 1), see {@link Result}.
     */
    static long reserve(
        final AtomicBuffer buffer,
        final int offset,
        final long incrementNs,
        final long ceilingNs,
        final long immediateNs,
        final long nowNs,
        final Reservation reservation)
    {
        return reserve(buffer, offset, incrementNs, incrementNs, ceilingNs, 0, immediateNs, nowNs, reservation);
    }

    /**
     * The one reservation loop: charge {@code incrementNs} to the word at {@code offset} if the wait for
     * {@code waitIncrementNs}, {@code w = max(0, lag + J - (&tau; + T))}, fits in {@code maxWaitNs}. The
     * shaper calls it with {@code J = I} and {@code maxWaitNs = 0} (conformance; the answer is the mode's
     * delay on the slot); {@link ReservingLimiter} with the caller's maximum wait, {@code J = T} when paying
     * later, and {@code immediateNs = Long.MAX_VALUE} (no delay beyond the wait: the answer is {@code w}).
     *
     * @param buffer          the buffer holding the word.
     * @param offset          the word's offset (8-byte aligned).
     * @param incrementNs     the charge {@code I = n * T} &ge; 1, or {@link Result#NEVER} for an impossible
     *                        request (nothing charged).
     * @param waitIncrementNs the increment the wait is tested with, in [1, ceilingNs].
     * @param ceilingNs       {@code &tau; + T}.
     * @param maxWaitNs       the longest wait accepted, &ge; 0.
     * @param immediateNs     {@code N * T} of the {@link ShaperMode} ({@link Long#MAX_VALUE}: no delay).
     * @param nowNs           the time of the request.
     * @param reservation     filled on admission and on rejection, or null.
     * @return {@code w} plus the mode's delay (&ge; 0) if granted; {@link Result#NEVER} (impossible cost, a wait
     * beyond the {@code long} range, an unrepresentable TAT); or {@link Result#encodeRetryAfter} of
     * {@code w - maxWaitNs} (nothing charged).
     */
    static long reserve(
        final AtomicBuffer buffer,
        final int offset,
        final long incrementNs,
        final long waitIncrementNs,
        final long ceilingNs,
        final long maxWaitNs,
        final long immediateNs,
        final long nowNs,
        final Reservation reservation)
    {
        long code = Result.NEVER;
        if (incrementNs >= 1)
        {
            long tatNs = buffer.getLongAcquire(offset);
            while (true)
            {
                final long waitNs = Gcra.retryAfterNs(tatNs, nowNs, waitIncrementNs, ceilingNs);
                if (waitNs > maxWaitNs)
                {
                    code = Result.encodeRetryAfter(waitNs - maxWaitNs);
                    break;
                }
                if (Long.MAX_VALUE == waitNs)
                {
                    // Saturated (only with maxWaitNs = Long.MAX_VALUE): the true wait may exceed any long.
                    break;
                }
                final long nextTatNs = Gcra.nextTatNs(tatNs, nowNs, incrementNs);
                if (Gcra.UNREPRESENTABLE == nextTatNs)
                {
                    break;
                }
                final long witnessNs = buffer.compareAndExchangeLong(offset, tatNs, nextTatNs);
                if (witnessNs == tatNs)
                {
                    // One of the two terms is 0: the wait when maxWaitNs = 0, the delay when immediateNs = MAX.
                    code = waitNs + ShaperMath.delayNs(tatNs, nowNs, immediateNs);
                    if (null != reservation)
                    {
                        reservation.admitted(code, nowNs, tatNs, incrementNs, buffer, offset);
                    }
                    return code;
                }
                tatNs = witnessNs;
            }
        }
        if (null != reservation)
        {
            reservation.rejected(code, nowNs);
        }
        return code;
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
}
