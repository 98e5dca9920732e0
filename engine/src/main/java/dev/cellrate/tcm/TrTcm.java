package dev.cellrate.tcm;

import dev.cellrate.check.Bounds;
import dev.cellrate.lock.SeqLock;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;

/**
 * A thread-safe, allocation-free two rate three colour marker (trTCM, RFC 2698 [1]): colours each packet
 * GREEN, YELLOW or RED ({@link Colour}) against a peak rate PIR and a committed rate CIR (bytes per second) with
 * their bursts PBS and CBS (bytes). Rules in {@link TrTcmRules}; token arithmetic in integer bytes and ns
 * ({@link TokenTicks}), exactly the RFC's one-token-at-a-time updates.
 * <p>
 * State: the two token counts and the time of the last update share one {@link MarkerCell} (first bucket
 * Tp, second bucket Tc) under a {@link SeqLock} stamp.
 * Concurrency: any thread may call any method. Each marking takes the stamp (CAS even to odd), refills and
 * debits both counts (plain loads, release stores), and releases the stamp (release store), so markings are
 * serialised and both counts always move together; the CAS's acquire pairs with the previous release. It
 * blocks (spins) only while another marking is inside, a few dozen instructions.
 * <p>
 * Time: the caller's {@code nowNs}. Time going backwards adds no tokens to either bucket and leaves the last-update time where
 * it was (the monotonised clock), so it can only make colours worse.
 * <p>
 * [1] J. Heinanen, R. Guerin, "A Two Rate Three Color Marker", RFC 2698, 1999.
 */
public final class TrTcm extends MarkerCell
{
    /** Largest PBS or CBS: 2<sup>61</sup> bytes (so that sums of counts and ticks cannot overflow). */
    public static final long MAX_BURST_BYTES = 1L << 61;

    private final long pirBytesPerSecond;
    private final long pbsBytes;
    private final long cirBytesPerSecond;
    private final long cbsBytes;

    /**
     * @param pirBytesPerSecond PIR, in [CIR, {@link TokenTicks#MAX_RATE_PER_SECOND}].
     * @param pbsBytes          PBS, in [1, {@link #MAX_BURST_BYTES}].
     * @param cirBytesPerSecond CIR, in [1, {@link TokenTicks#MAX_RATE_PER_SECOND}].
     * @param cbsBytes          CBS, in [1, {@link #MAX_BURST_BYTES}].
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public TrTcm(final long pirBytesPerSecond, final long pbsBytes, final long cirBytesPerSecond, final long cbsBytes)
    {
        this(pirBytesPerSecond, pbsBytes, cirBytesPerSecond, cbsBytes, SystemNanoClock.INSTANCE);
    }

    /**
     * @param pirBytesPerSecond PIR, in [CIR, {@link TokenTicks#MAX_RATE_PER_SECOND}].
     * @param pbsBytes          PBS, in [1, {@link #MAX_BURST_BYTES}].
     * @param cirBytesPerSecond CIR, in [1, {@link TokenTicks#MAX_RATE_PER_SECOND}].
     * @param cbsBytes          CBS, in [1, {@link #MAX_BURST_BYTES}].
     * @param clock             the clock of the clock forms.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public TrTcm(
        final long pirBytesPerSecond,
        final long pbsBytes,
        final long cirBytesPerSecond,
        final long cbsBytes,
        final NanoClock clock)
    {
        super(clock, pbsBytes, cbsBytes);
        Bounds.requireRange("cirBytesPerSecond", cirBytesPerSecond, 1, TokenTicks.MAX_RATE_PER_SECOND);
        Bounds.requireRange("pirBytesPerSecond", pirBytesPerSecond, cirBytesPerSecond, TokenTicks.MAX_RATE_PER_SECOND);
        Bounds.requireRange("pbsBytes", pbsBytes, 1, MAX_BURST_BYTES);
        Bounds.requireRange("cbsBytes", cbsBytes, 1, MAX_BURST_BYTES);
        this.pirBytesPerSecond = pirBytesPerSecond;
        this.pbsBytes = pbsBytes;
        this.cirBytesPerSecond = cirBytesPerSecond;
        this.cbsBytes = cbsBytes;
    }

    /**
     * Colour-aware marking: a negative {@code bytes} or an unknown {@code preColour} is {@link Colour#RED}.
     */
    public int markColourAware(final long bytes, final int preColour, final long nowNs)
    {
        final long stamp = lock();
        final long lastNs = lastUpdateNs();
        final long peakNow = TrTcmRules.afterRefill(first(),
            TokenTicks.ticks(lastNs, nowNs, pirBytesPerSecond, pbsBytes), pbsBytes);
        final long committedNow = TrTcmRules.afterRefill(second(),
            TokenTicks.ticks(lastNs, nowNs, cirBytesPerSecond, cbsBytes), cbsBytes);
        final int colour = TrTcmRules.colour(peakNow, committedNow, bytes, preColour);
        publish(stamp, lastNs, nowNs,
            Colour.RED != colour ? peakNow - bytes : peakNow,
            Colour.GREEN == colour ? committedNow - bytes : committedNow);
        return colour;
    }

    /**
     * @return Tp as of the last marking (a consistent read).
     */
    public long peakTokens()
    {
        return firstRead();
    }

    /**
     * @return Tc as of the last marking (a consistent read).
     */
    public long committedTokens()
    {
        return secondRead();
    }
}
