package dev.cellrate;

import dev.cellrate.gcra.AtomicGcra;
import dev.cellrate.gcra.Gcra;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;

/**
 * A thread-safe, lock-free, allocation-free GCRA limiter over one cell: its own (a padded word inside this
 * object) or one of a shared {@link CellArray}.
 * <p>
 * Algorithm: GCRA(T, &tau;) of a {@link Limit}, identical to a token bucket of capacity {@code (&tau; + T) / T}
 * (= {@code burst} when T divides &tau;) and rate {@code 1 / T} that starts full (see
 * {@link dev.cellrate.gcra.Gcra}). Time is the caller's {@code nowNs}
 * (any monotonic source in ns; values may be negative, as {@link System#nanoTime()} may be) or, for the
 * clock forms, the injected {@link NanoClock}.
 * <p>
 * Concurrency: any thread may call any method. Each call is one acquire read plus, if admitted, one CAS
 * (see {@link AtomicGcra}); a rejection writes nothing. The cell is alone on its cache-line pair: a limiter
 * built without a {@link CellArray} keeps its TAT word in this object between 128-byte pads (see
 * {@code HeapTatCell}), so the admit path reads and CASes {@code [this + constant]} and takes the limit's
 * interval, burst and ceiling from final fields of this object, with no other load before the CAS (see
 * docs/design.md "The single limiter's cell is on the heap"); a limiter over a {@link CellArray} cell uses that
 * off-heap cell. Publish a limiter as any object with mutable state (a final or volatile field, a queue).
 * <p>
 * Every decision method returns a {@link Result} code: {@link Result#ADMITTED} (0), a positive retry-after
 * in ns, or {@link Result#NEVER} (-1).
 */
public final class RateLimiter extends HeapTatCell.After implements DebitLimiter
{
    private final long emissionIntervalNs;
    private final long ceilingNs;
    private final long burst;
    /** The array of the cell, or null when the cell is this object's own word. */
    private final CellArray cells;
    /**
     * The cell word as base object and address: an array cell's ({@link #cells} keeps its buffer alive), or
     * {@code this} and {@link HeapTatCell#WORD_OFFSET} for the own word.
     */
    private final Object tatBase;
    private final long tatAddress;
    private final Limit limit;
    private final NanoClock clock;

    /**
     * A limiter with its own cell, reading {@link SystemNanoClock} in the clock forms.
     *
     * @param limit the limit.
     */
    public RateLimiter(final Limit limit)
    {
        this(limit, SystemNanoClock.INSTANCE);
    }

    /**
     * A limiter with its own cell and the given clock (e.g. an Agrona {@code CachedNanoClock}).
     *
     * @param limit the limit.
     * @param clock the clock of the clock forms.
     * @throws IllegalStateException naming {@link CellArray#JVM_OPTION} when the JVM lacks it.
     */
    public RateLimiter(final Limit limit, final NanoClock clock)
    {
        HeapTatCell.requireUnsafe();
        this.limit = Bounds.requireNonNull("limit", limit);
        this.clock = Bounds.requireNonNull("clock", clock);
        this.cells = null;
        this.tatBase = this;
        this.tatAddress = HeapTatCell.WORD_OFFSET;
        this.emissionIntervalNs = limit.emissionIntervalNs();
        this.ceilingNs = limit.ceilingNs();
        this.burst = limit.burst();
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
        UnsafeApi.putLongRelease(this, HeapTatCell.WORD_OFFSET,
            Gcra.initialTatNs(clock.nanoTime(), initialPermits, limit));
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
    public RateLimiter(final Limit limit, final CellArray cells, final int cellIndex, final NanoClock clock)
    {
        this.limit = Bounds.requireNonNull("limit", limit);
        this.cells = Bounds.requireNonNull("cells", cells);
        this.clock = Bounds.requireNonNull("clock", clock);
        final AtomicBuffer buffer = cells.buffer();
        this.tatBase = buffer.byteArray();
        this.tatAddress = buffer.addressOffset() + CellArray.tatOffset(cells.checkIndex(cellIndex));
        this.emissionIntervalNs = limit.emissionIntervalNs();
        this.ceilingNs = limit.ceilingNs();
        this.burst = limit.burst();
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
        // Limit.incrementNs on this object's copies of the limit's fields (no load of the Limit).
        final long incrementNs = permits >= 1 && permits <= burst ? permits * emissionIntervalNs : Result.NEVER;
        if (null == cells)
        {
            // Own word: the TAT's address is this + a constant, known before any field of this object is read.
            return AtomicGcra.acquireAt(this, HeapTatCell.WORD_OFFSET, incrementNs, ceilingNs, nowNs);
        }
        return AtomicGcra.acquireAt(tatBase, tatAddress, incrementNs, ceilingNs, nowNs);
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
        return AtomicGcra.acquireAt(tatBase, tatAddress, limit, permits, nowNs, decision);
    }

    /**
     * @param permits the cost.
     * @param nowNs   the time, ns.
     * @return what {@link #tryAcquire(long, long)} would answer, without charging.
     */
    public long peek(final long permits, final long nowNs)
    {
        return AtomicGcra.peekAt(tatBase, tatAddress, limit.incrementNs(permits), ceilingNs, nowNs);
    }

    /**
     * @param permits the cost learned after the fact.
     * @param nowNs   the time, ns.
     * @return see {@link DebitLimiter#debit(long, long)}.
     */
    public long debit(final long permits, final long nowNs)
    {
        return AtomicGcra.debitAt(tatBase, tatAddress, limit.debitIncrementNs(permits), ceilingNs,
            limit.debtCeilingNs(), emissionIntervalNs, nowNs);
    }

    /**
     * @return the cell's current TAT (acquire read), {@link CellArray#FRESH_TAT_NS} if never charged.
     */
    public long tatNs()
    {
        return UnsafeApi.getLongAcquire(tatBase, tatAddress);
    }

    /**
     * @return the limit.
     */
    public Limit limit()
    {
        return limit;
    }

    /**
     * @return the clock of the clock forms.
     */
    public NanoClock clock()
    {
        return clock;
    }

    /**
     * @return the cell array holding this limiter's cell (the one given to the constructor), or {@code null}
     * when the limiter owns its cell (every constructor without a {@link CellArray}): that cell is a word of
     * this object, read through {@link #tatNs()}.
     */
    public CellArray cells()
    {
        return cells;
    }
}
