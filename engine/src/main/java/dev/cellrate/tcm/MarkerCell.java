package dev.cellrate.tcm;

import dev.cellrate.layout.CellArray;
import dev.cellrate.layout.CellLayout;
import dev.cellrate.lock.SeqLock;
import org.agrona.concurrent.AtomicBuffer;

import static dev.cellrate.layout.CellLayout.FIRST_OFFSET;
import static dev.cellrate.layout.CellLayout.LAST_UPDATE_OFFSET;
import static dev.cellrate.layout.CellLayout.SECOND_OFFSET;
import static dev.cellrate.layout.CellLayout.STAMP_OFFSET;

/**
 * The seqlock cell of a two-bucket marker: both {@link SrTcm} (buckets Tc, Te) and {@link TrTcm} (buckets Tp,
 * Tc) keep their state in one padded {@link CellArray} cell, in the seqlock-cell layout of {@link CellLayout}
 * (stamp, time of the last update, first bucket, second bucket: words that a TAT cell leaves as padding).
 * <p>
 * Concurrency: a marking takes the stamp ({@link #lock}: CAS even to odd, whose acquire pairs with the
 * previous release), reads the words plainly, and {@link #publish}es: release stores of the three words, then
 * the next even stamp. Readers use {@link #read} (a consistent single-word read).
 */
final class MarkerCell
{
    private MarkerCell()
    {
    }

    /**
     * @param first  the first bucket's initial bytes (full).
     * @param second the second bucket's initial bytes (full).
     * @return a fresh cell, last update at {@link CellLayout#NEVER_UPDATED_NS}.
     */
    static AtomicBuffer allocate(final long first, final long second)
    {
        final AtomicBuffer buffer = CellArray.allocate(1).buffer();
        publish(buffer, lock(buffer), CellLayout.NEVER_UPDATED_NS, CellLayout.NEVER_UPDATED_NS, first, second);
        return buffer;
    }

    /**
     * @param buffer the cell.
     * @return the stamp to {@link #publish} with.
     */
    static long lock(final AtomicBuffer buffer)
    {
        return SeqLock.lock(buffer, STAMP_OFFSET);
    }

    /**
     * @param buffer the cell, its stamp held.
     * @return the time of the last update.
     */
    static long lastUpdateNs(final AtomicBuffer buffer)
    {
        return buffer.getLong(LAST_UPDATE_OFFSET);
    }

    /**
     * @param buffer the cell, its stamp held.
     * @return the first bucket.
     */
    static long first(final AtomicBuffer buffer)
    {
        return buffer.getLong(FIRST_OFFSET);
    }

    /**
     * @param buffer the cell, its stamp held.
     * @return the second bucket.
     */
    static long second(final AtomicBuffer buffer)
    {
        return buffer.getLong(SECOND_OFFSET);
    }

    /**
     * Write the marking's result and release the stamp. The last-update time moves to {@code nowNs} only
     * forward (the monotonised clock: time going backwards adds no tokens later either).
     *
     * @param buffer the cell.
     * @param stamp  from {@link #lock}.
     * @param lastNs the time of the last update, as read under the stamp.
     * @param nowNs  the time of this marking.
     * @param first  the first bucket.
     * @param second the second bucket.
     */
    static void publish(
        final AtomicBuffer buffer, final long stamp, final long lastNs, final long nowNs, final long first,
        final long second)
    {
        buffer.putLongRelease(LAST_UPDATE_OFFSET, Math.max(lastNs, nowNs));
        buffer.putLongRelease(FIRST_OFFSET, first);
        buffer.putLongRelease(SECOND_OFFSET, second);
        SeqLock.unlock(buffer, STAMP_OFFSET, stamp);
    }

    /**
     * @param buffer the cell.
     * @param offset a word of the cell.
     * @return a consistent read of the word.
     */
    static long read(final AtomicBuffer buffer, final int offset)
    {
        return SeqLock.read(buffer, STAMP_OFFSET, offset);
    }
}
