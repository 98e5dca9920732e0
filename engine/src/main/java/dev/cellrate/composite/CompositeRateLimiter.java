package dev.cellrate.composite;

import dev.cellrate.layout.LeakCounter;
import dev.cellrate.check.Bounds;
import dev.cellrate.gcra.Refund;
import dev.cellrate.layout.CellArray;
import dev.cellrate.Decision;
import dev.cellrate.Limit;
import dev.cellrate.DebitLimiter;
import dev.cellrate.Result;
import dev.cellrate.gcra.AtomicGcra;
import dev.cellrate.gcra.CellLoop;
import dev.cellrate.gcra.Gcra;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;

/**
 * All-or-nothing admission across several GCRA legs: "10/s AND 1000/h" on one key, or "user AND tenant AND
 * global" across keys. A request is admitted only if every leg admits it; otherwise no leg keeps its charge
 * (except a leaked refund, see {@link Refund}).
 * <p>
 * Algorithm: legs are charged in order 0, 1, ..., each through the one cell loop
 * ({@link CellLoop}), whose admission step charges the next leg; when leg i rejects, legs i-1 .. 0 are refunded in reverse order with {@link Refund#undo}. The
 * charges are kept on the call stack (one recursion level per leg), so a decision allocates nothing. The
 * result is the rejecting leg's code (its retry-after, or {@link Result#NEVER}).
 * <p>
 * Legs: leg i has a {@link Limit} fixed at construction and a cell in a shared {@link CellArray}: either fixed
 * at construction ({@link #tryAcquire(long, long)}) or chosen per call ({@link #tryAcquire(int[], long, long)},
 * e.g. user cell, tenant cell, global cell of the caller's own key mapping). Plain
 * {@link dev.cellrate.RateLimiter}s may share the same cells; their charges are simply never refunded.
 * <p>
 * Concurrency: any thread may call any method. No over-admission on any leg (proof in {@link Refund}); an
 * observer may be rejected because of a charge that is refunded a moment later (transient
 * under-admission). A refund that finds another admission kept on top of its charge is abandoned and counted
 * in {@link #leakedRefunds()}.
 */
public final class CompositeRateLimiter implements DebitLimiter
{
    private final CellArray cells;
    private final AtomicBuffer buffer;
    private final Limit[] limits;
    private final long[] emissionIntervalsNs;
    private final long[] ceilingsNs;
    private final long[] bursts;
    /** Leg i's cell loop steps. */
    private final Step[] steps;
    /** The cells' buffer as base object and address (the legs' raw access; {@link #cells} keeps it alive). */
    private final Object base;
    private final long baseAddress;
    private final int[] fixedOffsets;
    private final LeakCounter leaks = new LeakCounter();
    private final int legCount;
    private final NanoClock clock;

    /**
     * A composite with its own cells, one per limit.
     *
     * @param limits the legs' limits, 1 to 64 of them.
     * @return the composite.
     * @throws IllegalArgumentException on a null or empty array, or more than 64 legs.
     */
    public static CompositeRateLimiter of(final Limit... limits)
    {
        return new CompositeRateLimiter(ownCells(limits), limits, ownIndices(limits));
    }

