package dev.cellrate.layout;

import org.agrona.BitUtil;

import static org.agrona.BitUtil.SIZE_OF_LONG;

/**
 * The padded cell, described once (in the style of Agrona's {@code RingBufferDescriptor}): every off-heap
 * state of the engine that is written concurrently sits at the start of one {@link #CELL_LENGTH}-byte cell in a
 * {@link #CELL_ALIGNMENT}-aligned buffer, so it is alone on its own pair of 64-byte cache lines (the
 * adjacent-line prefetcher fetches lines in pairs): two cells never share a line, and nothing else shares a
 * cell's line. Two layouts use the same cell:
 * <pre>
 *  TAT cell (RateLimiter, Shaper, ReservingLimiter, PayLaterRateLimiter, CellArray, the table's dedicated cells)
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                        TAT (ns, signed)                       |  TAT_OFFSET = 0
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |          padding: 120 bytes, never read or written            |
 *  ...                                                           ...
 *  +---------------------------------------------------------------+  CELL_LENGTH = 128
 *
 *  seqlock cell (SrTcm, TrTcm: their words live where a TAT cell has padding)
 *  +---------------------------------------------------------------+
 *  |          stamp (SeqLock word: even = free, odd = held)        |  STAMP_OFFSET = 0
 *  +---------------------------------------------------------------+
 *  |          time of the last update (ns)                         |  LAST_UPDATE_OFFSET = 8
 *  +---------------------------------------------------------------+
 *  |          first word  (srTCM Tc, trTCM Tp), bytes              |  FIRST_OFFSET = 16
 *  +---------------------------------------------------------------+
 *  |          second word (srTCM Te, trTCM Tc), bytes              |  SECOND_OFFSET = 24
 *  +---------------------------------------------------------------+
 *  |          padding: 96 bytes, never read or written             |
 *  ...                                                           ...
 *  +---------------------------------------------------------------+  CELL_LENGTH = 128
 * </pre>
 * Cell {@code i} of a buffer starts at {@link #cellOffset(int) i * CELL_LENGTH}. The same padding unit also
 * separates the headers of other layouts from what follows them ({@code TableLayout}'s shard headers, the
 * concurrency limiter's in-flight count). A fresh TAT cell holds {@link dev.cellrate.layout.CellArray#FRESH_TAT_NS}
 * (public, since constructors that take a first TAT name it); a fresh seqlock cell an even stamp and
 * {@link #NEVER_UPDATED_NS}.
 * <p>
 * Not exported by the module: these are layout internals.
 */
public final class CellLayout
{
    /** Bytes per cell: a pair of cache lines (128). */
    public static final int CELL_LENGTH = 2 * BitUtil.CACHE_LINE_LENGTH;

    /** Alignment of a buffer of cells (and so of every cell). */
    public static final int CELL_ALIGNMENT = CELL_LENGTH;

    /** TAT cell: offset of the TAT word. */
    public static final int TAT_OFFSET = 0;

    /** Seqlock cell: offset of the stamp word ({@code dev.cellrate.lock.SeqLock}). */
    public static final int STAMP_OFFSET = 0;

    /** Seqlock cell: offset of the time of the last update. */
    public static final int LAST_UPDATE_OFFSET = STAMP_OFFSET + SIZE_OF_LONG;

    /** Seqlock cell: offset of the first state word. */
    public static final int FIRST_OFFSET = LAST_UPDATE_OFFSET + SIZE_OF_LONG;

    /** Seqlock cell: offset of the second state word. */
    public static final int SECOND_OFFSET = FIRST_OFFSET + SIZE_OF_LONG;

    /** Seqlock cell: the last-update time of a fresh cell, earlier than any time (never updated). */
    public static final long NEVER_UPDATED_NS = Long.MIN_VALUE;

    private CellLayout()
    {
    }

    /**
     * @param index cell index.
     * @return the byte offset of that cell.
     */
    public static int cellOffset(final int index)
    {
        return index * CELL_LENGTH;
    }
}
