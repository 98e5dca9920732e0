package dev.cellrate;

import dev.cellrate.check.Bounds;
import java.util.concurrent.locks.LockSupport;

import dev.cellrate.layout.CellArray;
import dev.cellrate.gcra.CellLoop;
import dev.cellrate.gcra.Gcra;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;

/**
 * Reservations whose wait is bounded by the <em>caller's</em> maximum wait, not by the burst: Go's
 * {@code rate.Limiter.ReserveN} / {@code WaitN} and Bucket4j's {@code asBlocking().tryConsume(n, maxWait)}
 * ({@link #ReservingLimiter(Limit, NanoClock)}), Guava's {@code acquire} / {@code tryAcquire(permits, timeout)}
 * ({@link #payLater}: a cost waits only for its first permit and the rest is charged to later callers).
 * Thread-safe, lock-free, allocation-free.
 * <p>
 * <b>Algorithm.</b> One GCRA(T, &tau;) cell (see {@link Gcra}). A request at {@code t} costing {@code n}
 * ({@code I = n T}) needs to wait {@code w = max(0, lag + I - (&tau; + T))}, where {@code lag = max(0, TAT - t)}:
 * exactly the time until the token bucket of the same limit holds {@code n} tokens, i.e. Go's
 * {@code durationFromTokens(n - tokens)}. If {@code w <= maxWait} it is granted: the cell moves to
 * {@code max(TAT, t) + I} (the bucket goes into debt, which delays later callers) and the caller may act at
 * {@code t + w}. Otherwise nothing is charged. In {@link #payLater} mode the wait is tested with one permit,
 * {@code w = max(0, lag - &tau;)}, whatever the cost, as Guava's {@code reserveEarliestAvailable} does. With {@code maxWait = 0} this is exactly the policer
 * ({@code RateLimiter}, Go's {@code AllowN}); with a large {@code maxWait} it grants every cost up to the burst
 * and queues it in time, as Go's {@code ReserveN} does. This is <em>not</em> the {@link Shaper}: a shaper admits
 * only what the policer admits and spaces the admitted ones over {@code &tau;}; here the burst passes at once
 * and only the debt beyond it waits.
 * <p>
 * <b>Cancel</b> ({@link #cancel}, Go's {@code CancelAt}): a granted reservation can be given back until its
 * time to act has passed ({@code nowNs <= t + w}; from then on the permits count as used). The refund is exact
 * when no later reservation has been granted since (the cell still holds this reservation's TAT): the cell
 * returns to {@code max(TAT before, t)}, as if the request had never come. Otherwise nothing is refunded (the
 * later reservations' times are already promised; Go instead restores a partial amount). A reservation is
 * cancelled at most once: a second cancel does nothing (Go restores the tokens a second time).
 * <p>
 * <b>Waiting with a timeout</b> ({@link #acquireWithin}): reserve with {@code maxWait = timeout} by the clock;
 * if granted, park the calling thread until the time to act (re-reading the clock after every wake-up, so it
 * never returns early). Interruptible: on interrupt it cancels the reservation at the clock's time (refunded by
 * the rule above: in full if no later reservation was granted, otherwise not at all, never partly) and throws
 * {@link InterruptedException}; an interrupt already pending on entry throws before anything is charged.
 * <p>
 * <b>Result codes</b> (the reservation convention of {@link Result}, read with {@link Result#isReserved}):
 * {@code >= 0} granted, the wait in ns from {@code nowNs};
 * {@link Result#NEVER}: a cost outside [1, {@link #maxPermits()}], a negative {@code maxWaitNs}, or a wait or TAT beyond the
 * {@code long} range; {@link Result#encodeRetryAfter} of {@code w - maxWait}: the wait does not fit now
 * (nothing charged), retry that much later for the same wait budget (or ask with a longer maximum wait).
 * <p>
 * Concurrency: as {@code RateLimiter}: one acquire read, a CAS only when granted. The decision is the one cell
 * loop's ({@link CellLoop#chargeWithin}): the wait fits, {@code max(0, lag + J - (&tau; + T)) <= maxWait} with
 * {@code J} the increment the wait is tested with, exactly when {@code lag <= &tau; + T - J + maxWait}, so the loop
 * decides with that slack and charges {@code I}. A wait of {@link Long#MAX_VALUE} is never granted (it may stand
 * for a longer one), so a slack of {@code &tau; + T - J + min(maxWait, Long.MAX_VALUE - 1)} is exact; when that
 * sum passes 2<sup>62</sup> (a maximum wait of a century or more, which may pass {@link Long#MAX_VALUE}) the loop
 * decides with the slack 2<sup>62</sup>, and a request it rejects there (a lag above 2<sup>62</sup> ns: a clock
 * that jumped back by a century or more) is decided again on the loop's update entry with the exact bound, an
 * unsigned number. A cancel is one CAS that
 * succeeds only on this reservation's own TAT; lowering the word is safe on a single cell because the word is
 * the whole state: a decider whose CAS expects the restored value decides on the state that is current again.
 */