    /**
     * A composite with its own cells, one per limit, and an initial fill: every leg starts with
     * {@code initialPermits} permits (capped at its own burst), so {@code min(initialPermits, smallest burst)}
     * single permits are admitted at creation before the first rejection (0 = empty; the default of
     * {@link #of} is full).
     *
     * @param clock          the clock of the clock forms, read once here for the creation time.
     * @param initialPermits permits available on each leg at creation, &ge; 0.
     * @param limits         the legs' limits, 1 to 64 of them.
     * @return the composite.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public static CompositeRateLimiter of(final NanoClock clock, final long initialPermits, final Limit... limits)
    {
        final CompositeRateLimiter composite =
            new CompositeRateLimiter(ownCells(limits), limits, ownIndices(limits), clock);
        final long nowNs = clock.nanoTime();
        for (int leg = 0; leg < composite.legCount; leg++)
        {
            composite.buffer.putLongVolatile(
                composite.fixedOffsets[leg], Gcra.initialFillTatNs(nowNs, initialPermits, composite.limits[leg].emissionIntervalNs(), composite.limits[leg].ceilingNs()));
        }
        return composite;
    }

    private static CellArray ownCells(final Limit[] limits)
    {
        return CellArray.allocate(Math.max(1, Bounds.requireNonNull("limits", limits).length));
    }

    private static int[] ownIndices(final Limit[] limits)
    {
        final int[] indices = new int[limits.length];
        for (int i = 0; i < indices.length; i++)
        {
            indices[i] = i;
        }
        return indices;
    }

    /**
     * @param cells       the array holding the legs' cells.
     * @param limits      leg i's limit, 1 to 64 legs.
     * @param cellIndices leg i's fixed cell, or null if cells are always given per call.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    CompositeRateLimiter(final CellArray cells, final Limit[] limits, final int[] cellIndices)
    {
        this(cells, limits, cellIndices, SystemNanoClock.INSTANCE);
    }

    /**
     * @param cells       the array holding the legs' cells.
     * @param limits      leg i's limit, 1 to 64 legs.
     * @param cellIndices leg i's fixed cell, or null if cells are always given per call.
     * @param clock       the clock of the clock forms.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    CompositeRateLimiter(
        final CellArray cells, final Limit[] limits, final int[] cellIndices, final NanoClock clock)
    {
        this(cells, limits, cellIndices, clock, Leg::new);
    }

    /**
     * @param cells       the array holding the legs' cells.
     * @param limits      leg i's limit, 1 to 64 legs.
     * @param cellIndices leg i's fixed cell, or null if cells are always given per call.
     * @param clock       the clock of the clock forms.
     * @param legSteps    makes leg i's cell loop steps.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    CompositeRateLimiter(
        final CellArray cells, final Limit[] limits, final int[] cellIndices, final NanoClock clock,
        final Steps legSteps)
    {
        Bounds.requireNonNull("cells", cells);
        Bounds.requireNonNull("limits", limits);
        Bounds.requireNonNull("clock", clock);
        this.clock = clock;
        if (limits.length < 1 || limits.length > 64)
        {
            throw new IllegalArgumentException("limits.length must be in [1, 64] but was " + limits.length);
        }
        if (null != cellIndices && cellIndices.length != limits.length)
        {
            throw new IllegalArgumentException("cellIndices.length must be in [" + limits.length + ", " +
                limits.length + "] but was " + cellIndices.length);
        }
        this.cells = cells;
        this.buffer = cells.buffer();
        this.legCount = limits.length;
        this.limits = limits.clone();
        this.emissionIntervalsNs = new long[legCount];
        this.ceilingsNs = new long[legCount];
        this.bursts = new long[legCount];
        this.steps = new Step[legCount];
        this.base = buffer.byteArray();
        this.baseAddress = buffer.addressOffset();
        this.fixedOffsets = null == cellIndices ? null : new int[legCount];
        for (int i = 0; i < legCount; i++)
        {
            if (null == this.limits[i])
            {
                throw new IllegalArgumentException("limits[" + i + "] must not be null");
            }
            emissionIntervalsNs[i] = this.limits[i].emissionIntervalNs();
            ceilingsNs[i] = this.limits[i].ceilingNs();
            bursts[i] = this.limits[i].burst();
            steps[i] = legSteps.of(this, i);
            if (null != cellIndices)
            {
                fixedOffsets[i] = CellArray.tatOffset(checkCell(cellIndices[i]));
            }
        }
    }

    /**
     * Charge {@code permits} on every fixed leg at {@code nowNs}, all or nothing.
     *
     * @param permits the cost on each leg; outside [1, burst] of any leg it is {@link Result#NEVER}.
     * @param nowNs   the time of the request.
     * @return {@link Result#ADMITTED}, or the first rejecting leg's code: a positive retry-after in ns (for
     * that leg alone) or {@link Result#NEVER}.
     * @throws IllegalStateException if the legs have no fixed cells (a configuration error).
     */
    public long tryAcquire(final long permits, final long nowNs)
    {
        requireFixedCells();
        return chargeLeg(0, fixedOffsets, permits, nowNs);
    }

