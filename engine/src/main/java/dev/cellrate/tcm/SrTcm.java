package dev.cellrate.tcm;

import dev.cellrate.lock.SeqLock;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;

import static dev.cellrate.check.Bounds.requireRange;

/**
 * A thread-safe, allocation-free single rate three colour marker (srTCM, RFC 2697 [1]): colours each packet
 * GREEN, YELLOW or RED ({@link Colour}) against a committed rate CIR (bytes per second), a committed burst CBS
 * and an excess burst EBS (bytes). Rules in {@link SrTcmRules}; token arithmetic in integer bytes and ns
 * ({@link TokenTicks}), exactly the RFC's one-token-at-a-time updates.
 * <p>
 * State: the two token counts and the time of the last update share one {@link MarkerCell} (first bucket
 * Tc, second bucket Te) under a {@link SeqLock} stamp.
 * Concurrency: any thread may call any method. Each marking takes the stamp (CAS even to odd), refills and
 * debits both counts (plain loads, release stores), and releases the stamp (release store), so markings are
 * serialised and both counts always move together; the CAS's acquire pairs with the previous release. It
 * blocks (spins) only while another marking is inside, a few dozen instructions.
 * <p>
 * Time: the caller's {@code nowNs}. Time going backwards adds no tokens and leaves the last-update time where
 * it was (the monotonised clock), so it can only make colours worse.
 * <p>
 * [1] J. Heinanen, R. Guerin, "A Single Rate Three Color Marker", RFC 2697, 1999.
 */
public final class SrTcm extends MarkerCell
{
    /** Largest CBS or EBS: 2<sup>61</sup> bytes (so that sums of counts and ticks cannot overflow). */
    public static final long MAX_BURST_BYTES = 1L << 61;

    private final long cirBytesPerSecond;
    private final long cbsBytes;
    private final long ebsBytes;

    /**
     * @param cirBytesPerSecond CIR, in [1, {@link TokenTicks#MAX_RATE_PER_SECOND}].
     * @param cbsBytes          CBS, in [0, {@link #MAX_BURST_BYTES}].
     * @param ebsBytes          EBS, in [0, {@link #MAX_BURST_BYTES}]; CBS + EBS must be at least 1.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public SrTcm(final long cirBytesPerSecond, final long cbsBytes, final long ebsBytes)
    {
        this(cirBytesPerSecond, cbsBytes, ebsBytes, SystemNanoClock.INSTANCE);
    }

    /**
     * @param cirBytesPerSecond CIR, in [1, {@link TokenTicks#MAX_RATE_PER_SECOND}].
     * @param cbsBytes          CBS, in [0, {@link #MAX_BURST_BYTES}].
     * @param ebsBytes          EBS, in [0, {@link #MAX_BURST_BYTES}]; CBS + EBS must be at least 1.
     * @param clock             the clock of the clock forms.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public SrTcm(final long cirBytesPerSecond, final long cbsBytes, final long ebsBytes, final NanoClock clock)
    {
        super(clock, cbsBytes, ebsBytes);
        requireRange("cirBytesPerSecond", cirBytesPerSecond, 1, TokenTicks.MAX_RATE_PER_SECOND);
        requireRange("cbsBytes", cbsBytes, 0, MAX_BURST_BYTES);
        requireRange("ebsBytes", ebsBytes, 0, MAX_BURST_BYTES);
        requireRange("cbsBytes + ebsBytes", cbsBytes + ebsBytes, 1, 2 * MAX_BURST_BYTES);
        this.cirBytesPerSecond = cirBytesPerSecond;
        this.cbsBytes = cbsBytes;
        this.ebsBytes = ebsBytes;
    }

    /**
     * Colour-aware marking: a negative {@code bytes} or an unknown {@code preColour} is {@link Colour#RED}.
     */
    public int markColourAware(final long bytes, final int preColour, final long nowNs)
    {
        final long stamp = lock();
        final long lastNs = lastUpdateNs();
        final long committed = first();
        final long ticks = TokenTicks.ticks(lastNs, nowNs, cirBytesPerSecond, cbsBytes + ebsBytes);
        final long committedNow = SrTcmRules.committedAfterRefill(committed, ticks, cbsBytes);
        final long excessNow = SrTcmRules.excessAfterRefill(
            second(), ticks - (committedNow - committed), ebsBytes);
        final int colour = SrTcmRules.colour(committedNow, excessNow, bytes, preColour);
        publish(stamp, lastNs, nowNs,
            Colour.GREEN == colour ? committedNow - bytes : committedNow,
            Colour.YELLOW == colour ? excessNow - bytes : excessNow);
        return colour;
    }

    /**
     * @return Tc as of the last marking (a consistent read).
     */
    public long committedTokens()
    {
        return firstRead();
    }

    /**
     * @return Te as of the last marking (a consistent read).
     */
    public long excessTokens()
    {
        return secondRead();
    }
}
