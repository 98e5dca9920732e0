package dev.cellrate.window;

import dev.cellrate.Limiter;
import dev.cellrate.Bounds;
import dev.cellrate.CellArray;
import dev.cellrate.Decision;
import dev.cellrate.Result;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;

/**
 * A thread-safe, lock-free, allocation-free sliding-window-counter limiter: the weighted two-window estimate of
 * {@link SlidingCounter}, at most {@code limit} per estimated window of {@code windowNs}.
 * <p>
 * It is an approximation: it assumes the previous window was uniform, so an adversary who packs the previous
 * window's requests at its end gets up to about {@code 2 limit - 1} within one window (19 for a limit of
 * 10; see {@code docs/windows-and-markers.md}). Use {@link SlidingLogLimiter} when "at most L in any
 * W" must be exact.
 * <p>
 * State: one word {@code [window index][prev][curr]} in a {@link CellArray} cell (at
 * {@link CellArray#TAT_OFFSET}), layout in {@link SlidingCounter}. Bit budget: {@code c = countBits(limit)}
 * bits per count, {@code 64 - 2c} for the signed index; construction demands {@code windowNs >= 2^(2c)} (no
 * index wrap) and {@code limit * windowNs <= Long.MAX_VALUE} (no product overflow), hence
 * {@code limit <= }{@link #MAX_LIMIT}.
 * <p>
 * Concurrency: any thread may call any method. A decision is one acquire read plus, if admitted, one CAS
 * from the word it decided on; a rejection writes nothing. A roll-over is part of the admitting CAS, so two
 * racing requests around a boundary roll once and never lose an increment.
 * <p>
 * Every decision method returns a {@link Result} code: {@link Result#ADMITTED} (0), a positive retry-after in
 * ns (exact, if nothing else is admitted meanwhile), or {@link Result#NEVER} (-1) for a cost outside
 * [1, limit] or a retry time beyond {@link Long#MAX_VALUE}.
 */
public final class SlidingCounterLimiter implements Limiter
{
    /** Largest {@code limit}: 2<sup>20</sup> - 1 (so that {@code 2^(2c) * limit} still fits a long). */
    public static final long MAX_LIMIT = (1L << 20) - 1;

    private final AtomicBuffer buffer;
    private final int wordOffset;
    private final long limit;
    private final long windowNs;
    private final int countBits;
    private final NanoClock clock;

    /**
     * @param limit    permits per window, in [1, {@link #MAX_LIMIT}].
     * @param windowNs window length in ns, in [2^(2 countBits(limit)), Long.MAX_VALUE / limit].
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public SlidingCounterLimiter(final long limit, final long windowNs)
    {
        this(limit, windowNs, CellArray.allocate(1), 0, SystemNanoClock.INSTANCE);
    }

    /**
     * @param limit     permits per window, in [1, {@link #MAX_LIMIT}].
     * @param windowNs  window length in ns, in [2^(2 countBits(limit)), Long.MAX_VALUE / limit].
     * @param cells     the array holding the cell; it must start fresh or hold this limiter's state.
     * @param cellIndex the cell, in [0, cells.cellCount()).
     * @param clock     the clock of the clock forms.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public SlidingCounterLimiter(
        final long limit, final long windowNs, final CellArray cells, final int cellIndex, final NanoClock clock)
    {
        if (null == cells || null == clock)
        {
            throw new IllegalArgumentException("cells and clock must not be null");
        }
        Bounds.requireRange("limit", limit, 1, MAX_LIMIT);
        this.countBits = FixedWindow.countBits(limit);
        Bounds.requireRange("windowNs", windowNs, 1L << (2 * countBits), Long.MAX_VALUE / limit);
        Bounds.requireRange("cellIndex", cellIndex, 0, cells.cellCount() - 1);
        this.limit = limit;
        this.windowNs = windowNs;
        this.clock = clock;
        this.buffer = cells.buffer();
        this.wordOffset = CellArray.tatOffset(cellIndex);
    }

    /**
     * @param permits the cost; outside [1, limit] it is {@link Result#NEVER}.
     * @param nowNs   the time of the request, ns.
     * @return {@link Result#ADMITTED}, a positive retry-after in ns, or {@link Result#NEVER}.
     */
    public long tryAcquire(final long permits, final long nowNs)
    {
        if (permits < 1 || permits > limit)
        {
            return Result.NEVER;
        }
        final long windowIndex = Math.floorDiv(nowNs, windowNs);
        final long offsetNs = Math.floorMod(nowNs, windowNs);
        long word = buffer.getLongAcquire(wordOffset);
        while (true)
        {
            final long rolled = SlidingCounter.rolled(word, windowIndex, countBits);
            final long rolledIndex = SlidingCounter.windowIndexOf(rolled, countBits);
            final long seenOffsetNs = rolledIndex == windowIndex ? offsetNs : 0;
            if (!SlidingCounter.conforms(rolled, seenOffsetNs, permits, limit, windowNs, countBits))
            {
                final long waitNs = SlidingCounter.waitNs(rolled, seenOffsetNs, permits, limit, windowNs, countBits);
                return retryAfterNs(rolledIndex, windowIndex, nowNs, waitNs);
            }
            final long witness = buffer.compareAndExchangeLong(wordOffset, word, rolled + permits);
            if (witness == word)
            {
                return Result.ADMITTED;
            }
            word = witness;
        }
    }

