package dev.cellrate.observe;

import dev.cellrate.stat.LimiterStats;
import dev.cellrate.check.Bounds;
import dev.cellrate.Marker;
import dev.cellrate.tcm.Colour;
import org.agrona.concurrent.NanoClock;

/**
 * Any {@link Marker} (srTCM, trTCM) with its colours counted in a {@link LimiterStats} (GREEN and YELLOW as
 * admitted, RED as rejected: what a policer forwards and drops): enforced ({@link #enforced}, colours
 * unchanged) or in dry-run ({@link #dryRun}): never marks RED. What the marker colours RED is counted as
 * would-reject and answered {@link Colour#YELLOW} (forwarded, still out of profile). A marker's state does not
 * depend on what the caller does with the colour (a RED packet takes no tokens), so the dry-run marker's
 * counters are exactly the enforced one's. Allocation-free.
 */
public final class ObservedMarker implements Marker
{
    private final Marker marker;
    private final LimiterStats stats;
    private final boolean dryRun;

    private ObservedMarker(final Marker marker, final LimiterStats stats, final boolean dryRun)
    {
        Bounds.requireNonNull("marker", marker);
        Bounds.requireNonNull("stats", stats);
        this.marker = marker;
        this.stats = stats;
        this.dryRun = dryRun;
    }

    /**
     * @param marker the marker.
     * @param stats  its counters.
     * @return the marker, its colours counted.
     */
    public static ObservedMarker enforced(final Marker marker, final LimiterStats stats)
    {
        return new ObservedMarker(marker, stats, false);
    }

    /**
     * @param marker the marker.
     * @param stats  its counters.
     * @return the marker in dry-run: never RED, counts what it would have coloured RED.
     */
    public static ObservedMarker dryRun(final Marker marker, final LimiterStats stats)
    {
        return new ObservedMarker(marker, stats, true);
    }

    public int mark(final long bytes, final long nowNs)
    {
        final int colour = marker.mark(bytes, nowNs);
        return dryRun ? stats.dryRunColour(colour) : stats.recordColour(colour);
    }

    public int markColourAware(final long bytes, final int preColour, final long nowNs)
    {
        final int colour = marker.markColourAware(bytes, preColour, nowNs);
        return dryRun ? stats.dryRunColour(colour) : stats.recordColour(colour);
    }

    public NanoClock clock()
    {
        return marker.clock();
    }

    /**
     * @return true in dry-run.
     */
    public boolean isDryRun()
    {
        return dryRun;
    }
}