public final class ReservingLimiter extends CellFront implements Reserver
{
    /**
     * The largest slack the cell loop decides with directly: a larger bound (a maximum wait beyond about 2^62 ns)
     * decides with this one, in the latest-TAT form at every time below 2^62 - I, and re-decides the rest.
     */
    private static final long WIDE_SLACK_NS = 1L << 62;

    private final long maxPermits;
    private final boolean payLater;
    /** The cell word's absolute address (a {@link CellArray} is off-heap; the cell array keeps the memory alive). */
    private final long tatAddress;
    /** The cell loop with this limiter's steps: the wait and the caller's {@link Reservation}. */
    private final Grant grant;
    /** The update entry for a lag past the long range, deciding with the exact bound. */
    private final WideGrant wideGrant;

    private ReservingLimiter(
        final Limit limit, final boolean payLater, final long maxPermits, final long initialTatNs,
        final NanoClock clock)
    {
        super(limit, CellArray.allocate(1), 0, clock);
        this.payLater = payLater;
        this.maxPermits = maxPermits;
        this.tatAddress = buffer.addressOffset() + tatOffset;
        this.grant = new Grant(ceilingNs, payLater ? emissionIntervalNs : 0, buffer, tatOffset);
        this.wideGrant = new WideGrant(grant);
        buffer.putLongVolatile(tatOffset, initialTatNs);
    }

    /**
     * A full-bucket limiter with its own cell; a cost is at most the burst and waits until the bucket holds
     * it (Go, Bucket4j).
     *
     * @param limit GCRA(T, &tau;); the burst bounds a single cost, not the wait.
     * @param clock the clock of {@link #acquireWithin} (and the time base of every {@code nowNs}).
     * @throws IllegalArgumentException if an argument is null.
     */
    public ReservingLimiter(final Limit limit, final NanoClock clock)
    {
        this(requireLimit(limit), false, limit.burst(), CellArray.FRESH_TAT_NS, clock);
    }

    /**
     * A limiter with its own cell and an initial fill: {@code initialPermits} single permits are granted
     * without waiting at creation (0 = empty; at or above the burst = full, the default).
     *
     * @param limit          GCRA(T, &tau;); the burst bounds a single cost, not the wait.
     * @param clock          the clock of {@link #acquireWithin}, read once here for the creation time.
     * @param initialPermits permits available at creation, &ge; 0.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public ReservingLimiter(final Limit limit, final NanoClock clock, final long initialPermits)
    {
        this(limit, clock);
        buffer.putLongVolatile(tatOffset, Gcra.initialFillTatNs(clock.nanoTime(), initialPermits, limit.emissionIntervalNs(), limit.ceilingNs()));
    }

    /**
     * Guava's {@code acquire} / {@code tryAcquire(permits, timeout)} rule: a request of any cost up to
     * {@code maxPermits} waits only until <em>one</em> permit is available, {@code w = max(0, lag - &tau;)},
     * and its whole cost is charged, delaying later callers (see {@code PayLaterRateLimiter}). The cell starts
     * full; {@link #payLaterStartingEmpty} starts as Guava does.
     *
     * @param limit      GCRA(T, &tau;).
     * @param maxPermits largest cost, in [1, 2<sup>62</sup> / T].
     * @param clock      the clock of {@link #acquireWithin}.
     * @return the limiter.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public static ReservingLimiter payLater(final Limit limit, final long maxPermits, final NanoClock clock)
    {
        return payLaterAtTat(limit, maxPermits, CellArray.FRESH_TAT_NS, clock);
    }

    /**
     * As {@link #payLater(Limit, long, NanoClock)}, starting empty at {@code nowNs} as Guava's
     * {@code SmoothBursty} starts at its creation: no stored permits. A reservation waits only for its first
     * permit, so the first one at {@code nowNs} is granted at once and charges its whole cost; the next waits
     * until that cost is paid.
     *
     * @param limit      GCRA(T, &tau;).
     * @param maxPermits largest cost, in [1, 2<sup>62</sup> / T].
     * @param nowNs      the time the limiter starts empty, on the same clock as later {@code nowNs} values.
     * @param clock      the clock of {@link #acquireWithin}.
     * @return the limiter.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public static ReservingLimiter payLaterStartingEmpty(
        final Limit limit, final long maxPermits, final long nowNs, final NanoClock clock)
    {
        return payLaterAtTat(limit, maxPermits, Gcra.emptyPayLaterTatNs(nowNs, requireLimit(limit).toleranceNs()),
            clock);
    }

    /**
     * A pay-later limiter whose cell starts at {@code tatNs} (inside the engine: its tests reach odd states
     * through it).
     */
    static ReservingLimiter payLaterAtTat(
        final Limit limit, final long maxPermits, final long tatNs, final NanoClock clock)
    {
        Bounds.requireRange(
            "maxPermits", maxPermits, 1, Limit.MAX_CEILING_NS / requireLimit(limit).emissionIntervalNs());
        return new ReservingLimiter(limit, true, maxPermits, tatNs, clock);
    }

