package dev.cellrate.tcm;

import dev.cellrate.CellArray;
import dev.cellrate.lock.SeqLock;
import org.agrona.concurrent.AtomicBuffer;

import static org.agrona.BitUtil.SIZE_OF_LONG;

/**
 * The seqlock cell of a two-bucket marker, described once (layout, in the style of Agrona's
 * {@code RingBufferDescriptor}): both {@link SrTcm} (buckets Tc, Te) and {@link TrTcm} (buckets Tp, Tc) keep
 * their state in one padded {@link CellArray} cell:
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                 stamp (SeqLock word: even = free)             |  STAMP_OFFSET = 0
 *  +---------------------------------------------------------------+
 *  |                 time of the last update (ns)                  |  LAST_UPDATE_OFFSET = 8
 *  +---------------------------------------------------------------+
 *  |                 first bucket, bytes (srTCM Tc, trTCM Tp)      |  FIRST_OFFSET = 16
 *  +---------------------------------------------------------------+
 *  |                 second bucket, bytes (srTCM Te, trTCM Tc)     |  SECOND_OFFSET = 24
 *  +---------------------------------------------------------------+
 *  |                 the rest of the 128-byte cell, unused         |
 *  +---------------------------------------------------------------+
 * </pre>
 * Concurrency: a marking takes the stamp ({@link #lock}: CAS even to odd, whose acquire pairs with the
 * previous release), reads the words plainly, and {@link #publish}es: release stores of the three words, then
 * the next even stamp. Readers use {@link #read} (a consistent single-word read).
 */
final class MarkerCell
{
    static final int STAMP_OFFSET = 0;
    static final int LAST_UPDATE_OFFSET = STAMP_OFFSET + SIZE_OF_LONG;
    static final int FIRST_OFFSET = LAST_UPDATE_OFFSET + SIZE_OF_LONG;
    static final int SECOND_OFFSET = FIRST_OFFSET + SIZE_OF_LONG;

    private MarkerCell()
    {
    }

    /**
     * @param first  the first bucket's initial bytes (full).
     * @param second the second bucket's initial bytes (full).
     * @return a fresh cell, last update at {@link Long#MIN_VALUE}.
     */
    static AtomicBuffer allocate(final long first, final long second)
    {
        final AtomicBuffer buffer = CellArray.allocate(1).buffer();
        publish(buffer, lock(buffer), Long.MIN_VALUE, first, second);
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
     * Write the marking's result and release the stamp.
     *
     * @param buffer       the cell.
     * @param stamp        from {@link #lock}.
     * @param lastUpdateNs the new time of the last update.
     * @param first        the first bucket.
     * @param second       the second bucket.
     */
    static void publish(
        final AtomicBuffer buffer, final long stamp, final long lastUpdateNs, final long first, final long second)
    {
        buffer.putLongRelease(LAST_UPDATE_OFFSET, lastUpdateNs);
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
