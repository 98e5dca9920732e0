package dev.cellrate.window;

/**
 * The sliding-window-counter decision (Cloudflare's two-window estimate [1]) as pure functions over
 * {@code long}s, in integer cross-multiplication: no division on the decision path, no floating point.
 * <p>
 * Algorithm: windows are aligned, {@code k = floorDiv(t, W)}, {@code e = t - k W}. With {@code p} permits
 * charged to window {@code k - 1} and {@code c} to window {@code k}, the estimate of the last {@code W} ns is
 * {@code p (W - e) / W + c}, which assumes window {@code k - 1} was uniform. A request for {@code n} is
 * admitted iff {@code p (W - e) / W + c + n <= L}, evaluated exactly as
 * {@code p (W - e) <= (L - c - n) W}; then {@code c += n}.
 * <p>
 * State: one word {@code [window index : 64 - 2c bits, signed][prev : c bits][curr : c bits]},
 * {@code c = countBits(L)}:
 * <pre>
 *   63                          2c 2c-1          c c-1            0
 *  +------------------------------+----------------+---------------+
 *  |  window index k (signed)     |  prev in [0,L] | curr in [0,L] |
 *  +------------------------------+----------------+---------------+
 * </pre>
 * The limiter demands {@code W >= 2^(2c)} (every index of a 64-bit time fits exactly, no wrap) and
 * {@code L W <= Long.MAX_VALUE} (both products above fit). {@link Long#MIN_VALUE} decodes as empty.
 * <p>
 * Roll-over: a request in window {@code k + 1} sees {@code prev = curr, curr = 0}; in {@code k + 2} or later
 * it sees both 0. Time going backwards: a request older than the stored window is evaluated in the stored
 * window at {@code e = 0} (full weight on {@code prev}), which is the most conservative point of that window,
 * and charged to it.
 * <p>
 * Debit ({@link dev.cellrate.DebitLimiter}): {@link #debited} rolls the state like a decision and raises
 * {@code curr} by the cost, clamped at {@code L}. The debt is carried by the estimate itself: a window charged
 * to {@code L} weighs {@code L (W - e) / W} on the next window, so a request for {@code n} waits until
 * {@code e >= n W / L} of the next window, and nothing of the debt is left two windows later. That is the bound:
 * a debit delays admissions by less than two windows, and a count above {@code L} is not representable (c bits),
 * so a larger cost is clamped.
 * <p>
 * Worst case (the uniformity assumption of [1], attacked; {@code docs/windows-and-markers.md}): {@code L} requests in the last ns of window k, then a burst at 90% of
 * window k + 1 sees an estimate of {@code L/10} and admits {@code L - L/10 - ...}: with L = 10, W = 1 s, 10 at
 * 1.999 s and 9 more at 2.9 s, 19 admissions within 0.901 s.
 * <p>
 * [1] J. Desgats, "How we built rate limiting capable of scaling to millions of domains", Cloudflare, 2017.
 */
final class SlidingCounter
{
    private SlidingCounter()
    {
    }

    /**
     * @param windowIndex k.
     * @param prev        permits charged to window k - 1.
     * @param curr        permits charged to window k.
     * @param countBits   c.
     * @return the packed word.
     */
    public static long pack(final long windowIndex, final long prev, final long curr, final int countBits)
    {
        return (windowIndex << (2 * countBits)) | (prev << countBits) | curr;
    }

    /**
     * @param word      a packed word.
     * @param countBits c.
     * @return its window index.
     */
    public static long windowIndexOf(final long word, final int countBits)
    {
        return word >> (2 * countBits);
    }

    /**
     * @param word      a packed word.
     * @param countBits c.
     * @return its previous window's count.
     */
    public static long prevOf(final long word, final int countBits)
    {
        return (word >>> countBits) & ((1L << countBits) - 1);
    }

    /**
     * @param word      a packed word.
     * @param countBits c.
     * @return its current window's count.
     */
    public static long currOf(final long word, final int countBits)
    {
        return word & ((1L << countBits) - 1);
    }

