package dev.cellrate.window;

import dev.cellrate.layout.CellArray;
import dev.cellrate.DebitLimiter;
import dev.cellrate.Decision;
import dev.cellrate.Result;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;

/**
 * A thread-safe, lock-free, allocation-free fixed-window limiter: at most {@code limit} permits per aligned
 * window {@code [k W, (k + 1) W)} of the caller's clock.
 * <p>
 * Algorithm: {@code FixedWindow}. Beware its worst case: {@code 2 limit} admissions within less than one
 * window across a boundary; use {@link SlidingLogLimiter} for an exact "at most L in any W".
 * <p>
 * State: one word {@code [window index][count]} in a {@link CellArray} cell (at
 * {@link CellArray#TAT_OFFSET}), layout in {@code FixedWindow}. Bit budget: {@code c = countBits(limit)} low
 * bits hold the count, the other {@code 64 - c} the signed window index; construction demands
 * {@code windowNs >= 2^c} so the index of any 64-bit time fits exactly (no wrap).
 * <p>
 * Concurrency: any thread may call any method. A decision is one acquire read plus, if admitted, one CAS;
 * a rejection writes nothing. A failed CAS re-decides on the witness value, so a roll-over and an
 * increment never overwrite each other (no lost update, no second roll).
 * <p>
 * Peek, debit, initial fill ({@link DebitLimiter}): {@code peek} answers what {@code tryAcquire} would, from
 * one acquire read, and writes nothing. {@code debit} charges the window of the request (the stored window if
 * the clock went back) whether or not the cost fits, its count clamped at {@code limit}: the debt is bounded by
 * the rest of that window and is not carried into the next (see {@code FixedWindow}). The initial fill
 * ({@link #FixedWindowLimiter(long, long, NanoClock, long)}) leaves {@code k} permits in the creation window
 * (0 = empty: nothing until the next window); the other constructors start full.
 * <p>
 * Every decision method returns a {@link Result} code: {@link Result#ADMITTED} (0), a positive retry-after
 * in ns (until the window ends), or {@link Result#NEVER} (-1) for a cost outside [1, limit].
 */
public final class FixedWindowLimiter extends WindowCell implements DebitLimiter
{
    /** Largest {@code limit}: 2<sup>40</sup> - 1. */
    public static final long MAX_LIMIT = (1L << 40) - 1;


    /**
     * @param limit    permits per window, in [1, {@link #MAX_LIMIT}].
     * @param windowNs window length in ns, in [2^countBits(limit), {@link Long#MAX_VALUE}].
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public FixedWindowLimiter(final long limit, final long windowNs)
    {
        this(limit, windowNs, CellArray.allocate(1), 0, SystemNanoClock.INSTANCE);
    }

    /**
     * A limiter with its own cell, the given clock and an initial fill: {@code initialPermits} left in the window
     * of the creation time (0 = empty until the next window; at or above {@code limit} = full, the default).
     *
     * @param limit          permits per window, in [1, {@link #MAX_LIMIT}].
     * @param windowNs       window length in ns, in [2^countBits(limit), {@link Long#MAX_VALUE}].
     * @param clock          the clock of the clock forms, read once here for the creation time.
     * @param initialPermits permits available at creation, &ge; 0.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public FixedWindowLimiter(final long limit, final long windowNs, final NanoClock clock, final long initialPermits)
    {
        this(limit, windowNs, CellArray.allocate(1), 0, clock);
        if (partlyFilled(initialPermits))
        {
            buffer.putLongRelease(wordOffset,
                FixedWindow.initialWord(clock.nanoTime(), initialPermits, limit, windowNs, countBits));
        }
    }

    /**
     * @param limit     permits per window, in [1, {@link #MAX_LIMIT}].
     * @param windowNs  window length in ns, in [2^countBits(limit), {@link Long#MAX_VALUE}].
     * @param cells     the array holding the cell; it must start fresh or hold this limiter's state.
     * @param cellIndex the cell, in [0, cells.cellCount()).
     * @param clock     the clock of the clock forms.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    FixedWindowLimiter(
        final long limit, final long windowNs, final CellArray cells, final int cellIndex, final NanoClock clock)
    {
        super(limit, MAX_LIMIT, 1, windowNs, cells, cellIndex, clock);
    }

    /**
     * @param permits the cost; outside [1, limit] it is {@link Result#NEVER}.
     * @param nowNs   the time of the request, ns.
     * @return {@link Result#ADMITTED}, a positive retry-after in ns, or {@link Result#NEVER}.
     */
    public long tryAcquire(final long permits, final long nowNs)
    {
        final long windowIndex = FixedWindow.windowIndex(nowNs, windowNs);
        long word = buffer.getLongAcquire(wordOffset);
        while (true)
        {
            final long code = FixedWindow.retryAfterNs(word, windowIndex, nowNs, permits, limit, windowNs, countBits);
            if (code != 0)
            {
                return code;
            }
            final long next = FixedWindow.next(word, windowIndex, permits, countBits);
            final long witness = buffer.compareAndExchangeLong(wordOffset, word, next);
            if (witness == word)
            {
                return Result.ADMITTED;
            }
            word = witness;
        }
    }

