package dev.cellrate;

import dev.cellrate.table.SlotLoop;
import dev.cellrate.table.SlotTable;
import dev.cellrate.check.Bounds;
import dev.cellrate.gcra.Gcra;
import dev.cellrate.layout.CellArray;
import dev.cellrate.Decision;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import dev.cellrate.TableFullPolicy;

/**
 * The slot loop of the keyed limiters that answer in a {@link Decision} under one {@link Limit}
 * ({@code KeyedRateLimiter}, and {@code ReconfigurableKeyedRateLimiter}, which replaces the whole loop to change
 * the limit): the admitted / rejected / table-full answers written once, and as statics ({@link #fill},
 * {@link #tableFull}) for the keyed fronts whose step is their own ({@code ClassedKeyedRateLimiter}).
 * <p>
 * A final class held in a field of its exact type, so that once {@link #charge} is inlined the three steps are
 * bound statically, as for a front's own nested step. Immutable; allocation-free.
 */
final class DecisionLoop extends SlotLoop<Decision>
{
    /** The limit of every key. */
    public final Limit limit;

    /** {@code limit.ceilingNs()}. */
    public final long ceilingNs;

    private final TableFullPolicy policy;

    /**
     * @param table  the table.
     * @param limit  the limit of every key.
     * @param policy what a new key gets when the table is full.
     * @throws IllegalArgumentException if any is null.
     */
    DecisionLoop(final SlotTable table, final Limit limit, final TableFullPolicy policy)
    {
        super(table);
        this.limit = Bounds.requireNonNull("limit", limit);
        this.policy = Bounds.requireNonNull("policy", policy);
        this.ceilingNs = limit.ceilingNs();
    }

    protected long admitted(
        final Decision decision,
        final long keyWord,
        final long tatBeforeNs,
        final long tatAfterNs,
        final long incrementNs,
        final long nowNs)
    {
        if (null != decision)
        {
            decision.set(Result.ADMITTED, Gcra.resetAfterNs(tatAfterNs, nowNs), limit);
        }
        return Result.ADMITTED;
    }

    protected long rejected(final Decision decision, final long retryAfterNs, final long tatNs, final long nowNs)
    {
        return fill(decision, retryAfterNs, tatNs, nowNs, limit, retryAfterNs);
    }

    protected long tableFull(final Decision decision, final long incrementNs, final long nowNs)
    {
        return tableFull(table, policy, decision, incrementNs, ceilingNs, limit, nowNs);
    }

    /**
     * Fill the caller's holder, if any, and answer.
     *
     * @param decision the holder, or null.
     * @param cellCode the cell's code, as the holder reports it.
     * @param tatNs    the TAT the decision saw (after charging, if admitted).
     * @param nowNs    the time of the request.
     * @param limit    the limit the key was decided under.
     * @param code     the front's answer.
     * @return {@code code}.
     */
    public static long fill(
        final Decision decision,
        final long cellCode,
        final long tatNs,
        final long nowNs,
        final Limit limit,
        final long code)
    {
        if (null != decision)
        {
            decision.set(cellCode, Gcra.resetAfterNs(tatNs, nowNs), limit);
        }
        return code;
    }

    /**
     * The table-full answer of a keyed limiter: {@code REJECT} answers {@link Result#TABLE_FULL} (holder filled
     * with a full bucket), {@code ADMIT} answers {@link Result#ADMITTED_TABLE_FULL} (holder filled as an
     * admission with a full bucket), {@code OVERFLOW} decides on the table's shared overflow cell and answers
     * {@link Result#ADMITTED_OVERFLOW} or {@link Result#REJECTED_OVERFLOW} (holder filled from that cell).
     *
     * @param table       the table whose overflow cell {@code OVERFLOW} charges.
     * @param policy      the front's policy.
     * @param decision    the holder, or null.
     * @param incrementNs the request's charge.
     * @param ceilingNs   {@code &tau; + T} of {@code limit}.
     * @param limit       the limit the key would have been decided under.
     * @param nowNs       the time of the request.
     * @return the code.
     */
    public static long tableFull(
        final SlotTable table,
        final TableFullPolicy policy,
        final Decision decision,
        final long incrementNs,
        final long ceilingNs,
        final Limit limit,
        final long nowNs)
    {
        if (TableFullPolicy.REJECT == policy)
        {
            return fill(decision, Result.TABLE_FULL, CellArray.FRESH_TAT_NS, nowNs, limit, Result.TABLE_FULL);
        }
        if (TableFullPolicy.ADMIT == policy)
        {
            return fill(decision, Result.ADMITTED, CellArray.FRESH_TAT_NS, nowNs, limit, Result.ADMITTED_TABLE_FULL);
        }
        final long code = table.chargeOverflow(incrementNs, ceilingNs, nowNs);
        if (null != decision)
        {
            decision.set(code, Gcra.resetAfterNs(table.overflowTatNs(), nowNs), limit);
        }
        return Result.ADMITTED == code ? Result.ADMITTED_OVERFLOW : Result.REJECTED_OVERFLOW;
    }
}
