package dev.cellrate.table;

import dev.cellrate.Result;

/**
 * A front over {@link SlotLoop} for the table's specification tests: class {@code c} costs
 * {@code permits * perPermitNs[c]} (saturating to {@link Result#NEVER}) under ceiling {@code ceilingNs[c]};
 * an admission answers the TAT after it (as a shaper answers a delay: the loop must return what its step
 * returns), a rejection its retry-after or code, a full table {@link Result#TABLE_FULL}. A test can run
 * "another caller" once at the loop's call for a class's increment (after the lookup, before the validated
 * load) or ceiling (after the validated load, before the CAS).
 */
final class TestLoop extends SlotLoop<long[]>
{
    private final long[] perPermitNs;
    private final long[] ceilingNs;
    Runnable atIncrement;
    /** How many calls of {@link #classIncrementNs} pass before {@link #atIncrement} runs. */
    int incrementCallsBefore;
    Runnable atCeiling;

    TestLoop(final SlotTable table, final long[] perPermitNs, final long[] ceilingNs)
    {
        super(table);
        this.perPermitNs = perPermitNs;
        this.ceilingNs = ceilingNs;
    }

    @Override
    protected long classIncrementNs(final int classIndex, final long permits)
    {
        if (null != atIncrement && incrementCallsBefore-- == 0)
        {
            final Runnable r = atIncrement;
            atIncrement = null;
            r.run();
        }
        final long t = perPermitNs[classIndex];
        return 0 != t && permits > Long.MAX_VALUE / t ? Result.NEVER : permits * t;
    }

    @Override
    protected long classCeilingNs(final int classIndex)
    {
        final Runnable r = atCeiling;
        atCeiling = null;
        if (null != r)
        {
            r.run();
        }
        return ceilingNs[classIndex];
    }

    @Override
    protected long admitted(
        final long[] holder, final long keyWord, final long tatBeforeNs, final long tatAfterNs,
        final long incrementNs, final long nowNs)
    {
        return tatAfterNs;
    }

    @Override
    protected long rejected(final long[] holder, final long retryAfterNs, final long tatNs, final long nowNs)
    {
        return retryAfterNs;
    }

    @Override
    protected long tableFull(final long[] holder, final long incrementNs, final long nowNs)
    {
        return Result.TABLE_FULL;
    }
}
