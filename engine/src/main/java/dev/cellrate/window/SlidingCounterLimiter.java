package dev.cellrate.window;

import dev.cellrate.DebitLimiter;
import dev.cellrate.layout.CellArray;
import dev.cellrate.Decision;
import dev.cellrate.Result;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;

/**
 * A thread-safe, lock-free, allocation-free sliding-window-counter limiter: the weighted two-window estimate of
 * {@code SlidingCounter}, at most {@code limit} per estimated window of {@code windowNs}.
 * <p>
 * It is an approximation: it assumes the previous window was uniform, so an adversary who packs the previous
 * window's requests at its end gets up to about {@code 2 limit - 1} within one window (19 for a limit of
 * 10; see {@code docs/windows-and-markers.md}). Use {@link SlidingLogLimiter} when "at most L in any
 * W" must be exact.
 * <p>
 * State: one word {@code [window index][prev][curr]} in a {@link CellArray} cell (at
 * {@link CellArray#TAT_OFFSET}), layout in {@code SlidingCounter}. Bit budget: {@code c = countBits(limit)}
 * bits per count, {@code 64 - 2c} for the signed index; construction demands {@code windowNs >= 2^(2c)} (no
 * index wrap) and {@code limit * windowNs <= Long.MAX_VALUE} (no product overflow), hence
 * {@code limit <= }{@link #MAX_LIMIT}.
 * <p>
 * Concurrency: any thread may call any method. A decision is one acquire read plus, if admitted, one CAS
 * from the word it decided on; a rejection writes nothing. A roll-over is part of the admitting CAS, so two
 * racing requests around a boundary roll once and never lose an increment.
 * <p>
 * Peek, debit, initial fill ({@link DebitLimiter}): {@code peek} is the decision on one acquire read, writing
 * nothing; {@code debit} charges the request's window whether or not the cost fits, its count clamped at
 * {@code limit} (the debt then decays through the next window's estimate; see {@code SlidingCounter}); the
 * initial fill ({@link #SlidingCounterLimiter(long, long, NanoClock, long)}) counts {@code limit - k} in the
 * creation window; the other constructors start full.
 * <p>
 * Every decision method returns a {@link Result} code: {@link Result#ADMITTED} (0), a positive retry-after in
 * ns (exact, if nothing else is admitted meanwhile), or {@link Result#NEVER} (-1) for a cost outside
 * [1, limit] or a retry time beyond {@link Long#MAX_VALUE}.
 */
public final class SlidingCounterLimiter extends WindowCell implements DebitLimiter
{
    /** Largest {@code limit}: 2<sup>20</sup> - 1 (so that {@code 2^(2c) * limit} still fits a long). */
    public static final long MAX_LIMIT = (1L << 20) - 1;


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
    SlidingCounterLimiter(
        final long limit, final long windowNs, final CellArray cells, final int cellIndex, final NanoClock clock)
    {
        super(limit, MAX_LIMIT, 2, windowNs, cells, cellIndex, clock);
    }