    /**
     * A full-bucket limiter on {@link SystemNanoClock}.
     *
     * @param limit GCRA(T, &tau;).
     */
    public ReservingLimiter(final Limit limit)
    {
        this(limit, SystemNanoClock.INSTANCE);
    }

    /**
     * Go's {@code ReserveN(t, n)}, Guava's {@code acquire(n)}: reserve whatever the wait
     * ({@code maxWaitNs = Long.MAX_VALUE}). The {@link Reserver} clock forms ({@code reserve()},
     * {@code reserve(permits)}) read {@link #clock()} and come to this.
     *
     * @param permits the cost, in [1, {@link #maxPermits()}].
     * @param nowNs   the time of the request.
     * @return the wait (&ge; 0) if granted; {@link Result#NEVER} (cost outside the range, wait or TAT beyond the
     * {@code long} range).
     */
    public long reserve(final long permits, final long nowNs)
    {
        return reserve(permits, nowNs, Long.MAX_VALUE, null);
    }

    /**
     * As {@link #reserve(long, long)}, recording the outcome for {@link #cancel}.
     *
     * @param permits     the cost, in [1, {@link #maxPermits()}].
     * @param nowNs       the time of the request.
     * @param reservation filled with the outcome (null: not recorded).
     * @return as {@link #reserve(long, long)}.
     */
    public long reserve(final long permits, final long nowNs, final Reservation reservation)
    {
        return reserve(permits, nowNs, Long.MAX_VALUE, reservation);
    }

    /**
     * Reserve {@code permits} at {@code nowNs} if the wait fits in {@code maxWaitNs} (Go's
     * {@code reserveN(t, n, maxFutureReserve)}; {@code ReserveN} is {@code maxWaitNs = Long.MAX_VALUE}, {@code AllowN}
     * is {@code maxWaitNs = 0}).
     *
     * @param permits   the cost, in [1, {@link #maxPermits()}].
     * @param nowNs     the time of the request.
     * @param maxWaitNs the longest wait the caller accepts, &ge; 0.
     * @return the wait (&ge; 0) if granted; {@link Result#NEVER}; or an encoded retry-after (see class doc).
     */
    public long reserve(final long permits, final long nowNs, final long maxWaitNs)
    {
        return reserve(permits, nowNs, maxWaitNs, null);
    }

