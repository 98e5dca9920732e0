package dev.cellrate;

import dev.cellrate.layout.CellArray;
import dev.cellrate.gcra.AtomicGcra;
import dev.cellrate.gcra.Gcra;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;

/**
 * A thread-safe, lock-free, allocation-free GCRA limiter over one off-heap cell.
 * <p>
 * Algorithm: GCRA(T, &tau;) of a {@link Limit}, identical to a token bucket of capacity {@code (&tau; + T) / T}
 * (= {@code burst} when T divides &tau;) and rate {@code 1 / T} that starts full (see
 * {@link dev.cellrate.gcra.Gcra}). Time is the caller's {@code nowNs}
 * (any monotonic source in ns; values may be negative, as {@link System#nanoTime()} may be) or, for the
 * clock forms, the injected {@link NanoClock}.
 * <p>
 * Concurrency: any thread may call any method. Each call is one acquire read plus, if admitted, one CAS
 * (see {@link AtomicGcra}); a rejection writes nothing. The cell is a {@link CellArray} cell, alone on its
 * cache-line pair.
 * <p>
 * Every decision method returns a {@link Result} code: {@link Result#ADMITTED} (0), a positive retry-after
 * in ns, or {@link Result#NEVER} (-1).
 */
public final class RateLimiter extends CellFront implements DebitLimiter
{
    /**
     * The cell word's absolute address (the decision path's raw access, with no base object: a {@link CellArray}
     * is off-heap; the cell array keeps the memory alive).
     */
    private final long tatAddress;
    /** &tau;: the slack of a one-permit request, {@code ceilingNs - emissionIntervalNs}. */
    private final long toleranceNs;
    /**
     * The last time at which a one-permit request decides in the latest-TAT form, {@code Long.MAX_VALUE - ceilingNs}
     * (see {@link dev.cellrate.gcra.CellLoop}): worked out once here, so that a call compares its time with it and
     * nothing else before the load.
     */
    private final long latestFormLastNowNs;
    /** The cell loop with the steps that fill a caller's {@link Decision} under this front's limit. */
    private final DecisionFill fill;

    /**
     * A limiter with its own cell, reading {@link SystemNanoClock} in the clock forms.
     *
     * @param limit the limit.
     */
    public RateLimiter(final Limit limit)
    {
        this(limit, CellArray.allocate(1), 0, SystemNanoClock.INSTANCE);
    }

    /**
     * A limiter with its own cell and the given clock (e.g. an Agrona {@code CachedNanoClock}).
     *
     * @param limit the limit.
     * @param clock the clock of the clock forms.
     */
    public RateLimiter(final Limit limit, final NanoClock clock)
    {
        this(limit, CellArray.allocate(1), 0, clock);
    }

    /**
     * A limiter with its own cell, the given clock and an initial fill: {@code initialPermits} available at
     * creation (0 = empty, as Guava starts; at or above the burst = full, the default of the other
     * constructors).
     *
     * @param limit          the limit.
     * @param clock          the clock of the clock forms, read once here for the creation time.
     * @param initialPermits permits available at creation, &ge; 0.
     */
    public RateLimiter(final Limit limit, final NanoClock clock, final long initialPermits)
    {
        this(limit, clock);
        buffer.putLongRelease(tatOffset, Gcra.initialFillTatNs(clock.nanoTime(), initialPermits, limit.emissionIntervalNs(), limit.ceilingNs()));
    }

    /**
     * A limiter over cell {@code cellIndex} of a shared {@link CellArray}. Two live limiters must not share
     * one cell unless they share the limit too.
     *
     * @param limit     the limit.
     * @param cells     the array holding the cell.
     * @param cellIndex the cell, in [0, cells.cellCount()).
     * @param clock     the clock of the clock forms.
     */
    RateLimiter(final Limit limit, final CellArray cells, final int cellIndex, final NanoClock clock)
    {
        super(limit, cells, cellIndex, clock);
        this.fill = new DecisionFill(limit);
        this.tatAddress = buffer.addressOffset() + tatOffset;
        this.toleranceNs = limit.toleranceNs();
        this.latestFormLastNowNs = Long.MAX_VALUE - ceilingNs;
    }

    /**
     * Try to take {@code permits} at {@code nowNs}, all or nothing.
     *
     * @param permits the cost; outside [1, burst] it is {@link Result#NEVER}.
     * @param nowNs   the time of the request, ns.
     * @return {@link Result#ADMITTED}, a positive retry-after in ns, or {@link Result#NEVER}.
     */
    public long tryAcquire(final long permits, final long nowNs)
    {
        // One permit is T with the slack tau (every limit's burst is >= 1): no load of the limit and no arithmetic
        // on the configuration between the call and the TAT's CAS. The time is compared with a bound worked out at
        // construction; a later time (the last ceiling's worth of the range) takes the general path's lag form.
        if (1 == permits && nowNs <= latestFormLastNowNs)
        {
            return AtomicGcra.acquireLatest(null, tatAddress, emissionIntervalNs, toleranceNs, nowNs);
        }
        return AtomicGcra.acquireAt(null, tatAddress, limit.incrementNs(permits), ceilingNs, nowNs);
    }

    /**
     * Try to take {@code permits} at {@code nowNs} and fill {@code decision} with the full outcome
     * (retry-after, remaining, reset-after, limit).
     *
     * @param permits  the cost; outside [1, burst] it is {@link Result#NEVER}.
     * @param nowNs    the time of the request, ns.
     * @param decision a caller-owned holder, filled in place.
     * @return {@link Result#ADMITTED}, a positive retry-after in ns, or {@link Result#NEVER}.
     */
    public long tryAcquire(final long permits, final long nowNs, final Decision decision)
    {
        return fill.charge(null, tatAddress, limit.incrementNs(permits), ceilingNs, nowNs, decision);
    }

    /**
     * @param permits the cost.
     * @param nowNs   the time, ns.
     * @return what {@link #tryAcquire(long, long)} would answer, without charging.
     */
    public long peek(final long permits, final long nowNs)
    {
        return AtomicGcra.peek(buffer, tatOffset, limit.incrementNs(permits), ceilingNs, nowNs);
    }

    /**
     * @param permits the cost learned after the fact.
     * @param nowNs   the time, ns.
     * @return see {@link DebitLimiter#debit(long, long)}.
     */
    public long debit(final long permits, final long nowNs)
    {
        return AtomicGcra.debit(buffer, tatOffset, limit.debitIncrementNs(permits), ceilingNs,
            limit.debtCeilingNs(), emissionIntervalNs, nowNs);
    }
}
