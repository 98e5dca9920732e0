package dev.cellrate;

import dev.cellrate.layout.LeakCounter;
import dev.cellrate.gcra.Refund;
import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import dev.cellrate.table.SlotLoop;
import dev.cellrate.table.SlotTable;

/**
 * All-or-nothing admission across keys: "user AND tenant AND global", each leg a
 * {@link KeyedRateLimiter} (its own table and limit), the key of each leg given per call.
 * <p>
 * Algorithm: as {@link dev.cellrate.composite.CompositeRateLimiter}: legs are charged in order with the table's one
 * slot loop ({@link SlotLoop}); what a leg does on admission is to charge the next leg, and when a later leg rejects,
 * to refund its own charge exactly ({@link Refund}'s rule: from {@code W} back to {@code W - I}, through
 * {@link SlotLoop#refund}), so earlier legs are refunded in reverse order. The legs' own limiters may serve other
 * traffic on the same tables at the same time.
 * <p>
 * Table full: a leg whose table has no cell for the key rejects the whole request with
 * {@link Result#TABLE_FULL} (fail closed, whatever the leg's own policy), after refunding earlier legs.
 * <p>
 * Refunds and the table's ABA rule: a refund lowers the word from the value W its charge wrote to
 * {@code W - I}, which is at least the value that charge read. It cannot land on a slot reclaimed for another
 * key: reclaiming raises the word above every value the slot held, so W never reappears and the refund CAS
 * fails (the refund is then simply abandoned). It cannot revive a stale decider of a previous key either:
 * {@code W - I} is at least a value the current key already held, which is above every value of earlier keys.
 * And the table records W in the slot's high-water mark before lowering, so the slot is not reclaimed until
 * W itself is idle: a decider paused holding W can never meet it again on another key's cell.
 * <p>
 * Concurrency, over-admission and leaks: see {@link Refund}. Allocation-free: the caller owns and reuses
 * the key array.
 */
public final class KeyedCompositeRateLimiter
{
    private final KeyedRateLimiter[] legs;
    private final SlotTable[] tables;
    private final Leg[] steps;
    private final long[] emissionIntervalsNs;
    private final long[] ceilingsNs;
    private final long[] bursts;
    private final LeakCounter leaks = new LeakCounter();
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
        this.steps = new Leg[legCount];
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
            steps[i] = new Leg(tables[i], i);
        }
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
        return chargeLeg(0, keys, permits, nowNs);
    }

    private long chargeLeg(final int leg, final long[] keys, final long permits, final long nowNs)
    {
        if (permits < 1 || permits > bursts[leg])
        {
            return Result.NEVER;
        }
        return steps[leg].charge(
            tables[leg].keyWord(keys[leg]), permits * emissionIntervalsNs[leg], ceilingsNs[leg], nowNs, keys);
    }

    /**
     * What leg {@code leg} does with the slot loop's outcome: on admission, charge the next leg, and refund
     * its own charge exactly if that one rejects.
     */
    private final class Leg extends SlotLoop<long[]>
    {
        private final int leg;

        Leg(final SlotTable table, final int leg)
        {
            super(table);
            this.leg = leg;
        }

        protected long admitted(
            final long[] keys,
            final long keyWord,
            final long tatBeforeNs,
            final long tatAfterNs,
            final long incrementNs,
            final long nowNs)
        {
            if (leg + 1 == legCount)
            {
                return Result.ADMITTED;
            }
            final long code = chargeLeg(leg + 1, keys, incrementNs / emissionIntervalsNs[leg], nowNs);
            if (Result.ADMITTED != code && !refund(keyWord, tatAfterNs, tatAfterNs - incrementNs))
            {
                leaks.leaked();
            }
            return code;
        }

        protected long rejected(final long[] keys, final long retryAfterNs, final long tatNs, final long nowNs)
        {
            return retryAfterNs;
        }

        protected long tableFull(final long[] keys, final long incrementNs, final long nowNs)
        {
            return Result.TABLE_FULL;
        }
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
        return leaks.count();
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