    /**
     * As {@link #reserve(long, long, long)}, recording the outcome in a caller-owned holder for
     * {@link #cancel}.
     *
     * @param permits     the cost, in [1, {@link #maxPermits()}].
     * @param nowNs       the time of the request.
     * @param maxWaitNs   the longest wait the caller accepts, &ge; 0.
     * @param reservation filled with the outcome (null: not recorded).
     * @return the wait (&ge; 0) if granted; {@link Result#NEVER}; or an encoded retry-after.
     */
    public long reserve(final long permits, final long nowNs, final long maxWaitNs, final Reservation reservation)
    {
        long code = Result.NEVER;
        if (permits >= 1 && permits <= maxPermits && maxWaitNs >= 0)
        {
            final long incrementNs = permits * emissionIntervalNs;
            // tau + T - J in [0, 2^62] (J = T or I, both at most tau + T); a wait of Long.MAX_VALUE never fits.
            final long waitSlackNs = ceilingNs - (payLater ? emissionIntervalNs : incrementNs);
            final long fitNs = Math.min(maxWaitNs, Long.MAX_VALUE - 1);
            // The exact bound tau + T - J + fit when it is at most 2^62 (the loop's rejection is then lag - bound);
            // above, the loop decides with 2^62 and what it rejects is decided again with the exact bound.
            final boolean exact = fitNs <= WIDE_SLACK_NS - waitSlackNs;
            long answer = grant.chargeWithin(
                null, tatAddress, incrementNs, exact ? waitSlackNs + fitNs : WIDE_SLACK_NS, nowNs, reservation);
            if (answer >= 0)
            {
                return answer;
            }
            if (exact && Result.NEVER != answer)
            {
                // ~answer: the loop's retry-after, min(lag - bound, Long.MAX_VALUE); the code's is min(w, MAX) - maxWait.
                code = Result.encodeRetryAfter(Math.min(~answer, Long.MAX_VALUE - maxWaitNs));
            }
            else if (Result.NEVER != answer)
            {
                // A lag above 2^62 ns: decided again with the exact bound, an unsigned number (it may pass 2^63).
                answer = wideGrant.update(null, tatAddress, incrementNs, waitSlackNs + fitNs, nowNs, reservation);
                if (answer >= 0)
                {
                    return answer;
                }
                final long waitNs = ~answer;
                code = waitNs > maxWaitNs ? Result.encodeRetryAfter(waitNs - maxWaitNs) : Result.NEVER;
            }
        }
        if (null != reservation)
        {
            reservation.rejected(code, nowNs);
        }
        return code;
    }

    /**
     * Give a granted reservation back at {@code nowNs} (Go's {@code CancelAt}): refunded iff its time to act
     * has not passed ({@code nowNs <= releaseNs}) and no later reservation was granted since. The first
     * cancel of a reservation decides; any later one returns false and changes nothing.
     *
     * @param reservation a holder filled by {@link #reserve(long, long, long, Reservation)} of this limiter.
     * @param nowNs       the time of the cancel.
     * @return true iff the permits were refunded.
     */
    public boolean cancel(final Reservation reservation, final long nowNs)
    {
        if (!reservation.heldOn(buffer, tatOffset) || 0 == reservation.incrementNs())
        {
            return false;
        }
        final boolean refunded =
            nowNs <= reservation.releaseNs() && refund(reservation.tatAfterNs(), reservation.slotNs());
        reservation.refunded();
        return refunded;
    }

    /**
     * Wait for {@code permits} for at most {@code timeoutNs}: reserve only if the wait fits (otherwise return
     * at once, nothing charged), then park until the time to act. Guava's {@code tryAcquire(permits, timeout,
     * NANOSECONDS)}, Bucket4j's {@code asBlocking().tryConsume(permits, maxWait)}, Go's {@code WaitN} with a
     * deadline {@code timeoutNs} away. Allocation-free (an interrupt allocates its exception).
     *
     * @param permits   the cost, in [1, {@link #maxPermits()}].
     * @param timeoutNs the longest wait accepted, &ge; 0.
     * @return the wait served (&ge; 0) once the time to act is reached by the clock; {@link Result#NEVER}; or an
     * encoded retry-after (the wait did not fit; nothing charged, no time spent).
     * @throws InterruptedException if interrupted before or while waiting; a reservation made is then cancelled
     *                              as {@link #cancel} would (refunded in full if no later reservation exists).
     */
    public long acquireWithin(final long permits, final long timeoutNs) throws InterruptedException
    {
        if (Thread.interrupted())
        {
            throw new InterruptedException("interrupted before reserving: nothing charged");
        }
        final long nowNs = clock.nanoTime();
        final long waitNs = reserve(permits, nowNs, timeoutNs, null);
        if (waitNs <= 0)
        {
            return waitNs;
        }
        // Granted with a positive wait w: then TAT before > now and w = TAT before - now + J - (tau + T), J the
        // increment the wait was tested with (I, or T when paying later); so TAT before = release + (tau + T) - J,
        // the slot (what a refund restores) is TAT before and the TAT left is slot + I.
        final long incrementNs = permits * emissionIntervalNs;
        final long releaseNs = nowNs + waitNs;
        final long slotNs = releaseNs + ceilingNs - (payLater ? emissionIntervalNs : incrementNs);
        final long tatAfterNs = slotNs + incrementNs;
        long remainingNs;
        while ((remainingNs = releaseNs - clock.nanoTime()) > 0)
        {
            LockSupport.parkNanos(this, remainingNs);
            if (Thread.interrupted())
            {
                if (clock.nanoTime() <= releaseNs)
                {
                    refund(tatAfterNs, slotNs);
                }
                throw new InterruptedException("interrupted while waiting: reservation cancelled");
            }
        }
        return waitNs;
    }