    /**
     * The state as a request in window {@code windowIndex} sees it, re-packed in the window it is charged
     * to: {@code max(windowIndex, stored)}.
     *
     * @param word        the stored state.
     * @param windowIndex the request's window.
     * @param countBits   c.
     * @return the rolled word.
     */
    public static long rolled(final long word, final long windowIndex, final int countBits)
    {
        final long storedIndex = windowIndexOf(word, countBits);
        if (windowIndex <= storedIndex)
        {
            return word;
        }
        final long prev = windowIndex == storedIndex + 1 ? currOf(word, countBits) : 0;
        return pack(windowIndex, prev, 0, countBits);
    }

    /**
     * @param rolled   the state rolled to the request's window ({@link #rolled}).
     * @param offsetNs e: {@code t - k W} if the request is in the rolled word's window, 0 if it is earlier.
     * @param permits  n in [1, L].
     * @param limit    L.
     * @param windowNs W.
     * @param countBits c.
     * @return true iff {@code prev (W - e) <= (L - curr - n) W}.
     */
    public static boolean conforms(
        final long rolled, final long offsetNs, final long permits, final long limit, final long windowNs,
        final int countBits)
    {
        final long room = limit - currOf(rolled, countBits) - permits;
        return room >= 0 && prevOf(rolled, countBits) * (windowNs - offsetNs) <= room * windowNs;
    }

    /**
     * Exact ns from the decision's point until the same request first conforms if nothing else is admitted:
     * later in this window as {@code prev}'s weight decays, else in the next window (where the current count
     * becomes {@code prev}), else at the start of the window after (empty).
     *
     * @param rolled    the state rolled to the request's window, on which it was rejected.
     * @param offsetNs  e, as for {@link #conforms}.
     * @param permits   n in [1, L].
     * @param limit     L.
     * @param windowNs  W.
     * @param countBits c.
     * @return the wait from offset {@code e} of the rolled window, &gt; 0, saturated at {@link Long#MAX_VALUE}.
     */
    public static long waitNs(
        final long rolled, final long offsetNs, final long permits, final long limit, final long windowNs,
        final int countBits)
    {
        final long prev = prevOf(rolled, countBits);
        final long curr = currOf(rolled, countBits);
        final long room = limit - curr - permits;
        if (room > 0)
        {
            // Rejected with room left, so prev (W - e) > room W > 0: prev > 0. The point where prev's weight
            // fits, W - floor(room W / prev), is inside this window (room W / prev >= W / L > 1). At room = 0 it
            // would be W, the next window's start, which the next-window rule below answers too.
            return windowNs - (room * windowNs) / prev - offsetNs;
        }
        final long toNextNs = windowNs - offsetNs;
        final long nextRoom = limit - permits;
        if (0 == curr)
        {
            return toNextNs;
        }
        // In the next window curr weighs as prev; W when n = L (nextRoom = 0): the start of the window after.
        return saturatedSum(toNextNs, Math.max(0, windowNs - (nextRoom * windowNs) / curr));
    }

    /**
     * @param rolled   the state after the decision, in the window it was charged to.
     * @param offsetNs e, as for {@link #conforms}.
     * @param limit    L.
     * @param windowNs W.
     * @param countBits c.
     * @return single permits that would still be admitted at the same point:
     * {@code floor((L W - prev (W - e) - curr W) / W)}, at least 0 (one division; only when asked).
     */
    public static long remaining(
        final long rolled, final long offsetNs, final long limit, final long windowNs, final int countBits)
    {
        final long room = limit - currOf(rolled, countBits);
        final long weightedPrev = prevOf(rolled, countBits) * (windowNs - offsetNs);
        return Math.max(0, room * windowNs - weightedPrev) / windowNs;
    }

    /**
     * @param rolled   the state rolled to the request's window ({@link #rolled}).
     * @param permits  n &ge; 1, any size.
     * @param limit    L.
     * @param countBits c.
     * @return the rolled state with {@code curr} raised by {@code n}, clamped at L.
     */
    static long debited(final long rolled, final long permits, final long limit, final int countBits)
    {
        final long room = limit - currOf(rolled, countBits);
        return rolled + Math.min(permits, room);
    }

    static long saturatedSum(final long aNs, final long bNs)
    {
        final long sumNs = aNs + bNs;
        return sumNs < 0 ? Long.MAX_VALUE : sumNs;
    }
}