    /**
     * As {@link #tryAcquire(long, long)}, and fill {@code decision} from the legs as they are after the
     * decision: the smallest remaining and the longest reset-after over the fixed legs, the rejecting leg's
     * retry-after, and the smallest burst as the limit.
     *
     * @param permits  the cost on each leg.
     * @param nowNs    the time of the request.
     * @param decision a caller-owned holder, filled in place.
     * @return as {@link #tryAcquire(long, long)}.
     */
    public long tryAcquire(final long permits, final long nowNs, final Decision decision)
    {
        final long code = tryAcquire(permits, nowNs);
        long remaining = Long.MAX_VALUE;
        long resetAfterNs = 0;
        long limit = Long.MAX_VALUE;
        for (int leg = 0; leg < legCount; leg++)
        {
            final long tatNs = buffer.getLongAcquire(fixedOffsets[leg]);
            remaining = Math.min(remaining, Gcra.remaining(tatNs, nowNs, emissionIntervalsNs[leg], ceilingsNs[leg]));
            resetAfterNs = Math.max(resetAfterNs, Gcra.resetAfterNs(tatNs, nowNs));
            limit = Math.min(limit, limits[leg].burst());
        }
        decision.setOutcome(code, remaining, resetAfterNs, limit);
        return code;
    }

    /**
     * What {@link #tryAcquire(long, long)} would answer now, without charging: the first fixed leg's code
     * that is not {@link Result#ADMITTED}.
     *
     * @param permits the cost on each leg.
     * @param nowNs   the time.
     * @return {@link Result#ADMITTED}, a positive retry-after in ns, or {@link Result#NEVER}.
     */
    public long peek(final long permits, final long nowNs)
    {
        requireFixedCells();
        for (int leg = 0; leg < legCount; leg++)
        {
            final long code = AtomicGcra.peek(buffer, fixedOffsets[leg], limits[leg].incrementNs(permits),
                ceilingsNs[leg], nowNs);
            if (Result.ADMITTED != code)
            {
                return code;
            }
        }
        return Result.ADMITTED;
    }

    /**
     * Debit {@code permits} on every fixed leg (see {@link DebitLimiter#debit(long, long)}).
     *
     * @param permits the cost learned after the fact.
     * @param nowNs   the time.
     * @return the longest time any leg needs to pay its debt back, {@link Result#ADMITTED} if none is in debt,
     * or {@link Result#NEVER} for a cost below 1.
     */
    public long debit(final long permits, final long nowNs)
    {
        requireFixedCells();
        long code = Result.ADMITTED;
        for (int leg = 0; leg < legCount; leg++)
        {
            final Limit limit = limits[leg];
            final long legCode = AtomicGcra.debit(buffer, fixedOffsets[leg], limit.debitIncrementNs(permits),
                ceilingsNs[leg], limit.debtCeilingNs(), emissionIntervalsNs[leg], nowNs);
            if (Result.NEVER == legCode)
            {
                return legCode; // a cost below 1: the first leg charged nothing, and neither does any other
            }
            code = Math.max(code, legCode);
        }
        return code;
    }

    private void requireFixedCells()
    {
        if (null == fixedOffsets)
        {
            throw new IllegalStateException("this composite has no fixed cells; pass cell indices per call");
        }
    }

    /**
     * Charge {@code permits} on leg i's cell {@code cellIndices[i]} for every leg, all or nothing. Distinct
     * legs should use distinct cells; a cell index outside the array is {@link Result#NEVER}.
     *
     * @param cellIndices leg i's cell for this request (caller-owned, reused; at least one per leg).
     * @param permits     the cost on each leg.
     * @param nowNs       the time of the request.
     * @return {@link Result#ADMITTED}, or the first rejecting leg's code: a positive retry-after in ns or
     * {@link Result#NEVER}.
     */
    long tryAcquire(final int[] cellIndices, final long permits, final long nowNs)
    {
        if (cellIndices.length < legCount)
        {
            return Result.NEVER;
        }
        return chargeLeg(0, cellIndices, permits, nowNs);
    }