    /**
     * @return the largest cost (the burst, or {@code maxPermits} when paying later).
     */
    public long maxPermits()
    {
        return maxPermits;
    }

    /**
     * @return true iff a cost waits only for its first permit (Guava's rule).
     */
    boolean isPayLater()
    {
        return payLater;
    }

    private static Limit requireLimit(final Limit limit)
    {
        Bounds.requireNonNull("limit", limit);
        return limit;
    }

    private boolean refund(final long tatAfterNs, final long slotNs)
    {
        return AtomicShaper.cancel(buffer, tatOffset, tatAfterNs, slotNs);
    }


    /**
     * What the limiter does with the cell loop's outcome: an admission answers its wait
     * {@code w = max(0, lag - (&tau; + T - J))} and records it in the caller's {@link Reservation}; a rejection
     * answers {@code ~retryAfter} (below -1) or {@link Result#NEVER}, which {@link #reserve} turns into its code
     * under the caller's maximum wait. Immutable.
     */
    private static final class Grant extends CellLoop<Reservation>
    {
        private final long ceilingNs;
        /** J when paying later (T), or 0: J is then the charge. */
        private final long payLaterIncrementNs;
        private final Object owner;
        private final int cell;

        Grant(final long ceilingNs, final long payLaterIncrementNs, final Object owner, final int cell)
        {
            this.ceilingNs = ceilingNs;
            this.payLaterIncrementNs = payLaterIncrementNs;
            this.owner = owner;
            this.cell = cell;
        }

        /** The wait of a request of {@code incrementNs} on {@code tatNs}, saturated at {@link Long#MAX_VALUE}. */
        final long waitNs(final long tatNs, final long nowNs, final long incrementNs)
        {
            return Gcra.retryAfterNs(
                tatNs, nowNs, 0 == payLaterIncrementNs ? incrementNs : payLaterIncrementNs, ceilingNs);
        }

        /** Record and answer a granted wait. */
        final long granted(
            final Reservation reservation, final long tatBeforeNs, final long incrementNs, final long nowNs)
        {
            return AtomicShaper.granted(reservation, waitNs(tatBeforeNs, nowNs, incrementNs), nowNs, tatBeforeNs,
                incrementNs, owner, cell);
        }

        protected long admitted(final Reservation reservation, final long tatBeforeNs, final long tatAfterNs,
            final long incrementNs, final long nowNs)
        {
            return granted(reservation, tatBeforeNs, incrementNs, nowNs);
        }

        protected long rejected(final Reservation reservation, final long code, final long tatNs, final long nowNs)
        {
            return code > 0 ? ~code : code;
        }
    }

    /**
     * The update entry's steps for a lag above the signed path's slack of 2<sup>62</sup> ns: the word
     * written is the charge if the lag is within the bound (an unsigned number, &tau; + T - J + min(maxWait,
     * Long.MAX_VALUE - 1)) and the charge is representable, else the word as read (so nothing changes); the
     * answer is the wait if charged, else {@code ~w}.
     */
    private static final class WideGrant extends CellLoop<Reservation>
    {
        /** The wait and the record of a grant, as on the signed path. */
        private final Grant grant;

        WideGrant(final Grant grant)
        {
            this.grant = grant;
        }

        protected long updatedTatNs(
            final Reservation reservation, final long tatNs, final long nowNs, final long incrementNs,
            final long boundNs)
        {
            final long lagNs = Math.max(tatNs, nowNs) - nowNs; // exact as an unsigned number
            final long nextTatNs = Gcra.nextTatNs(tatNs, nowNs, incrementNs);
            return Long.compareUnsigned(lagNs, boundNs) <= 0 && Gcra.UNREPRESENTABLE != nextTatNs ? nextTatNs : tatNs;
        }

        protected long admitted(final Reservation reservation, final long tatBeforeNs, final long tatAfterNs,
            final long incrementNs, final long nowNs)
        {
            // An unchanged word is a rejection (a charge of I >= 1 always moves it): ~w, as the signed path's ~retry.
            return tatAfterNs == tatBeforeNs ?
                ~grant.waitNs(tatBeforeNs, nowNs, incrementNs) : grant.granted(reservation, tatBeforeNs, incrementNs, nowNs);
        }
    }
}
