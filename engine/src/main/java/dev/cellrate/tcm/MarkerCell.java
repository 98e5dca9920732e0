package dev.cellrate.tcm;

import dev.cellrate.Marker;
import dev.cellrate.check.Bounds;
import dev.cellrate.layout.CellArray;
import dev.cellrate.layout.CellLayout;
import dev.cellrate.lock.SeqLock;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.NanoClock;

import static dev.cellrate.layout.CellLayout.FIRST_OFFSET;
import static dev.cellrate.layout.CellLayout.LAST_UPDATE_OFFSET;
import static dev.cellrate.layout.CellLayout.SECOND_OFFSET;
import static dev.cellrate.layout.CellLayout.STAMP_OFFSET;

/**
 * What the two markers share (layer: front support, package-private): the seqlock cell of their two buckets,
 * the clock, and the colour-blind form. {@link SrTcm} (buckets Tc, Te) and {@link TrTcm} (buckets Tp, Tc) keep
 * their state in one padded {@link CellArray} cell, in the seqlock-cell layout of {@link CellLayout} (stamp,
 * time of the last update, first bucket, second bucket: words that a TAT cell leaves as padding); each supplies
 * only its colour-aware marking and the names of its buckets. Final fields and final methods only, so a marking
 * reads the cell as its own.
 * <p>
 * Concurrency: a marking takes the stamp ({@link #lock}: CAS even to odd, whose acquire pairs with the
 * previous release), reads the words plainly, and {@link #publish}es: release stores of the three words, then
 * the next even stamp. Readers use {@link #firstRead} and {@link #secondRead} (consistent single-word reads).
 */
abstract class MarkerCell implements Marker
{
    private final AtomicBuffer buffer;
    private final NanoClock clock;

    /**
     * A fresh cell, both buckets full, last update at {@link CellLayout#NEVER_UPDATED_NS}.
     *
     * @param clock  the clock of the clock forms.
     * @param first  the first bucket's initial bytes (full).
     * @param second the second bucket's initial bytes (full).
     */
    MarkerCell(final NanoClock clock, final long first, final long second)
    {
        this.clock = Bounds.requireNonNull("clock", clock);
        this.buffer = CellArray.allocate(1).buffer();
        publish(lock(), CellLayout.NEVER_UPDATED_NS, CellLayout.NEVER_UPDATED_NS, first, second);
    }

    /**
     * Colour-blind marking: {@link #markColourAware} of a {@link Colour#GREEN} packet.
     */
    public final int mark(final long bytes, final long nowNs)
    {
        return markColourAware(bytes, Colour.GREEN, nowNs);
    }

    /**
     * @return the clock the clock forms read.
     */
    public final NanoClock clock()
    {
        return clock;
    }

    /**
     * @return the stamp to {@link #publish} with.
     */
    final long lock()
    {
        return SeqLock.lock(buffer, STAMP_OFFSET);
    }

    /**
     * @return the time of the last update (the stamp held).
     */
    final long lastUpdateNs()
    {
        return buffer.getLong(LAST_UPDATE_OFFSET);
    }

    /**
     * @return the first bucket (the stamp held).
     */
    final long first()
    {
        return buffer.getLong(FIRST_OFFSET);
    }

    /**
     * @return the second bucket (the stamp held).
     */
    final long second()
    {
        return buffer.getLong(SECOND_OFFSET);
    }

    /**
     * Write the marking's result and release the stamp. The last-update time moves to {@code nowNs} only
     * forward (the monotonised clock: time going backwards adds no tokens later either).
     *
     * @param stamp  from {@link #lock}.
     * @param lastNs the time of the last update, as read under the stamp.
     * @param nowNs  the time of this marking.
     * @param first  the first bucket.
     * @param second the second bucket.
     */
    final void publish(final long stamp, final long lastNs, final long nowNs, final long first, final long second)
    {
        final AtomicBuffer buffer = this.buffer;
        buffer.putLongRelease(LAST_UPDATE_OFFSET, Math.max(lastNs, nowNs));
        buffer.putLongRelease(FIRST_OFFSET, first);
        buffer.putLongRelease(SECOND_OFFSET, second);
        SeqLock.unlock(buffer, STAMP_OFFSET, stamp);
    }

    /**
     * @return the first bucket as of the last marking (a consistent read).
     */
    final long firstRead()
    {
        return SeqLock.read(buffer, STAMP_OFFSET, FIRST_OFFSET);
    }

    /**
     * @return the second bucket as of the last marking (a consistent read).
     */
    final long secondRead()
    {
        return SeqLock.read(buffer, STAMP_OFFSET, SECOND_OFFSET);
    }
}
