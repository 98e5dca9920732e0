package dev.cellrate;

import dev.cellrate.gcra.ShaperMath;

/**
 * A caller-owned, reusable record of one admitted reservation: what {@code cancel} needs to refund it, and
 * the times a scheduler needs. Shapers fill it only when the caller passes one; nothing is allocated.
 * <p>
 * A reservation records the cell it was made on (the front's state and, on a keyed front, the key): a
 * {@code cancel} on another front is refused with an {@link IllegalArgumentException}, a cancel for another key
 * of the same front returns false; neither changes anything. Fronts that share one cell (a reconfigurable shaper across a change of its limit) cancel
 * each other's reservations, since the refund is on that cell.
 * <p>
 * Only the engine's fronts fill a reservation: its public methods read it, so no caller can make one that looks
 * issued by a front.
 * <p>
 * Threading: not thread-safe; keep one per thread (or per in-flight request) and reuse it.
 */
public final class Reservation
{
    private long code = Result.NEVER;
    private long nowNs;
    private long slotNs;
    private long releaseNs;
    private long incrementNs;
    private long tatBeforeNs;
    private long tatAfterNs;
    private Object owner;
    private long cell;

    /**
     * Record an admission. Called by the shapers ({@link Shaper}, {@link ReservingLimiter}, {@link KeyedShaper});
     * allocation-free.
     *
     * @param delayNs     the delay returned to the caller (&ge; 0).
     * @param nowNs       the time of the request.
     * @param tatBeforeNs the TAT the admission was decided on.
     * @param incrementNs {@code n * T} charged.
     * @param owner       the state the cell lives in (a buffer or a table).
     * @param cell        the cell in it (an offset or a key word).
     */
    void admitted(
        final long delayNs,
        final long nowNs,
        final long tatBeforeNs,
        final long incrementNs,
        final Object owner,
        final long cell)
    {
        this.owner = owner;
        this.cell = cell;
        this.code = delayNs;
        this.nowNs = nowNs;
        this.slotNs = ShaperMath.slotNs(tatBeforeNs, nowNs);
        this.releaseNs = nowNs + delayNs;
        this.incrementNs = incrementNs;
        this.tatBeforeNs = tatBeforeNs;
        this.tatAfterNs = slotNs + incrementNs;
    }

    /**
     * Record a rejection (nothing charged, nothing to cancel).
     *
     * @param code  the rejection code.
     * @param nowNs the time of the request.
     */
    void rejected(final long code, final long nowNs)
    {
        this.owner = null;
        this.cell = 0;
        this.code = code;
        this.nowNs = nowNs;
        this.slotNs = 0;
        this.releaseNs = 0;
        this.incrementNs = 0;
        this.tatBeforeNs = 0;
        this.tatAfterNs = 0;
    }

    /**
     * Record the pass of a front in dry-run that would have rejected: go now (delay 0), nothing reserved, so
     * nothing to cancel. Called by the observing fronts ({@code ObservedReserver}, {@code ObservedKeyedReserver})
     * through a method handle found inside the engine's module, so no public type or method writes it;
     * allocation-free.
     *
     * @param nowNs the time of the request.
     */
    void dryRunPass(final long nowNs)
    {
        rejected(0, nowNs);
        this.slotNs = nowNs;
        this.releaseNs = nowNs;
    }

    /**
     * Before any cancel: refuse a reservation made on another cell. A reservation that holds nothing (rejected,
     * a dry-run pass, never filled) passes: its cancel refunds nothing.
     *
     * @param owner the cancelling front's state.
     * @param cell  the cell in it.
     * @return true iff the reservation holds a charge on this cell (false for another key of the same front:
     * nothing is refunded).
     * @throws IllegalArgumentException if it was made on another front.
     */
    boolean heldOn(final Object owner, final long cell)
    {
        if (null == this.owner)
        {
            return false;
        }
        if (this.owner != owner)
        {
            throw new IllegalArgumentException("this reservation was made by another front; cancel it on the front " +
                "that made it (" + this + ")");
        }
        return this.cell == cell;
    }

    /**
     * Mark the reservation as refunded, so a second cancel through this holder refunds nothing.
     */
    void refunded()
    {
        incrementNs = 0;
        tatAfterNs = tatBeforeNs;
    }

    /**
     * The end of every holder-based cancel: mark the reservation refunded iff the refund CAS succeeded.
     *
     * @param refunded whether the cell was lowered.
     * @return {@code refunded}.
     */
    boolean refundedIf(final boolean refunded)
    {
        if (refunded)
        {
            refunded();
        }
        return refunded;
    }

    /**
     * @return the shaper code of the reservation (see {@link Result}).
     */
    public long code()
    {
        return code;
    }

    /**
     * @return true iff admitted.
     */
    public boolean admitted()
    {
        return code >= 0;
    }

    /**
     * @return the time of the request.
     */
    public long nowNs()
    {
        return nowNs;
    }

    /**
     * @return the GCRA slot {@code max(t, TAT before)} (the release time in delay mode); 0 if rejected.
     */
    public long slotNs()
    {
        return slotNs;
    }

    /**
     * @return when the request may go, {@code nowNs + delay}; 0 if rejected.
     */
    public long releaseNs()
    {
        return releaseNs;
    }

    /**
     * @return {@code n * T} still refundable; 0 if rejected or already refunded.
     */
    public long incrementNs()
    {
        return incrementNs;
    }

    /**
     * @return the TAT the cell held before this reservation (what a successful cancel restores).
     */
    long tatBeforeNs()
    {
        return tatBeforeNs;
    }

    /**
     * @return the TAT this reservation left in the cell ({@code slot + n * T}); a cancel succeeds only while
     * the cell still holds exactly this value.
     */
    long tatAfterNs()
    {
        return tatAfterNs;
    }

    public String toString()
    {
        return "Reservation{" + Result.name(code) + ", code=" + code + ", nowNs=" + nowNs + ", slotNs=" + slotNs +
            ", releaseNs=" + releaseNs + ", incrementNs=" + incrementNs + '}';
    }
}
