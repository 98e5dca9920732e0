package dev.cellrate.window;

import dev.cellrate.check.Bounds;
import dev.cellrate.layout.CellArray;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.NanoClock;

/**
 * What the two one-word window fronts share (layer: front support, package-private): the cell word and the
 * debit's CAS loop. Final fields and final methods only, so a front's decision path reads its fields as if they
 * were its own (no dispatch).
 * <p>
 * The word packs {@code countsPerWord} counts of {@code c = countBits(limit)} bits under a signed window index
 * (the window lengths this allows: {@link WindowFront}).
 */
abstract class WindowCell extends WindowFront
{
    final AtomicBuffer buffer;
    final int wordOffset;
    final int countBits;
    /** 1: the fixed window's count; 2: the sliding counter's previous and current counts. */
    private final int countsPerWord;

    WindowCell(
        final long limit,
        final long maxLimit,
        final int countsPerWord,
        final long windowNs,
        final CellArray cells,
        final int cellIndex,
        final NanoClock clock)
    {
        super(limit, maxLimit, countsPerWord, windowNs, clock);
        Bounds.requireNonNull("cells", cells);
        Bounds.requireRange("cellIndex", cellIndex, 0, cells.cellCount() - 1);
        this.countBits = FixedWindow.countBits(limit);
        this.countsPerWord = countsPerWord;
        this.buffer = cells.buffer();
        this.wordOffset = CellArray.tatOffset(cellIndex);
    }

    /**
     * @param initialPermits the initial fill, &ge; 0.
     * @return true iff the fill is below a full window (the fresh cell is already full).
     */
    final boolean partlyFilled(final long initialPermits)
    {
        return Bounds.requireRange("initialPermits", initialPermits, 0, Long.MAX_VALUE) < limit;
    }

    /**
     * The write of a debit: CAS the word until it holds {@code permits} more in the request's window (the stored
     * window if the clock went back), the count clamped at {@code limit}. A word already at the clamp is left as it
     * is (nothing written); a lost CAS recomputes from the witness, so no concurrent update is lost.
     *
     * @param windowIndex {@code floorDiv(nowNs, windowNs)}.
     * @param permits     the cost, &ge; 1 (any size).
     * @return the word after the debit.
     */
    final long debitWord(final long windowIndex, final long permits)
    {
        long word = buffer.getLongAcquire(wordOffset);
        long next;
        while ((next = debited(word, windowIndex, permits)) != word)
        {
            final long witness = buffer.compareAndExchangeLong(wordOffset, word, next);
            if (witness == word)
            {
                break;
            }
            word = witness;
        }
        return next;
    }

    private long debited(final long word, final long windowIndex, final long permits)
    {
        return 1 == countsPerWord ? FixedWindow.debited(word, windowIndex, permits, limit, countBits) :
            SlidingCounter.debited(SlidingCounter.rolled(word, windowIndex, countBits), permits, limit, countBits);
    }

    /**
     * @return the raw state word (acquire read), for tests of the layout.
     */
    final long word()
    {
        return buffer.getLongAcquire(wordOffset);
    }

    /**
     * @return c, the bit budget of each count.
     */
    final int countBits()
    {
        return countBits;
    }
}