    /**
     * As {@link #tryAcquire(long, long)}, and fill {@code decision}: remaining = single permits the estimate
     * still allows at this instant, reset-after = ns until the estimate is 0 if nothing else arrives,
     * limit = {@code limit}.
     *
     * @param permits  the cost.
     * @param nowNs    the time of the request, ns.
     * @param decision a caller-owned holder, filled in place.
     * @return {@link Result#ADMITTED}, a positive retry-after in ns, or {@link Result#NEVER}.
     */
    public long tryAcquire(final long permits, final long nowNs, final Decision decision)
    {
        final long windowIndex = Math.floorDiv(nowNs, windowNs);
        final long offsetNs = Math.floorMod(nowNs, windowNs);
        long word = buffer.getLongAcquire(wordOffset);
        long code;
        long rolled;
        while (true)
        {
            rolled = SlidingCounter.rolled(word, windowIndex, countBits);
            final long seenOffsetNs =
                SlidingCounter.windowIndexOf(rolled, countBits) == windowIndex ? offsetNs : 0;
            if (permits < 1 || permits > limit)
            {
                code = Result.NEVER;
                break;
            }
            if (!SlidingCounter.conforms(rolled, seenOffsetNs, permits, limit, windowNs, countBits))
            {
                final long waitNs = SlidingCounter.waitNs(rolled, seenOffsetNs, permits, limit, windowNs, countBits);
                code = retryAfterNs(SlidingCounter.windowIndexOf(rolled, countBits), windowIndex, nowNs, waitNs);
                break;
            }
            final long witness = buffer.compareAndExchangeLong(wordOffset, word, rolled + permits);
            if (witness == word)
            {
                rolled += permits;
                code = Result.ADMITTED;
                break;
            }
            word = witness;
        }
        final long rolledIndex = SlidingCounter.windowIndexOf(rolled, countBits);
        final long seenOffsetNs = rolledIndex == windowIndex ? offsetNs : 0;
        final long untilEstimateIsZeroNs = SlidingCounter.currOf(rolled, countBits) > 0 ?
            SlidingCounter.saturatedSum(windowNs - seenOffsetNs, windowNs) :
            (SlidingCounter.prevOf(rolled, countBits) > 0 ? windowNs - seenOffsetNs : 0);
        final long resetAfterNs = 0 == untilEstimateIsZeroNs ? 0 :
            SlidingCounter.saturatedSum(toWindowNs(rolledIndex, windowIndex, nowNs), untilEstimateIsZeroNs);
        decision.setOutcome(
            code, SlidingCounter.remaining(rolled, seenOffsetNs, limit, windowNs, countBits), resetAfterNs, limit);
        return code;
    }

    /**
     * @return the raw state word (acquire read); decode with {@link SlidingCounter}.
     */
    public long word()
    {
        return buffer.getLongAcquire(wordOffset);
    }

    /**
     * @return permits per window.
     */
    public long limit()
    {
        return limit;
    }

    /**
     * @return the window length, ns.
     */
    public long windowNs()
    {
        return windowNs;
    }

    /**
     * @return c, the bit budget of each count.
     */
    public int countBits()
    {
        return countBits;
    }

    /**
     * @return ns from {@code nowNs} to the retry time {@code base + waitNs} (base: the request's time, or the
     * start of the later window it was evaluated in), saturated; {@link Result#NEVER} if that time is beyond
     * {@link Long#MAX_VALUE}.
     */
    private long retryAfterNs(final long rolledIndex, final long windowIndex, final long nowNs, final long waitNs)
    {
        final long baseNs = rolledIndex == windowIndex ? nowNs : rolledIndex * windowNs;
        final long retryAtNs = baseNs + waitNs;
        if (retryAtNs < baseNs || Long.MAX_VALUE == waitNs)
        {
            return Result.NEVER;
        }
        return FixedWindow.saturatedDifference(retryAtNs, nowNs);
    }

    /**
     * @return 0 if the request is in the rolled window, else ns from {@code nowNs} to that (later) window's
     * start, saturated; the start is representable since it is after the request's window.
     */
    private long toWindowNs(final long rolledIndex, final long windowIndex, final long nowNs)
    {
        return rolledIndex == windowIndex ? 0 : FixedWindow.saturatedDifference(rolledIndex * windowNs, nowNs);
    }

    /**
     * @return the clock the clock forms read.
     */
    public NanoClock clock()
    {
        return clock;
    }
}