    /**
     * A limiter with its own cell, the given clock and an initial fill: {@code initialPermits} left in the window
     * of the creation time (the window counts {@code limit - initialPermits}, which also weighs on the next
     * window as any count does; 0 = empty; at or above {@code limit} = full, the default).
     *
     * @param limit          permits per window, in [1, {@link #MAX_LIMIT}].
     * @param windowNs       window length in ns, in [2^(2 countBits(limit)), Long.MAX_VALUE / limit].
     * @param clock          the clock of the clock forms, read once here for the creation time.
     * @param initialPermits permits available at creation, &ge; 0.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public SlidingCounterLimiter(final long limit, final long windowNs, final NanoClock clock, final long initialPermits)
    {
        this(limit, windowNs, CellArray.allocate(1), 0, clock);
        if (partlyFilled(initialPermits))
        {
            buffer.putLongRelease(wordOffset, SlidingCounter.pack(
                Math.floorDiv(clock.nanoTime(), windowNs), 0, limit - initialPermits, countBits));
        }
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
            final long code = decide(rolled, windowIndex, offsetNs, nowNs, permits);
            if (code != 0)
            {
                return code;
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
            code = permits < 1 || permits > limit ? Result.NEVER : decide(rolled, windowIndex, offsetNs, nowNs, permits);
            if (code != 0)
            {
                break;
            }
            final long witness = buffer.compareAndExchangeLong(wordOffset, word, rolled + permits);
            if (witness == word)
            {
                rolled += permits;
                break;
            }
            word = witness;
        }
        final long rolledIndex = SlidingCounter.windowIndexOf(rolled, countBits);
        final long seenOffsetNs = rolledIndex == windowIndex ? offsetNs : 0;
        final long untilEstimateIsZeroNs = SlidingCounter.currOf(rolled, countBits) > 0 ?
            SlidingCounter.saturatedSum(windowNs - seenOffsetNs, windowNs) :
            (SlidingCounter.prevOf(rolled, countBits) > 0 ? windowNs - seenOffsetNs : 0);
        // An empty estimate (0) is in the request's window (a later stored window holds a count), so 0 + 0.
        final long resetAfterNs =
            SlidingCounter.saturatedSum(toWindowNs(rolledIndex, windowIndex, nowNs), untilEstimateIsZeroNs);
        decision.setOutcome(
            code, SlidingCounter.remaining(rolled, seenOffsetNs, limit, windowNs, countBits), resetAfterNs, limit);
        return code;
    }

    /**
     * @param permits the cost; outside [1, limit] it is {@link Result#NEVER}.
     * @param nowNs   the time, ns.
     * @return what {@link #tryAcquire(long, long)} would answer, without charging.
     */
    public long peek(final long permits, final long nowNs)
    {
        if (permits < 1 || permits > limit)
        {
            return Result.NEVER;
        }
        final long windowIndex = Math.floorDiv(nowNs, windowNs);
        return decide(SlidingCounter.rolled(buffer.getLongAcquire(wordOffset), windowIndex, countBits), windowIndex,
            Math.floorMod(nowNs, windowNs), nowNs, permits);
    }

    /**
     * Charge {@code permits} after the fact to the request's window (the stored one if the clock went back),
     * whether or not they fit; the window's count is clamped at {@code limit}, and it weighs on the next window
     * as every count does (see {@code SlidingCounter}: a debit delays admissions by less than two windows).
     *
     * @param permits the cost learned after the fact, &ge; 1 (any size); below 1 it is {@link Result#NEVER}.
     * @param nowNs   the time, ns.
     * @return {@link Result#ADMITTED} if one permit would still be admitted after the charge, else the ns until
     * it would ({@link Result#NEVER} if that time is beyond the long range, as for {@code tryAcquire}).
     */
    public long debit(final long permits, final long nowNs)
    {
        if (permits < 1)
        {
            return Result.NEVER;
        }
        final long windowIndex = Math.floorDiv(nowNs, windowNs);
        return decide(debitWord(windowIndex, permits), windowIndex, Math.floorMod(nowNs, windowNs), nowNs, 1);
    }

    /**
     * @return the window the state is in (a diagnostic acquire read).
     */
    public long windowIndex()
    {
        return SlidingCounter.windowIndexOf(buffer.getLongAcquire(wordOffset), countBits);
    }

    /**
     * @return permits charged to the window before {@link #windowIndex()} (a diagnostic acquire read).
     */
    public long previousCount()
    {
        return SlidingCounter.prevOf(buffer.getLongAcquire(wordOffset), countBits);
    }

    /**
     * @return permits charged to {@link #windowIndex()} (a diagnostic acquire read).
     */
    public long currentCount()
    {
        return SlidingCounter.currOf(buffer.getLongAcquire(wordOffset), countBits);
    }


    /**
     * The decision for {@code permits} in [1, limit] on the state rolled to the request's window.
     *
     * @return 0 if it conforms, else the retry-after ({@link #retryAfterNs}).
     */
    private long decide(
        final long rolled, final long windowIndex, final long offsetNs, final long nowNs, final long permits)
    {
        final long rolledIndex = SlidingCounter.windowIndexOf(rolled, countBits);
        final long seenOffsetNs = rolledIndex == windowIndex ? offsetNs : 0;
        if (SlidingCounter.conforms(rolled, seenOffsetNs, permits, limit, windowNs, countBits))
        {
            return 0;
        }
        return retryAfterNs(rolledIndex, windowIndex, nowNs,
            SlidingCounter.waitNs(rolled, seenOffsetNs, permits, limit, windowNs, countBits));
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
}
