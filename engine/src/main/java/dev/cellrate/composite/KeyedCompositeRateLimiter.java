package dev.cellrate.composite;

import dev.cellrate.CellArray;
import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import dev.cellrate.gcra.Gcra;
import dev.cellrate.table.SlotTable;
import org.agrona.concurrent.AtomicBuffer;

/**
 * All-or-nothing admission across keys: "user AND tenant AND global", each leg a
 * {@link KeyedRateLimiter} (its own table and limit), the key of each leg given per call.
 * <p>
 * Algorithm: as {@link CompositeRateLimiter}: legs are charged in order with the table's slot API
 * ({@code claimSlot}, validated {@code loadTat}, {@code compareAndExchangeTat}), and when a leg rejects the
 * earlier legs are refunded in reverse order by {@link Refund#undo}. The legs' own limiters may serve other
 * traffic on the same tables at the same time.
 * <p>
 * Table full: a leg whose table has no cell for the key rejects the whole request with
 * {@link Result#TABLE_FULL} (fail closed, whatever the leg's own policy), after refunding earlier legs.
 * <p>
 * Refunds and the table's ABA rule: the slot API asks that every CAS raise the word; a refund lowers it from
 * the value W its charge wrote to {@code W - I}, which is at least the value that charge read. It cannot
 * land on a slot reclaimed for another key: reclaiming needs the word idle and then raises it above every
 * value it held, so W never reappears and the refund CAS fails (the refund is then simply abandoned). It
 * cannot revive a stale decider of a previous key either: {@code W - I} is at least a value the current key
 * already held, which is above every value of earlier keys. A reclaimer that read W before the refund fails
 * its own CAS (the cell looks active) and leaves the slot alone.
 * <p>
 * Concurrency, over-admission and leaks: see {@link Refund}. Allocation-free: the caller owns and reuses
 * the key array.
 */
public final class KeyedCompositeRateLimiter
{
    private final KeyedRateLimiter[] legs;
    private final SlotTable[] tables;
    private final long[] emissionIntervalsNs;
    private final long[] ceilingsNs;
    private final long[] bursts;
    private final AtomicBuffer leaks;
    private final int legCount;

    /**
     * @param legs leg i's keyed limiter (its table and limit), 1 to 64 legs.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public KeyedCompositeRateLimiter(final KeyedRateLimiter... legs)
    {
        if (null == legs || legs.length < 1 || legs.length > 64)
        {
            throw new IllegalArgumentException("legs.length must be in [1, 64] but was " +
                (null == legs ? "null" : legs.length));
        }
        this.legCount = legs.length;
        this.legs = legs.clone();
        this.tables = new SlotTable[legCount];
        this.emissionIntervalsNs = new long[legCount];
        this.ceilingsNs = new long[legCount];
        this.bursts = new long[legCount];
        for (int i = 0; i < legCount; i++)
        {
            if (null == this.legs[i])
            {
                throw new IllegalArgumentException("legs[" + i + "] must not be null");
            }
            final Limit limit = this.legs[i].limit();
            tables[i] = this.legs[i].table();
            emissionIntervalsNs[i] = limit.emissionIntervalNs();
            ceilingsNs[i] = limit.ceilingNs();
            bursts[i] = limit.burst();
        }
        this.leaks = CellArray.allocate(1).buffer();
        leaks.putLongVolatile(CellArray.tatOffset(0), 0);
    }

    /**
     * Charge {@code permits} on every leg, leg i under key {@code keys[i]}, all or nothing.
     *
     * @param keys    leg i's key (caller-owned, reused; at least one per leg).
     * @param permits the cost on each leg.
     * @param nowNs   the time of the request.
     * @return {@link Result#ADMITTED}, or the first rejecting leg's code: a positive retry-after in ns,
     * {@link Result#NEVER} (cost outside a leg's [1, burst], too few keys) or {@link Result#TABLE_FULL}.
     */
    public long tryAcquire(final long[] keys, final long permits, final long nowNs)
    {
        if (keys.length < legCount)
        {
            return Result.NEVER;
        }
        return charge(0, keys, permits, nowNs);
    }

    private long charge(final int leg, final long[] keys, final long permits, final long nowNs)
    {
        if (permits < 1 || permits > bursts[leg])
        {
            return Result.NEVER;
        }
        final long incrementNs = permits * emissionIntervalsNs[leg];
        final long ceilingNs = ceilingsNs[leg];
        final SlotTable table = tables[leg];
        final long keyWord = table.keyWord(keys[leg]);
        int tatOffset;
        long chargedNs;
        charged:
        while (true)
        {
            tatOffset = table.claimSlot(keyWord, nowNs);
            if (tatOffset < 0)
            {
                return Result.TABLE_FULL;
            }
            long tatNs = table.loadTat(tatOffset, keyWord);
            while (SlotTable.STALE != tatNs)
            {
                final long retryAfterNs = Gcra.retryAfterNs(tatNs, nowNs, incrementNs, ceilingNs);
                if (retryAfterNs > 0)
                {
                    return retryAfterNs;
                }
                chargedNs = Gcra.nextTatNs(tatNs, nowNs, incrementNs);
                if (Gcra.UNREPRESENTABLE == chargedNs)
                {
                    return Result.NEVER;
                }
                if (table.compareAndExchangeTat(tatOffset, tatNs, chargedNs) == tatNs)
                {
                    break charged;
                }
                tatNs = table.loadTat(tatOffset, keyWord);
            }
        }
        if (leg + 1 == legCount)
        {
            return Result.ADMITTED;
        }
        final long code = charge(leg + 1, keys, permits, nowNs);
        if (Result.ADMITTED != code && !Refund.undo(table.buffer(), tatOffset, chargedNs, incrementNs))
        {
            leaks.getAndAddLong(CellArray.tatOffset(0), 1);
        }
        return code;
    }

    /**
     * As {@link #tryAcquire(long[], long, long)}, by the clock of leg 0.
     *
     * @param keys    leg i's key (caller-owned, reused; at least one per leg).
     * @param permits the cost on each leg.
     * @return as {@link #tryAcquire(long[], long, long)}.
     */
    public long tryAcquire(final long[] keys, final long permits)
    {
        return tryAcquire(keys, permits, legs[0].clock().nanoTime());
    }

    /**
     * @return refunds abandoned because another admission was kept on top of the charge (or the slot was
     * being reclaimed).
     */
    public long leakedRefunds()
    {
        return leaks.getLongVolatile(CellArray.tatOffset(0));
    }

    /**
     * @param leg a leg, in [0, legs()).
     * @return its keyed limiter.
     */
    public KeyedRateLimiter leg(final int leg)
    {
        return legs[leg];
    }

    /**
     * @return the number of legs.
     */
    public int legs()
    {
        return legCount;
    }
}
