package dev.cellrate.reconfigure;

import dev.cellrate.gcra.CellLoop;
import dev.cellrate.gcra.Gcra;
import dev.cellrate.check.Bounds;
import dev.cellrate.layout.CellArray;
import dev.cellrate.Decision;
import dev.cellrate.Limit;
import dev.cellrate.Limiter;
import dev.cellrate.Result;
import dev.cellrate.gcra.AtomicGcra;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;

/**
 * A thread-safe GCRA limiter over one off-heap cell whose {@link Limit} can be replaced at run time
 * ({@link #setLimit(Limit)}) without a stop, keeping the cell's state.
 * <p>
 * State under a new limit: the cell keeps its TAT, i.e. <b>the debt is kept in time</b>. A client that is
 * {@code D = TAT - now} ns in debt stays {@code D} ns in debt; under the new limit {@code (T', &tau;')} its
 * next request of {@code n} permits conforms iff {@code D + n T' &le; &tau;' + T'} (see {@code docs/operating.md}).
 * Why time and not permits: (1) nobody gets a fresh burst by a change: the debt survives whole, and an idle
 * client (no debt) had a full bucket before and has one after; (2) the debt is what the client has already
 * been granted, measured in the one unit that does not depend on the limit (converting it to permits would
 * punish past admissions, legitimate under the old limit, at the new rate: a client that used 100 permits at
 * 100/s would be locked out for 10 s after lowering to 10/s); (3) a change is one volatile store, no cell is
 * rewritten, so a keyed table could change every key at once in O(1) by the same rule.
 * <p>
 * Concurrency: a decision reads the limit once (volatile) and then runs the usual lock-free CAS loop under it;
 * a decision concurrent with a change decides wholly under the old or wholly under the new limit, never a mix
 * of one's T and the other's &tau; (the limit is an immutable object published by the volatile store).
 * Allocation-free.
 */
public final class ReconfigurableRateLimiter implements Limiter
{
    private final AtomicBuffer buffer;
    private final int tatOffset;
    private final NanoClock clock;
    /** The current limit with its decision step, published together by one volatile store. */
    private volatile Current current;

    /** The current limit and the step that fills a {@link Decision} under it (one immutable object). */
    private static final class Current extends CellLoop<Decision>
    {
        final Limit limit;

        Current(final Limit limit)
        {
            this.limit = limit;
        }

        protected void decided(final Decision decision, final long code, final long tatNs, final long nowNs)
        {
            decision.set(code, Gcra.resetAfterNs(tatNs, nowNs), limit);
        }
    }

    /**
     * @param limit the initial limit.
     */
    public ReconfigurableRateLimiter(final Limit limit)
    {
        this(limit, CellArray.allocate(1), 0, SystemNanoClock.INSTANCE);
    }

    /**
     * @param limit     the initial limit.
     * @param cells     the array holding the cell.
     * @param cellIndex the cell.
     * @param clock     the clock of the clock-reading forms.
     */
    ReconfigurableRateLimiter(
        final Limit limit, final CellArray cells, final int cellIndex, final NanoClock clock)
    {
        Bounds.requireNonNull("limit", limit);
        Bounds.requireNonNull("cells", cells);
        Bounds.requireNonNull("clock", clock);
        this.clock = clock;
        dev.cellrate.check.Bounds.requireRange("cellIndex", cellIndex, 0, cells.cellCount() - 1);
        this.current = new Current(limit);
        this.buffer = cells.buffer();
        this.tatOffset = CellArray.tatOffset(cellIndex);
    }

    /**
     * @param permits the cost; outside [1, burst of the current limit] it is {@link Result#NEVER}.
     * @param nowNs   the time of the request, ns.
     * @return {@link Result#ADMITTED}, a positive retry-after in ns (under the current limit), or
     * {@link Result#NEVER}.
     */
    public long tryAcquire(final long permits, final long nowNs)
    {
        final Limit limit = current.limit;
        return AtomicGcra.acquire(buffer, tatOffset, limit.incrementNs(permits), limit.ceilingNs(), nowNs);
    }

    /**
     * @param permits  the cost.
     * @param nowNs    the time of the request, ns.
     * @param decision a caller-owned holder, filled from the cell that decided under the current limit.
     * @return as {@link #tryAcquire(long, long)}.
     */
    public long tryAcquire(final long permits, final long nowNs, final Decision decision)
    {
        final Current current = this.current;
        final Limit limit = current.limit;
        return current.charge(buffer.byteArray(), buffer.addressOffset() + tatOffset, limit.incrementNs(permits),
            limit.ceilingNs(), nowNs, decision);
    }

    /**
     * @return the clock of the clock-reading forms.
     */
    public NanoClock clock()
    {
        return clock;
    }

    /**
     * Replace the limit; the cell keeps its TAT (debt kept in time). Any thread.
     *
     * @param limit the new limit.
     */
    public void setLimit(final Limit limit)
    {
        Bounds.requireNonNull("limit", limit);
        this.current = new Current(limit);
    }

    /**
     * @return the current limit.
     */
    public Limit limit()
    {
        return current.limit;
    }

    /**
     * @return the cell's TAT (acquire read); inside the engine only.
     */
    long tatNs()
    {
        return buffer.getLongAcquire(tatOffset);
    }
}
