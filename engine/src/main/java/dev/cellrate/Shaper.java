package dev.cellrate;

import dev.cellrate.check.Bounds;
import dev.cellrate.gcra.CellLoop;
import dev.cellrate.gcra.Gcra;
import dev.cellrate.layout.CellArray;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;

/**
 * A thread-safe, lock-free, allocation-free traffic shaper (queueing leaky bucket) over one off-heap cell:
 * it admits like {@link dev.cellrate.RateLimiter} and tells each admitted request <em>when</em> to go.
 * <p>
 * Algorithm: GCRA(T, &tau;) of a {@link Limit} decides admission; an admitted request gets the slot
 * {@code max(t, TAT)} (see {@link ShaperMath}) and a release time chosen by the {@link ShaperMode}: the slot
 * itself (delay), the slot minus up to {@code N * T} (delay=N), or {@code t} (nodelay). In delay mode the
 * releases are spaced by at least T per permit and no release is later than {@code t + &tau;}. The shaper has
 * no thread: the caller schedules the release (an event loop timer) or hands it to a
 * {@link dev.cellrate.release.ReleaseRunner}.
 * <p>
 * Concurrency: any thread may call any method; one acquire read plus one CAS per admission (the one cell loop,
 * {@link CellLoop}, with the shaper's steps); distinct concurrent reservations never share a slot.
 * <p>
 * Every {@code reserve} returns a {@link Result} code: the delay in ns (&ge; 0, 0 = go now) if
 * admitted; {@link Result#NEVER} (-1); or a retry-after code &le; -17 (decode with
 * {@link Result#decodeRetryAfterNs}).
 */
public final class Shaper extends CellFront implements Reserver
{
    private final ShaperMode mode;
    /** The cell word's absolute address (a {@link CellArray} is off-heap; the array keeps the memory alive). */
    private final long tatAddress;
    /** The cell loop with this shaper's steps: the mode's delay and the caller's {@link Reservation}. */
    private final AtomicShaper.Slot slot;

    /**
     * A shaper with its own cell, reading {@link SystemNanoClock} in the clock forms.
     *
     * @param limit the limit.
     * @param mode  the release mode.
     */
    public Shaper(final Limit limit, final ShaperMode mode)
    {
        this(limit, mode, CellArray.allocate(1), 0, SystemNanoClock.INSTANCE);
    }

    /**
     * A shaper with its own cell and an initial fill: {@code initialPermits} single-permit reservations are
     * granted at creation before the first rejection (0 = empty; at or above the burst = full, the default of
     * the other constructors). What each waits is the mode's rule on the cell as filled.
     *
     * @param limit          the limit.
     * @param mode           the release mode.
     * @param clock          the clock of the clock forms, read once here for the creation time.
     * @param initialPermits permits available at creation, &ge; 0.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public Shaper(final Limit limit, final ShaperMode mode, final NanoClock clock, final long initialPermits)
    {
        this(limit, mode, CellArray.allocate(1), 0, clock);
        buffer.putLongVolatile(tatOffset, Gcra.initialFillTatNs(clock.nanoTime(), initialPermits, limit.emissionIntervalNs(), limit.ceilingNs()));
    }

    /**
     * A shaper over cell {@code cellIndex} of a shared {@link CellArray}. Two live users of one cell must
     * share its limit.
     *
     * @param limit     the limit.
     * @param mode      the release mode.
     * @param cells     the array holding the cell.
     * @param cellIndex the cell, in [0, cells.cellCount()).
     * @param clock     the clock of the clock forms.
     * @throws IllegalArgumentException on a null argument or an index out of range.
     */
    Shaper(
        final Limit limit, final ShaperMode mode, final CellArray cells, final int cellIndex, final NanoClock clock)
    {
        super(limit, cells, cellIndex, clock);
        this.mode = Bounds.requireNonNull("mode", mode);
        this.tatAddress = buffer.addressOffset() + tatOffset;
        this.slot = new AtomicShaper.Slot(mode, emissionIntervalNs, buffer, tatOffset);
    }

