package dev.cellrate.shaper;

import dev.cellrate.gcra.ShaperMath;
import dev.cellrate.Result;

/**
 * A caller-owned, reusable record of one admitted reservation: what {@code cancel} needs to refund it, and
 * the times a scheduler needs. Shapers fill it only when the caller passes one; nothing is allocated.
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

    /**
     * Record an admission. Called by shapers; allocation-free.
     *
     * @param delayNs     the delay returned to the caller (&ge; 0).
     * @param nowNs       the time of the request.
     * @param tatBeforeNs the TAT the admission was decided on.
     * @param incrementNs {@code n * T} charged.
     * @return this.
     */
    Reservation admitted(final long delayNs, final long nowNs, final long tatBeforeNs, final long incrementNs)
    {
        this.code = delayNs;
        this.nowNs = nowNs;
        this.slotNs = ShaperMath.slotNs(tatBeforeNs, nowNs);
        this.releaseNs = nowNs + delayNs;
        this.incrementNs = incrementNs;
        this.tatBeforeNs = tatBeforeNs;
        this.tatAfterNs = slotNs + incrementNs;
        return this;
    }

    /**
     * Record a rejection (nothing charged, nothing to cancel).
     *
     * @param code  the rejection code.
     * @param nowNs the time of the request.
     * @return this.
     */
    Reservation rejected(final long code, final long nowNs)
    {
        this.code = code;
        this.nowNs = nowNs;
        this.slotNs = 0;
        this.releaseNs = 0;
        this.incrementNs = 0;
        this.tatBeforeNs = 0;
        this.tatAfterNs = 0;
        return this;
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
    public long tatBeforeNs()
    {
        return tatBeforeNs;
    }

    /**
     * @return the TAT this reservation left in the cell ({@code slot + n * T}); a cancel succeeds only while
     * the cell still holds exactly this value.
     */
    public long tatAfterNs()
    {
        return tatAfterNs;
    }

    public String toString()
    {
        return "Reservation{" + Result.name(code) + ", code=" + code + ", nowNs=" + nowNs + ", slotNs=" + slotNs +
            ", releaseNs=" + releaseNs + ", incrementNs=" + incrementNs + '}';
    }
}
