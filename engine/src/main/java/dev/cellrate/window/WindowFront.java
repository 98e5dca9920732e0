package dev.cellrate.window;

import dev.cellrate.check.Bounds;
import org.agrona.concurrent.NanoClock;

/**
 * What every window front shares (layer: front support, package-private): permits per window, the window
 * length, the clock, their checks and their accessors. Final fields and final methods only, so a front's
 * decision path reads its fields as if they were its own (no dispatch).
 * <p>
 * The window's lower bound: a front that packs {@code k} counts of {@code c = countBits(limit)} bits beside a
 * signed window index in one word ({@link WindowCell}) demands {@code windowNs >= 2^(k c)}, so the index of every
 * 64-bit time fits exactly; for two counts (the sliding counter's {@code prev (W - e)} products) also
 * {@code limit * windowNs <= Long.MAX_VALUE}. The sliding log packs no count ({@code k = 0}): any
 * {@code windowNs >= 1}.
 */
abstract class WindowFront
{
    final long limit;
    final long windowNs;
    final NanoClock clock;

    /**
     * @param limit         permits per window, in [1, maxLimit].
     * @param maxLimit      the front's largest limit.
     * @param countsPerWord counts packed beside the window index: 0 (log), 1 (fixed window) or 2 (sliding counter).
     * @param windowNs      the window length, ns, in the range above.
     * @param clock         the clock of the clock forms.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    WindowFront(
        final long limit, final long maxLimit, final int countsPerWord, final long windowNs, final NanoClock clock)
    {
        Bounds.requireNonNull("clock", clock);
        Bounds.requireRange("limit", limit, 1, maxLimit);
        Bounds.requireRange("windowNs", windowNs, 1L << (countsPerWord * FixedWindow.countBits(limit)),
            countsPerWord < 2 ? Long.MAX_VALUE : Long.MAX_VALUE / limit);
        this.limit = limit;
        this.windowNs = windowNs;
        this.clock = clock;
    }

    /**
     * @return permits per window (for the sliding log: in any window).
     */
    public final long limit()
    {
        return limit;
    }

    /**
     * @return the window length, ns.
     */
    public final long windowNs()
    {
        return windowNs;
    }

    /**
     * @return the clock the clock forms read.
     */
    public final NanoClock clock()
    {
        return clock;
    }
}
