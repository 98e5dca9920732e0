package dev.cellrate.observe;

import dev.cellrate.stat.LimiterStats;
import dev.cellrate.stat.TopKeys;
import dev.cellrate.check.Bounds;
import dev.cellrate.KeyedReserver;
import dev.cellrate.Result;
import dev.cellrate.Reservation;
import org.agrona.concurrent.NanoClock;

/**
 * Any {@link KeyedReserver} (a keyed shaper) with its reservations counted in a {@link LimiterStats}, rejected
 * keys in its top-keys sketch: enforced ({@link #enforced}) or in dry-run ({@link #dryRun}: as
 * {@link ObservedReserver}, never rejects: what the shaper would reject is answered
 * {@link Result#WOULD_HAVE_REJECTED}). String keys go into the sketch as
 * {@link dev.cellrate.stat.TopKeys#keyOf(CharSequence)}. Allocation-free.
 */
public final class ObservedKeyedReserver implements KeyedReserver
{
    private final KeyedReserver reserver;
    private final LimiterStats stats;
    private final boolean dryRun;

    private ObservedKeyedReserver(final KeyedReserver reserver, final LimiterStats stats, final boolean dryRun)
    {
        Bounds.requireNonNull("reserver", reserver);
        Bounds.requireNonNull("stats", stats);
        this.reserver = reserver;
        this.stats = stats;
        this.dryRun = dryRun;
    }

    /**
     * @param reserver the keyed shaper.
     * @param stats    its counters.
     * @return the shaper, enforced, its outcomes counted.
     */
    public static ObservedKeyedReserver enforced(final KeyedReserver reserver, final LimiterStats stats)
    {
        return new ObservedKeyedReserver(reserver, stats, false);
    }

    /**
     * @param reserver the keyed shaper.
     * @param stats    its counters.
     * @return the shaper in dry-run: never rejects, counts what it would have rejected.
     */
    public static ObservedKeyedReserver dryRun(final KeyedReserver reserver, final LimiterStats stats)
    {
        return new ObservedKeyedReserver(reserver, stats, true);
    }

    public long reserve(final long key, final long permits, final long nowNs, final Reservation reservation)
    {
        final long code = reserver.reserve(key, permits, nowNs, reservation);
        return ObservedReserver.pass(count(key, code), code, nowNs, reservation);
    }

    public long reserve(final CharSequence key, final long permits, final long nowNs, final Reservation reservation)
    {
        final long code = reserver.reserve(key, permits, nowNs, reservation);
        return ObservedReserver.pass(
            Result.isReserved(code) ? count(0, code) : count(TopKeys.keyOf(key), code), code, nowNs,
            reservation);
    }

    public NanoClock clock()
    {
        return reserver.clock();
    }

    private long count(final long keyWord, final long code)
    {
        return dryRun ? stats.dryRunReservation(keyWord, code) : stats.recordReservation(keyWord, code);
    }
}
