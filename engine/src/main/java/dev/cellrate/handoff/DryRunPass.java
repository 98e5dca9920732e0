package dev.cellrate.handoff;

/**
 * How an observing front in dry-run records a pass in a caller's reservation holder, whose fill methods are
 * package-private so that no caller can make a reservation look issued by a front. The holder's class
 * registers its writer once, when it is initialised; a second registration is refused. The writer cannot
 * forge an owner: a dry-run pass holds nothing, so its cancel refunds nothing. Allocation-free.
 */
public final class DryRunPass
{
    /**
     * Writes a dry-run pass into a holder.
     *
     * @param <H> the holder's type.
     */
    public interface Writer<H>
    {
        /**
         * @param holder the caller's holder.
         * @param nowNs  the time of the request.
         */
        void pass(H holder, long nowNs);
    }

    private static volatile Writer<Object> reservations;

    private DryRunPass()
    {
    }

    /**
     * Register the writer of the reservation holder; called by its class initialiser.
     *
     * @param writer the writer.
     * @param <H>    the holder's type.
     * @throws IllegalStateException if a writer is already registered.
     */
    @SuppressWarnings("unchecked")
    public static synchronized <H> void register(final Writer<H> writer)
    {
        if (null != reservations)
        {
            throw new IllegalStateException("the reservation holder's writer is registered once, by its class");
        }
        reservations = (Writer<Object>)writer;
    }

    /**
     * Record a dry-run pass in a reservation holder: go now, nothing reserved, nothing to cancel.
     *
     * @param reservation the caller's holder (an instance, so its class has registered its writer).
     * @param nowNs       the time of the request.
     */
    public static void reservation(final Object reservation, final long nowNs)
    {
        reservations.pass(reservation, nowNs);
    }
}
