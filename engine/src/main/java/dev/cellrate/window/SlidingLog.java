package dev.cellrate.window;

import dev.cellrate.Result;

/**
 * The sliding-window-log decision as pure functions over {@code long}s: no memory, no atomics, no objects.
 * <p>
 * Algorithm: keep the times of the last {@code L} admitted permits, oldest first. A request for {@code n}
 * permits at {@code t} is admitted iff the {@code n} oldest of them have left the window, i.e. the
 * {@code n}-th oldest time {@code s} satisfies {@code s <= t - W}; then {@code n} copies of {@code t} replace
 * those {@code n}. A slot never written (fewer than {@code L} admissions so far) counts as expired. This is the
 * exact "at most L in any W": sorted admission times satisfy {@code a[i + L] - a[i] >= W}, so any span of
 * {@code W} consecutive ns holds at most {@code L}. State is O(L) per limiter; the decision is O(1) and the
 * charge O(n).
 * <p>
 * Time going backwards: the limiter decides at the monotonised time {@code max(t, newest admission)}, so the
 * log stays sorted and the invariant holds on it; a late request can only find fewer expired slots.
 * <p>
 * Arithmetic: {@code s <= t - W} is evaluated on the monotonised {@code t >= s} as {@code t - s >= W} with the
 * difference read as unsigned (when it overflows it exceeds any {@code W}); no clamping of stored times is needed.
 */
final class SlidingLog
{
    private SlidingLog()
    {
    }

    /**
     * @param timeNs   an admission time in the log.
     * @param nowNs    the monotonised decision time, never before {@code timeNs} (it is at least the newest
     *                 admission; a torn optimistic read may break this, but its answer is discarded).
     * @param windowNs W &ge; 1.
     * @return true iff {@code timeNs <= nowNs - W} exactly: the age {@code nowNs - timeNs}, read as unsigned
     * (an age past {@link Long#MAX_VALUE} wraps into the sign bit), is at least W.
     */
    public static boolean expired(final long timeNs, final long nowNs, final long windowNs)
    {
        return Long.compareUnsigned(nowNs - timeNs, windowNs) >= 0;
    }

    /**
     * @param timeNs   the {@code n}-th oldest admission time, not yet expired at the decision.
     * @param nowNs    the caller's time of the request.
     * @param windowNs W.
     * @return {@code timeNs + W - nowNs} (&gt; 0), saturated at {@link Long#MAX_VALUE}, or
     * {@link Result#NEVER} if {@code timeNs + W} exceeds {@link Long#MAX_VALUE}.
     */
    public static long retryAfterNs(final long timeNs, final long nowNs, final long windowNs)
    {
        if (timeNs > Long.MAX_VALUE - windowNs)
        {
            return Result.NEVER;
        }
        return FixedWindow.saturatedDifference(timeNs + windowNs, nowNs);
    }

    /**
     * @param nowNs    the caller's time.
     * @param newestNs the newest admission time.
     * @return the decision time {@code max(nowNs, newestNs)}.
     */
    public static long monotonised(final long nowNs, final long newestNs)
    {
        return Math.max(nowNs, newestNs);
    }

    /**
     * @param admissions admissions so far (the log's sequence), &ge; 0.
     * @param position   0 for the oldest of the last {@code L} slots, {@code L - 1} for the newest.
     * @param limit      L.
     * @return the ring index of that slot: {@code (admissions + position) mod L}.
     */
    public static int slotIndex(final long admissions, final long position, final long limit)
    {
        return (int)((admissions + position) % limit);
    }
}