    private long chargeLeg(final int leg, final int[] cellsOrOffsets, final long permits, final long nowNs)
    {
        final int offset;
        if (fixedOffsets != cellsOrOffsets)
        {
            final int index = cellsOrOffsets[leg];
            if (index < 0 || index >= cells.cellCount())
            {
                return Result.NEVER;
            }
            offset = CellArray.tatOffset(index);
        }
        else
        {
            offset = cellsOrOffsets[leg];
        }
        if (permits < 1 || permits > bursts[leg])
        {
            return Result.NEVER;
        }
        return steps[leg].charge(
            base, baseAddress + offset, permits * emissionIntervalsNs[leg], ceilingsNs[leg], nowNs, cellsOrOffsets);
    }

    /**
     * What leg {@code leg} does with the cell loop's outcome: on admission, charge the next leg, and refund its
     * own charge exactly ({@link Refund#undo}) if that one rejects. The holder is the call's cells: the fixed
     * offsets, or the caller's cell indices. Package-private and open only so that a unit test can supply a
     * subclass whose {@link #stale} step plays another caller's write between a read and a CAS.
     */
    abstract static class Step extends CellLoop<int[]>
    {
        private final CompositeRateLimiter composite;
        private final int leg;

        Step(final CompositeRateLimiter composite, final int leg)
        {
            this.composite = composite;
            this.leg = leg;
        }

        protected final long admitted(
            final int[] cellsOrOffsets,
            final long tatBeforeNs,
            final long tatAfterNs,
            final long incrementNs,
            final long nowNs)
        {
            final CompositeRateLimiter composite = this.composite;
            final int next = leg + 1;
            if (next == composite.legCount)
            {
                return Result.ADMITTED;
            }
            final long code = composite.chargeLeg(
                next, cellsOrOffsets, incrementNs / composite.emissionIntervalsNs[leg], nowNs);
            if (Result.ADMITTED != code &&
                !Refund.undo(composite.buffer, composite.offsetOf(leg, cellsOrOffsets), tatAfterNs, incrementNs))
            {
                composite.leaks.leaked();
            }
            return code;
        }
    }

    /** The legs' steps. */
    private static final class Leg extends Step
    {
        Leg(final CompositeRateLimiter composite, final int leg)
        {
            super(composite, leg);
        }
    }

    /** Makes leg i's steps (a unit test's {@link Step} in place of {@link Leg}). */
    @FunctionalInterface
    interface Steps
    {
        Step of(CompositeRateLimiter composite, int leg);
    }

    private int offsetOf(final int leg, final int[] cellsOrOffsets)
    {
        return fixedOffsets == cellsOrOffsets ? cellsOrOffsets[leg] : CellArray.tatOffset(cellsOrOffsets[leg]);
    }

    /**
     * @return refunds abandoned because another admission was kept on top of the charge (each left up to
     * one increment of under-admission on its leg until the cell went idle).
     */
    public long leakedRefunds()
    {
        return leaks.count();
    }

    /**
     * @param leg a leg, in [0, legs()).
     * @return its limit.
     */
    public Limit limit(final int leg)
    {
        return limits[leg];
    }

    /**
     * @return the number of legs.
     */
    public int legs()
    {
        return legCount;
    }

    /**
     * @return the array holding the legs' cells.
     */
    CellArray cells()
    {
        return cells;
    }

    private int checkCell(final int index)
    {
        if (index < 0 || index >= cells.cellCount())
        {
            throw new IllegalArgumentException("cellIndices must be in [0, " + (cells.cellCount() - 1) +
                "] but was " + index);
        }
        return index;
    }

    /**
     * @return the clock the clock forms read.
     */
    public NanoClock clock()
    {
        return clock;
    }
}