    /**
     * As {@link #tryAcquire(long, long)}, and fill {@code decision}: remaining = permits left in the
     * window, reset-after = ns until the window ends (0 if it is empty), limit = {@code limit}.
     *
     * @param permits  the cost.
     * @param nowNs    the time of the request, ns.
     * @param decision a caller-owned holder, filled in place.
     * @return {@link Result#ADMITTED}, a positive retry-after in ns, or {@link Result#NEVER}.
     */
    public long tryAcquire(final long permits, final long nowNs, final Decision decision)
    {
        final long windowIndex = FixedWindow.windowIndex(nowNs, windowNs);
        long word = buffer.getLongAcquire(wordOffset);
        long code;
        while (true)
        {
            code = FixedWindow.retryAfterNs(word, windowIndex, nowNs, permits, limit, windowNs, countBits);
            if (code != 0)
            {
                break;
            }
            final long next = FixedWindow.next(word, windowIndex, permits, countBits);
            final long witness = buffer.compareAndExchangeLong(wordOffset, word, next);
            if (witness == word)
            {
                word = next;
                break;
            }
            word = witness;
        }
        final long count = FixedWindow.countSeen(word, windowIndex, countBits);
        final long endNs = FixedWindow.untilWindowNs(
            Math.max(windowIndex, FixedWindow.windowIndexOf(word, countBits)) + 1, nowNs, windowNs);
        decision.setOutcome(code, limit - count, 0 == count ? 0 : (endNs < 0 ? Long.MAX_VALUE : endNs), limit);
        return code;
    }

    /**
     * @param permits the cost; outside [1, limit] it is {@link Result#NEVER}.
     * @param nowNs   the time, ns.
     * @return what {@link #tryAcquire(long, long)} would answer, without charging.
     */
    public long peek(final long permits, final long nowNs)
    {
        return FixedWindow.retryAfterNs(buffer.getLongAcquire(wordOffset), FixedWindow.windowIndex(nowNs, windowNs),
            nowNs, permits, limit, windowNs, countBits);
    }

    /**
     * Charge {@code permits} after the fact to the request's window (the stored one if the clock went back),
     * whether or not they fit; the window's count is clamped at {@code limit} (no debt into the next window).
     *
     * @param permits the cost learned after the fact, &ge; 1 (any size); below 1 it is {@link Result#NEVER}.
     * @param nowNs   the time, ns.
     * @return {@link Result#ADMITTED} if one permit would still be admitted after the charge, else the ns until
     * the window ends ({@link Result#NEVER} if no later window is representable, as for {@code tryAcquire}).
     */
    public long debit(final long permits, final long nowNs)
    {
        if (permits < 1)
        {
            return Result.NEVER;
        }
        final long windowIndex = FixedWindow.windowIndex(nowNs, windowNs);
        return FixedWindow.retryAfterNs(debitWord(windowIndex, permits), windowIndex, nowNs, 1, limit, windowNs,
            countBits);
    }

    /**
     * Give back permits charged to the current window (a refund): its count goes down by {@code permits}, never
     * below 0. A refund at a time whose window is not the stored one (the window has passed, or the clock went
     * back) changes nothing: a past window's permits are gone with it.
     *
     * @param permits the permits to give back, &ge; 1; below 1 nothing changes.
     * @param nowNs   the time, ns.
     * @return the permits given back, in [0, permits].
     */
    public long refund(final long permits, final long nowNs)
    {
        if (permits < 1)
        {
            return 0;
        }
        final long windowIndex = FixedWindow.windowIndex(nowNs, windowNs);
        long word = buffer.getLongAcquire(wordOffset);
        while (true)
        {
            final long count = FixedWindow.countOf(word, countBits);
            if (FixedWindow.windowIndexOf(word, countBits) != windowIndex || 0 == count)
            {
                return 0;
            }
            final long given = Math.min(count, permits);
            final long witness = buffer.compareAndExchangeLong(
                wordOffset, word, FixedWindow.pack(windowIndex, count - given, countBits));
            if (witness == word)
            {
                return given;
            }
            word = witness;
        }
    }

    /**
     * @return the window the state is in (a diagnostic acquire read; {@code floorDiv(t, windowNs)} of the newest
     * request charged, or the earliest window if none).
     */
    public long windowIndex()
    {
        return FixedWindow.windowIndexOf(buffer.getLongAcquire(wordOffset), countBits);
    }

    /**
     * @return permits charged to {@link #windowIndex()} (a diagnostic acquire read; the pair is consistent while
     * no decision runs).
     */
    public long count()
    {
        return FixedWindow.countOf(buffer.getLongAcquire(wordOffset), countBits);
    }
}
