package dev.cellrate.observe;

import dev.cellrate.stat.LimiterStats;
import dev.cellrate.stat.StatKind;
import dev.cellrate.check.Bounds;
import dev.cellrate.Reserver;
import dev.cellrate.Result;
import dev.cellrate.Reservation;
import org.agrona.concurrent.NanoClock;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Any {@link Reserver} (a shaper) with its reservations counted in a {@link LimiterStats}: enforced
 * ({@link #enforced}), or in dry-run ({@link #dryRun}): never rejects. In dry-run an admission is answered as
 * enforced (its delay, {@code >= 0}: honour it to keep pacing, or ignore it to shadow without pacing) and
 * what the shaper would reject is answered with a delay of 0 (go now), so {@link Result#isReserved} reads a
 * dry-run pass as it reads any pass; nothing was reserved, so a holder records a pass with nothing to cancel,
 * and the would-be rejection is counted in {@link StatKind#WOULD_REJECT}. A rejected reservation charges nothing, so the dry-run shaper's state is
 * exactly the enforced one's and its counters say exactly what enforcing would reject.
 * {@link #proceeds(long)} reads both conventions. Allocation-free.
 */
public final class ObservedReserver implements Reserver
{
    /**
     * {@code Reservation}'s package-private dry-run fill, found inside the engine's own module: no public type or
     * method can write a pass into a caller's holder.
     */
    private static final MethodHandle DRY_RUN_PASS = dryRunPass();

    private final Reserver reserver;
    private final LimiterStats stats;
    private final boolean dryRun;

    private ObservedReserver(final Reserver reserver, final LimiterStats stats, final boolean dryRun)
    {
        Bounds.requireNonNull("reserver", reserver);
        Bounds.requireNonNull("stats", stats);
        this.reserver = reserver;
        this.stats = stats;
        this.dryRun = dryRun;
    }

    /**
     * @param reserver the shaper.
     * @param stats    its counters.
     * @return the shaper, enforced, its outcomes counted.
     */
    public static ObservedReserver enforced(final Reserver reserver, final LimiterStats stats)
    {
        return new ObservedReserver(reserver, stats, false);
    }

    /**
     * @param reserver the shaper.
     * @param stats    its counters.
     * @return the shaper in dry-run: never rejects, counts what it would have rejected.
     */
    public static ObservedReserver dryRun(final Reserver reserver, final LimiterStats stats)
    {
        return new ObservedReserver(reserver, stats, true);
    }

    /**
     * @param code a code from a reservation (enforced or dry-run) or a dry-run concurrency limit.
     * @return true iff the request may go: a delay or ticket {@code >= 0} (what every dry-run pass answers), or
     * {@link Result#WOULD_HAVE_REJECTED}.
     */
    public static boolean proceeds(final long code)
    {
        return Result.isReserved(code) || Result.WOULD_HAVE_REJECTED == code;
    }

    public long reserve(final long permits, final long nowNs)
    {
        final long code = reserver.reserve(permits, nowNs);
        return dryRun ? pass(stats.dryRunReservation(code), code, nowNs, null) : stats.recordReservation(code);
    }

    public long reserve(final long permits, final long nowNs, final Reservation reservation)
    {
        final long code = reserver.reserve(permits, nowNs, reservation);
        return dryRun ? pass(stats.dryRunReservation(code), code, nowNs, reservation) : stats.recordReservation(code);
    }

    /**
     * @return {@code answer}, or, when a dry-run turned the shaper's rejection {@code code} into a pass, a delay
     * of 0 (go now), recorded in the caller's holder as a pass with nothing to cancel.
     */
    static long pass(final long answer, final long code, final long nowNs, final Reservation reservation)
    {
        if (answer == code)
        {
            return code;
        }
        if (null != reservation)
        {
            try
            {
                DRY_RUN_PASS.invokeExact(reservation, nowNs);
            }
            catch (final RuntimeException | Error ex)
            {
                throw ex;
            }
            catch (final Throwable ex)
            {
                throw new IllegalStateException(ex);
            }
        }
        return 0;
    }

    private static MethodHandle dryRunPass()
    {
        try
        {
            return MethodHandles.privateLookupIn(Reservation.class, MethodHandles.lookup())
                .findVirtual(Reservation.class, "dryRunPass", MethodType.methodType(void.class, long.class));
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    public NanoClock clock()
    {
        return reserver.clock();
    }

    /**
     * @return true in dry-run.
     */
    public boolean isDryRun()
    {
        return dryRun;
    }

    /**
     * @return the counters.
     */
    public LimiterStats stats()
    {
        return stats;
    }
}
