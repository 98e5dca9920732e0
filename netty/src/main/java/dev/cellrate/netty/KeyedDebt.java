package dev.cellrate.netty;

import dev.cellrate.Limit;
import dev.cellrate.Result;
import dev.cellrate.gcra.Gcra;
import dev.cellrate.table.SlotTable;

/**
 * A keyed {@link DebtLimiter} over the engine's {@link SlotTable} slot API (its documented contract: a
 * validated load, and a CAS that only ever raises the word). {@code peek} admits while the key's TAT is
 * within the tolerance, exactly where GCRA would admit one permit; {@code debit} pushes the TAT by
 * {@code permits * T} from {@code max(TAT, now)}, bounded at {@code now + ceiling + maxDebtNs}, so a key's
 * debt (and the time it is refused) never exceeds {@code maxDebtNs} past a full refill.
 * <p>
 * Interim: the engine's keyed front is gaining {@code peek}/{@code debit}; once it has them this class
 * becomes an adapter over it.
 */
public final class KeyedDebt implements DebtLimiter
{
    private final SlotTable table;
    private final Limit limit;
    private final long emissionIntervalNs;
    private final long ceilingNs;
    private final long maxDebtNs;
    private final long maxPermits;

    /**
     * @param limit     the limit.
     * @param table     a table used by this limiter only.
     * @param maxDebtNs the most debt a key can build past a full refill, in [0, 2<sup>61</sup>].
     */
    public KeyedDebt(final Limit limit, final SlotTable table, final long maxDebtNs)
    {
        if (null == limit || null == table)
        {
            throw new IllegalArgumentException("limit and table must not be null");
        }
        dev.cellrate.Bounds.requireRange("maxDebtNs", maxDebtNs, 0, 1L << 61);
        this.limit = limit;
        this.table = table;
        this.emissionIntervalNs = limit.emissionIntervalNs();
        this.ceilingNs = limit.ceilingNs();
        this.maxDebtNs = maxDebtNs;
        this.maxPermits = (ceilingNs + maxDebtNs) / emissionIntervalNs + 1;
    }

    public long peek(final byte[] key, final int offset, final int length, final long nowNs)
    {
        final long keyWord = table.keyWord(key, offset, length);
        final int tatOffset = table.findSlot(keyWord);
        if (tatOffset < 0)
        {
            return Result.ADMITTED;
        }
        final long tatNs = table.loadTat(tatOffset, keyWord);
        if (SlotTable.STALE == tatNs)
        {
            return Result.ADMITTED;
        }
        final long retryAfterNs = Gcra.retryAfterNs(tatNs, nowNs, emissionIntervalNs, ceilingNs);
        return retryAfterNs > 0 ? retryAfterNs : Result.ADMITTED;
    }

    public long debit(final byte[] key, final int offset, final int length, final long permits, final long nowNs)
    {
        if (permits < 1)
        {
            return Result.ADMITTED;
        }
        final long incrementNs = Math.min(permits, maxPermits) * emissionIntervalNs;
        final long keyWord = table.keyWord(key, offset, length);
        final long capNs = nowNs > Long.MAX_VALUE - ceilingNs - maxDebtNs ? Long.MAX_VALUE : nowNs + ceilingNs + maxDebtNs;
        while (true)
        {
            final int tatOffset = table.claimSlot(keyWord, nowNs);
            if (tatOffset < 0)
            {
                return Result.TABLE_FULL;
            }
            long tatNs = table.loadTat(tatOffset, keyWord);
            while (SlotTable.STALE != tatNs)
            {
                final long baseNs = Math.max(tatNs, nowNs);
                final long nextNs = baseNs > capNs - incrementNs ? capNs : baseNs + incrementNs;
                if (nextNs <= tatNs)
                {
                    return Result.ADMITTED; // already at the bound: the debt cannot grow
                }
                if (table.compareAndExchangeTat(tatOffset, tatNs, nextNs) == tatNs)
                {
                    return Result.ADMITTED;
                }
                tatNs = table.loadTat(tatOffset, keyWord);
            }
        }
    }

    public long resetAfterNs(final byte[] key, final int offset, final int length, final long nowNs)
    {
        final long keyWord = table.keyWord(key, offset, length);
        final int tatOffset = table.findSlot(keyWord);
        if (tatOffset < 0)
        {
            return 0;
        }
        final long tatNs = table.loadTat(tatOffset, keyWord);
        return SlotTable.STALE == tatNs ? 0 : Gcra.resetAfterNs(tatNs, nowNs);
    }

    public Limit limit()
    {
        return limit;
    }
}
