package dev.cellrate.tcm;

import dev.cellrate.Marker;
import static dev.cellrate.Bounds.requireRange;

import dev.cellrate.CellArray;
import dev.cellrate.lock.SeqLock;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;

import static org.agrona.BitUtil.SIZE_OF_LONG;

/**
 * A thread-safe, allocation-free single rate three colour marker (srTCM, RFC 2697 [1]): colours each packet
 * GREEN, YELLOW or RED ({@link Colour}) against a committed rate CIR (bytes per second), a committed burst CBS
 * and an excess burst EBS (bytes). Rules in {@link SrTcmRules}; token arithmetic in integer bytes and ns
 * ({@link TokenTicks}), exactly the RFC's one-token-at-a-time updates.
 * <p>
 * State: the two token counts and the time of the last update do not fit one word, so they share one padded
 * {@link CellArray} cell with a {@link SeqLock} stamp:
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                 stamp (SeqLock word: even = free)             |  STAMP_OFFSET = 0
 *  +---------------------------------------------------------------+
 *  |                 time of the last update (ns)                  |  LAST_UPDATE_OFFSET = 8
 *  +---------------------------------------------------------------+
 *  |                 Tc: committed tokens, bytes in [0, CBS]       |  COMMITTED_OFFSET = 16
 *  +---------------------------------------------------------------+
 *  |                 Te: excess tokens, bytes in [0, EBS]          |  EXCESS_OFFSET = 24
 *  +---------------------------------------------------------------+
 *  |                 padding to the 128-byte cell                  |
 *  +---------------------------------------------------------------+
 * </pre>
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
public final class SrTcm implements Marker
{
    /** Offset of the {@link SeqLock} stamp. */
    public static final int STAMP_OFFSET = 0;

    /** Offset of the time of the last update. */
    public static final int LAST_UPDATE_OFFSET = STAMP_OFFSET + SIZE_OF_LONG;

    /** Offset of Tc. */
    public static final int COMMITTED_OFFSET = LAST_UPDATE_OFFSET + SIZE_OF_LONG;

    /** Offset of Te. */
    public static final int EXCESS_OFFSET = COMMITTED_OFFSET + SIZE_OF_LONG;

    /** Largest CBS or EBS: 2<sup>61</sup> bytes (so that sums of counts and ticks cannot overflow). */
    public static final long MAX_BURST_BYTES = 1L << 61;

    private final AtomicBuffer buffer;
    private final long cirBytesPerSecond;
    private final long cbsBytes;
    private final long ebsBytes;
    private final NanoClock clock;

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
        if (null == clock)
        {
            throw new IllegalArgumentException("clock must not be null");
        }
        requireRange("cirBytesPerSecond", cirBytesPerSecond, 1, TokenTicks.MAX_RATE_PER_SECOND);
        requireRange("cbsBytes", cbsBytes, 0, MAX_BURST_BYTES);
        requireRange("ebsBytes", ebsBytes, 0, MAX_BURST_BYTES);
        requireRange("cbsBytes + ebsBytes", cbsBytes + ebsBytes, 1, 2 * MAX_BURST_BYTES);
        this.cirBytesPerSecond = cirBytesPerSecond;
        this.cbsBytes = cbsBytes;
        this.ebsBytes = ebsBytes;
        this.clock = clock;
        this.buffer = CellArray.allocate(1).buffer();
        final long stamp = SeqLock.lock(buffer, STAMP_OFFSET);
        buffer.putLong(LAST_UPDATE_OFFSET, Long.MIN_VALUE);
        buffer.putLong(COMMITTED_OFFSET, cbsBytes);
        buffer.putLong(EXCESS_OFFSET, ebsBytes);
        SeqLock.unlock(buffer, STAMP_OFFSET, stamp);
    }

    /**
     * Colour-blind marking.
     *
     * @param bytes B, the packet size; negative is {@link Colour#RED}.
     * @param nowNs the arrival time, ns.
     * @return {@link Colour#GREEN}, {@link Colour#YELLOW} or {@link Colour#RED}.
     */
    public int mark(final long bytes, final long nowNs)
    {
        return markColourAware(bytes, Colour.GREEN, nowNs);
    }

    /**
     * Colour-aware marking.
     *
     * @param bytes     B, the packet size; negative is {@link Colour#RED}.
     * @param preColour the packet's colour so far; an unknown code is {@link Colour#RED}.
     * @param nowNs     the arrival time, ns.
     * @return {@link Colour#GREEN}, {@link Colour#YELLOW} or {@link Colour#RED}.
     */
    public int markColourAware(final long bytes, final int preColour, final long nowNs)
    {
        final AtomicBuffer buffer = this.buffer;
        final long stamp = SeqLock.lock(buffer, STAMP_OFFSET);
        final long lastNs = buffer.getLong(LAST_UPDATE_OFFSET);
        final long committed = buffer.getLong(COMMITTED_OFFSET);
        final long ticks = TokenTicks.ticks(lastNs, nowNs, cirBytesPerSecond, cbsBytes + ebsBytes);
        long committedNow = SrTcmRules.committedAfterRefill(committed, ticks, cbsBytes);
        long excessNow = SrTcmRules.excessAfterRefill(
            buffer.getLong(EXCESS_OFFSET), ticks - (committedNow - committed), ebsBytes);
        final int colour = SrTcmRules.colour(committedNow, excessNow, bytes, preColour);
        if (Colour.GREEN == colour)
        {
            committedNow -= bytes;
        }
        else if (Colour.YELLOW == colour)
        {
            excessNow -= bytes;
        }
        buffer.putLongRelease(LAST_UPDATE_OFFSET, Math.max(lastNs, nowNs));
        buffer.putLongRelease(COMMITTED_OFFSET, committedNow);
        buffer.putLongRelease(EXCESS_OFFSET, excessNow);
        SeqLock.unlock(buffer, STAMP_OFFSET, stamp);
        return colour;
    }

    /**
     * @return Tc as of the last marking (a consistent read).
     */
    public long committedTokens()
    {
        return read(COMMITTED_OFFSET);
    }

    /**
     * @return Te as of the last marking (a consistent read).
     */
    public long excessTokens()
    {
        return read(EXCESS_OFFSET);
    }

    private long read(final int offset)
    {
        return SeqLock.read(buffer, STAMP_OFFSET, offset);
    }

    /**
     * @return the clock the clock forms read.
     */
    public NanoClock clock()
    {
        return clock;
    }
}
