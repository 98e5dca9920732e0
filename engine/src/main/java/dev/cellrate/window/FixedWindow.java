package dev.cellrate.window;

import dev.cellrate.Result;

/**
 * The fixed-window decision as pure functions over {@code long}s: no memory, no atomics, no objects.
 * <p>
 * Algorithm: time is cut into aligned windows {@code [k W, (k + 1) W)} with {@code k = floorDiv(t, W)}; each
 * window admits at most {@code L} permits. A request for {@code n} permits in window {@code k} is admitted
 * iff the count already charged to {@code k} plus {@code n} is at most {@code L}.
 * <p>
 * State: one word, {@code [window index : 64 - c bits, signed][count : c bits]} with
 * {@code c = countBits(L)} (the bits needed to hold {@code L}):
 * <pre>
 *   63                                        c c-1                 0
 *  +-------------------------------------------+--------------------+
 *  |  window index k (two's complement)        |  count in [0, L]   |
 *  +-------------------------------------------+--------------------+
 * </pre>
 * The limiter demands {@code W >= 2^c}, so every index {@code floorDiv(t, W)} of a 64-bit time fits the
 * {@code 64 - c} signed bits exactly: indices never wrap and compare exactly. {@link Long#MIN_VALUE} (the fresh
 * {@link dev.cellrate.layout.CellArray} value) decodes as count 0 in the earliest window: an empty window.
 * <p>
 * Time going backwards: a request whose window is older than the stored one is charged to the stored
 * (newest) window. The limiter thereby runs on the monotonised clock {@code max(seen, t)}, on which no window
 * ever holds more than {@code L}; a late request can only find less room, never more.
 * <p>
 * Debit (a charge after the fact, {@link dev.cellrate.DebitLimiter}): {@link #debited} raises the count of
 * the window the request is charged to, clamped at {@code L}. A window carries no debt into the next one: the
 * count field holds [0, L] only, and a fixed window's promise is per window (each starts from zero, which is the
 * algorithm). So a debit fills at most the rest of its window: every later request in that window is rejected
 * until the window ends, and what exceeds {@code L} is forgiven at the boundary.
 * <p>
 * Worst case (elementary: a span shorter than {@code W} meets at most two windows; measured in
 * {@code docs/windows-and-markers.md}): any span shorter than {@code W} that straddles a boundary can hold
 * {@code 2L} admissions ({@code L} at the end of window k, {@code L} at the start of window k + 1).
 */
final class FixedWindow
{
    private FixedWindow()
    {
    }

    /**
     * @param limit L &ge; 1.
     * @return c, the number of bits needed to hold any count in [0, L].
     */
    public static int countBits(final long limit)
    {
        return 64 - Long.numberOfLeadingZeros(limit);
    }

    /**
     * @param nowNs    the time.
     * @param windowNs W &ge; 1.
     * @return {@code floorDiv(t, W)}, the window of {@code t}.
     */
    public static long windowIndex(final long nowNs, final long windowNs)
    {
        return Math.floorDiv(nowNs, windowNs);
    }

    /**
     * @param windowIndex k, fitting in {@code 64 - countBits} signed bits.
     * @param count       in [0, L].
     * @param countBits   c.
     * @return the packed word.
     */
    public static long pack(final long windowIndex, final long count, final int countBits)
    {
        return (windowIndex << countBits) | count;
    }

    /**
     * @param word      a packed word.
     * @param countBits c.
     * @return its window index.
     */
    public static long windowIndexOf(final long word, final int countBits)
    {
        return word >> countBits;
    }

    /**
     * @param word      a packed word.
     * @param countBits c.
     * @return its count.
     */
    public static long countOf(final long word, final int countBits)
    {
        return word & ((1L << countBits) - 1);
    }