    /**
     * A shaper with another limit on this shaper's cell (same mode, same clock): the backlog is kept in time,
     * since the cell and its TAT are shared. What a live reconfiguration swaps in ({@code ReconfigurableShaper});
     * two live users of one cell decide each under its own limit, so use one at a time.
     *
     * @param limit the limit of the new shaper.
     * @return a shaper over the same cell.
     * @throws IllegalArgumentException if null.
     */
    public Shaper withLimit(final Limit limit)
    {
        return new Shaper(limit, mode, cells, (tatOffset - CellArray.tatOffset(0)) / CellArray.tatOffset(1), clock);
    }

    /**
     * Reserve {@code permits} at {@code nowNs}, all or nothing.
     *
     * @param permits the cost; outside [1, burst] it is {@link Result#NEVER}.
     * @param nowNs   the time of the request, ns.
     * @return the delay in ns until release (&ge; 0) if admitted; {@link Result#NEVER}; or a retry-after code
     * &le; {@link Result#ENCODED_RETRY_AFTER_BASE} - 1.
     */
    public long reserve(final long permits, final long nowNs)
    {
        return slot.charge(null, tatAddress, limit.incrementNs(permits), ceilingNs, nowNs, null);
    }

    /**
     * Reserve {@code permits} at {@code nowNs} and record the reservation (for {@link #cancel(Reservation)}).
     *
     * @param permits     the cost; outside [1, burst] it is {@link Result#NEVER}.
     * @param nowNs       the time of the request, ns.
     * @param reservation a caller-owned holder, filled in place.
     * @return the delay in ns until release (&ge; 0) if admitted; {@link Result#NEVER}; or a retry-after code
     * &le; {@link Result#ENCODED_RETRY_AFTER_BASE} - 1.
     */
    public long reserve(final long permits, final long nowNs, final Reservation reservation)
    {
        return slot.charge(null, tatAddress, limit.incrementNs(permits), ceilingNs, nowNs, reservation);
    }

    /**
     * Refund a reservation the caller will not use (x/time/rate {@code Reservation.Cancel}). Exact semantics:
     * iff no later reservation on this cell is still live (made after it and not itself cancelled), the full
     * cost is refunded and the cell returns to exactly the TAT it held before the reservation. Otherwise
     * nothing is refunded: the later reservation's slot was computed from this one's, and lowering the TAT
     * under it would let a new request take an earlier slot and break the spacing (never over-admit).
     * Cancels thus undo reservations last-in first-out; refunding through the same holder twice refunds once.
     *
     * @param reservation a holder filled by this shaper's {@code reserve}.
     * @return true iff refunded.
     */
    public boolean cancel(final Reservation reservation)
    {
        return reservation.heldOn(buffer, tatOffset) && reservation.refundedIf(
            AtomicShaper.cancel(buffer, tatOffset, reservation.tatAfterNs(), reservation.tatBeforeNs()));
    }

    /**
     * Refund a reservation of {@code permits} whose slot was {@code slotNs} (in {@link ShaperMode#delay()}
     * mode the slot is {@code nowNs + delay}) without a holder. As {@link #cancel(Reservation)}, except that
     * it restores the slot {@code max(t, TAT before)} rather than the TAT before: the same decisions at every
     * time &ge; the request's {@code t}, but an earlier reservation whose whole span ended before {@code t}
     * can then no longer be refunded (a refund that would change no decision from then on). Call it at most
     * once per reservation: a second call could refund a later reservation that happens to have the same slot.
     *
     * @param slotNs  the reservation's slot {@code max(t, TAT before)}.
     * @param permits the reservation's cost.
     * @return true iff refunded.
     */
    public boolean cancel(final long slotNs, final long permits)
    {
        final long incrementNs = limit.incrementNs(permits);
        return incrementNs >= 1 && slotNs <= Long.MAX_VALUE - incrementNs &&
            AtomicShaper.cancel(buffer, tatOffset, slotNs + incrementNs, slotNs);
    }

    /**
     * @return the release mode.
     */
    ShaperMode mode()
    {
        return mode;
    }
}