    /**
     * @param word        the state before the request.
     * @param windowIndex {@code floorDiv(nowNs, W)}.
     * @param nowNs       the time of the request.
     * @param permits     n.
     * @param limit       L.
     * @param windowNs    W.
     * @param countBits   c.
     * @return 0 if the request conforms; otherwise a positive retry-after (ns until the stored window ends,
     * saturated), or {@link Result#NEVER} if {@code n} is outside [1, L] or no later window is representable.
     */
    public static long retryAfterNs(
        final long word,
        final long windowIndex,
        final long nowNs,
        final long permits,
        final long limit,
        final long windowNs,
        final int countBits)
    {
        if (permits < 1 || permits > limit)
        {
            return Result.NEVER;
        }
        final long storedIndex = windowIndexOf(word, countBits);
        if (windowIndex > storedIndex || countOf(word, countBits) + permits <= limit)
        {
            return 0;
        }
        return untilWindowNs(storedIndex + 1, nowNs, windowNs);
    }

    /**
     * @param word        the state before a conforming request.
     * @param windowIndex {@code floorDiv(nowNs, W)}.
     * @param permits     n.
     * @param countBits   c.
     * @return the state after charging {@code n}: a new window holding {@code n}, or the stored (newest)
     * window with its count raised by {@code n}.
     */
    public static long next(final long word, final long windowIndex, final long permits, final int countBits)
    {
        final long storedIndex = windowIndexOf(word, countBits);
        return windowIndex > storedIndex ?
            pack(windowIndex, permits, countBits) : pack(storedIndex, countOf(word, countBits) + permits, countBits);
    }

    /**
     * @param word        the state before the debit.
     * @param windowIndex {@code floorDiv(nowNs, W)}.
     * @param permits     n &ge; 1, any size.
     * @param limit       L.
     * @param countBits   c.
     * @return the state after charging {@code n} to {@code max(windowIndex, stored)}, the count clamped at L.
     */
    static long debited(
        final long word, final long windowIndex, final long permits, final long limit, final int countBits)
    {
        final long storedIndex = windowIndexOf(word, countBits);
        final long seen = windowIndex > storedIndex ? 0 : countOf(word, countBits);
        return pack(Math.max(windowIndex, storedIndex), seen + Math.min(permits, limit - seen), countBits);
    }

    /**
     * @param createdNs      the creation time.
     * @param initialPermits permits available in the creation window, in [0, L).
     * @param limit          L.
     * @param windowNs       W.
     * @param countBits      c.
     * @return the state of a window that has {@code initialPermits} left: count {@code L - initialPermits}.
     */
    static long initialWord(
        final long createdNs, final long initialPermits, final long limit, final long windowNs, final int countBits)
    {
        return pack(windowIndex(createdNs, windowNs), limit - initialPermits, countBits);
    }

    /**
     * Count charged to the request's window as the decision sees it.
     *
     * @param word        the state.
     * @param windowIndex the request's window.
     * @param countBits   c.
     * @return 0 if the stored window is older than the request's, else the stored count.
     */
    public static long countSeen(final long word, final long windowIndex, final int countBits)
    {
        return windowIndex > windowIndexOf(word, countBits) ? 0 : countOf(word, countBits);
    }

    /**
     * @param windowIndex k.
     * @param nowNs       the time, earlier than the start of window k.
     * @param windowNs    W.
     * @return {@code k W - t} saturated at {@link Long#MAX_VALUE}, or {@link Result#NEVER} when
     * {@code k W} exceeds {@link Long#MAX_VALUE}.
     */
    static long untilWindowNs(final long windowIndex, final long nowNs, final long windowNs)
    {
        if (windowIndex > Long.MAX_VALUE / windowNs)
        {
            return Result.NEVER;
        }
        return saturatedDifference(windowIndex * windowNs, nowNs);
    }

    /**
     * @param laterNs   a time.
     * @param earlierNs an earlier time.
     * @return {@code laterNs - earlierNs} (&gt; 0), saturated at {@link Long#MAX_VALUE}.
     */
    static long saturatedDifference(final long laterNs, final long earlierNs)
    {
        final long differenceNs = laterNs - earlierNs;
        return differenceNs < 0 ? Long.MAX_VALUE : differenceNs;
    }
}
