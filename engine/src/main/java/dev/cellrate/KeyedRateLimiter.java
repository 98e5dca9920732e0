package dev.cellrate;

import dev.cellrate.gcra.Gcra;
import dev.cellrate.table.SlotLoop;
import dev.cellrate.table.SlotTable;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.NanoClock;

/**
 * A thread-safe, allocation-free GCRA limiter per key (client IP, API key, user, account, route) over a
 * fixed-capacity off-heap {@link SlotTable}: one {@link Limit} for every key, 16 bytes per slot.
 * <p>
 * Algorithm: each key has its own GCRA cell and decides exactly like a {@link RateLimiter} with the same
 * limit would (see {@link Gcra}). Keys: {@code long} keys through a seeded bijective mixer (distinct longs
 * never share a cell); {@link CharSequence}, {@code byte[]} and {@link DirectBuffer} keys through SipHash-2-4
 * of their bytes under the table's 128-bit secret (random by default), a {@link CharSequence} counting as its UTF-8 bytes: the string "a/b", the
 * bytes of {@code "a/b".getBytes(UTF_8)} in an array and the same bytes in a buffer are one key. Long keys
 * and byte keys are different keys (they share a cell only by a 64-bit hash collision, see
 * {@link dev.cellrate.table.KeyHash}).
 * <p>
 * Concurrency: any thread may call any method. A decision on a present key is lock-free: a probe of key
 * words, a validated TAT read and, if admitted, one CAS on the TAT word (the table's one slot loop,
 * {@link SlotLoop}). A new key takes its shard's insert lock for one probe chain (see {@link SlotTable}); a
 * request answered {@link Result#NEVER} claims nothing.
 * <p>
 * Eviction: a key whose TAT &le; E - idleGrace is idle, equivalent to an absent key, and its slot may be
 * reused, where E = min(the request's {@code nowNs}, {@link #clock()}): no caller's time can evict a key that
 * is active by the clock, so a client never silently gets a fresh burst. The grace must cover the skew
 * between concurrent callers' {@code nowNs}, and {@code nowNs} must be on {@link #clock()} (or behind it).
 * <p>
 * Codes: {@link Result#ADMITTED}, a positive retry-after in ns, {@link Result#NEVER}, and when the table is
 * full the code of the {@link TableFullPolicy}: {@link Result#TABLE_FULL}, {@link Result#ADMITTED_TABLE_FULL},
 * {@link Result#ADMITTED_OVERFLOW} or {@link Result#REJECTED_OVERFLOW} (the keyed range of {@link Result}).
 * {@link Result#isAdmitted(long)} counts the two {@code ADMITTED_*} codes as admissions.
 * A {@link Decision} holder is filled from the cell that decided (the overflow cell under {@code OVERFLOW},
 * so its retry-after is usable); under {@code ADMIT} it is filled as an admission with a full bucket.
 */
public final class KeyedRateLimiter implements KeyedDebitLimiter
{
    private final SlotTable table;
    private final Step step;
    private final Limit limit;
    private final long emissionIntervalNs;
    private final long ceilingNs;
    private final TableFullPolicy policy;
    private final NanoClock clock;

    KeyedRateLimiter(
        final Limit limit,
        final TableFullPolicy policy,
        final NanoClock clock,
        final int shardCount,
        final int slotCount,
        final int probeBound,
        final long idleGraceNs,
        final long secret0,
        final long secret1)
    {
        this.limit = limit;
        this.policy = policy;
        this.clock = clock;
        this.table =
            new SlotTable(shardCount, slotCount / shardCount, probeBound, idleGraceNs, secret0, secret1, clock);
        this.step = new Step(table);
        this.emissionIntervalNs = limit.emissionIntervalNs();
        this.ceilingNs = limit.ceilingNs();
    }

    /**
     * @param limit the limit every key gets.
     * @return a builder with the defaults documented on {@link KeyedRateLimiterBuilder}.
     */
    public static KeyedRateLimiterBuilder builder(final Limit limit)
    {
        return new KeyedRateLimiterBuilder(limit);
    }

    /**
     * @param key     the key.
     * @param permits the cost; outside [1, burst] it is {@link Result#NEVER} (and no cell is claimed).
     * @param nowNs   the time of the request, ns.
     * @return as {@link #tryAcquire(long, long)}.
     */
    public long tryAcquire(final long key, final long permits, final long nowNs)
    {
        return charge(table.keyWord(key), limit.incrementNs(permits), nowNs, null);
    }

    /**
     * @param key      the key.
     * @param permits  the cost.
     * @param nowNs    the time of the request, ns.
     * @param decision a caller-owned holder, filled in place.
     * @return as {@link #tryAcquire(long, long)}.
     */
    public long tryAcquire(final long key, final long permits, final long nowNs, final Decision decision)
    {
        return charge(table.keyWord(key), limit.incrementNs(permits), nowNs, decision);
    }

    /**
     * @param key     the key, as its UTF-8 bytes.
     * @param permits the cost.
     * @param nowNs   the time of the request, ns.
     * @return as {@link #tryAcquire(long, long)}.
     */
    public long tryAcquire(final CharSequence key, final long permits, final long nowNs)
    {
        return charge(table.keyWord(key), limit.incrementNs(permits), nowNs, null);
    }

    /**
     * @param key      the key, as its UTF-8 bytes.
     * @param permits  the cost.
     * @param nowNs    the time of the request, ns.
     * @param decision a caller-owned holder, filled in place.
     * @return as {@link #tryAcquire(long, long)}.
     */
    public long tryAcquire(final CharSequence key, final long permits, final long nowNs, final Decision decision)
    {
        return charge(table.keyWord(key), limit.incrementNs(permits), nowNs, decision);
    }

    /**
     * @param key     array holding the key bytes.
     * @param offset  first byte.
     * @param length  byte count.
     * @param permits the cost.
     * @param nowNs   the time of the request, ns.
     * @return as {@link #tryAcquire(long, long)}.
     */
    public long tryAcquire(final byte[] key, final int offset, final int length, final long permits, final long nowNs)
    {
        return charge(table.keyWord(key, offset, length), limit.incrementNs(permits), nowNs, null);
    }

    /**
     * @param key      array holding the key bytes.
     * @param offset   first byte.
     * @param length   byte count.
     * @param permits  the cost.
     * @param nowNs    the time of the request, ns.
     * @param decision a caller-owned holder, filled in place.
     * @return as {@link #tryAcquire(long, long)}.
     */
    public long tryAcquire(
        final byte[] key, final int offset, final int length, final long permits, final long nowNs,
        final Decision decision)
    {
        return charge(table.keyWord(key, offset, length), limit.incrementNs(permits), nowNs, decision);
    }

    /**
     * @param key     buffer holding the key bytes.
     * @param offset  first byte.
     * @param length  byte count.
     * @param permits the cost.
     * @param nowNs   the time of the request, ns.
     * @return as {@link #tryAcquire(long, long)}.
     */
    public long tryAcquire(
        final DirectBuffer key, final int offset, final int length, final long permits, final long nowNs)
    {
        return charge(table.keyWord(key, offset, length), limit.incrementNs(permits), nowNs, null);
    }

    /**
     * @param key      buffer holding the key bytes.
     * @param offset   first byte.
     * @param length   byte count.
     * @param permits  the cost.
     * @param nowNs    the time of the request, ns.
     * @param decision a caller-owned holder, filled in place.
     * @return as {@link #tryAcquire(long, long)}.
     */
    public long tryAcquire(
        final DirectBuffer key, final int offset, final int length, final long permits, final long nowNs,
        final Decision decision)
    {
        return charge(table.keyWord(key, offset, length), limit.incrementNs(permits), nowNs, decision);
    }

    /**
     * Decide on a key word already computed by {@link SlotTable#keyWord} of {@link #table()} (callers that
     * hash once and decide on several limiters sharing a secret, or that cache the word).
     *
     * @param keyWord the key word.
     * @param permits the cost.
     * @param nowNs   the time of the request, ns.
     * @return as {@link #tryAcquire(long, long)}.
     */
    public long tryAcquireKeyWord(final long keyWord, final long permits, final long nowNs)
    {
        return charge(keyWord, limit.incrementNs(permits), nowNs, null);
    }

    /**
     * Reclaim idle keys for users with their own timer (inserts already sweep a few slots each).
     *
     * @param nowNs    the time, on the same clock as the decisions.
     * @param maxSlots slots to visit.
     * @return idle keys reclaimed.
     */
    public int sweep(final long nowNs, final int maxSlots)
    {
        return table.sweep(nowNs, maxSlots);
    }

    /**
     * @return keys holding a slot (approximate while inserts run; idle keys count until swept or reused).
     */
    public long liveKeys()
    {
        return table.liveKeys();
    }

    /**
     * @return idle keys reclaimed since construction.
     */
    public long evictions()
    {
        return table.evictions();
    }

    /**
     * @return requests that found the table full (each answered by the policy's code).
     */
    public long tableFullEvents()
    {
        return table.tableFullEvents();
    }

    /**
     * @return failed TAT CASes (contention on hot keys).
     */
    public long casRetries()
    {
        return table.casRetries();
    }

    /**
     * @return the TAT of the key's cell, or {@link SlotTable#STALE} if the key has no cell (tests, diagnostics).
     */
    long tatNsOf(final long keyWord)
    {
        return table.tatNs(keyWord);
    }

    /**
     * @return the table (slot API, seed, shape).
     */
    public SlotTable table()
    {
        return table;
    }

    /**
     * @return the limit of every key.
     */
    public Limit limit()
    {
        return limit;
    }

    /**
     * @return the table-full policy.
     */
    public TableFullPolicy policy()
    {
        return policy;
    }

    /**
     * @return the clock of the clock forms.
     */
    public NanoClock clock()
    {
        return clock;
    }

    /**
     * @param key     the key.
     * @param permits the cost.
     * @param nowNs   the time, ns.
     * @return see {@link KeyedDebitLimiter#peek(long, long, long)}.
     */
    public long peek(final long key, final long permits, final long nowNs)
    {
        return peekWord(table.keyWord(key), limit.incrementNs(permits), nowNs);
    }

    /**
     * @param key     the key, as its UTF-8 bytes.
     * @param permits the cost.
     * @param nowNs   the time, ns.
     * @return see {@link KeyedDebitLimiter#peek(long, long, long)}.
     */
    public long peek(final CharSequence key, final long permits, final long nowNs)
    {
        return peekWord(table.keyWord(key), limit.incrementNs(permits), nowNs);
    }

    /**
     * @param key     the key.
     * @param permits the cost learned after the fact.
     * @param nowNs   the time, ns.
     * @return see {@link KeyedDebitLimiter#debit(long, long, long)}.
     */
    public long debit(final long key, final long permits, final long nowNs)
    {
        return debitWord(table.keyWord(key), permits, nowNs);
    }

    /**
     * @param key     the key, as its UTF-8 bytes.
     * @param permits the cost learned after the fact.
     * @param nowNs   the time, ns.
     * @return see {@link KeyedDebitLimiter#debit(long, long, long)}.
     */
    public long debit(final CharSequence key, final long permits, final long nowNs)
    {
        return debitWord(table.keyWord(key), permits, nowNs);
    }

    private long peekWord(final long keyWord, final long incrementNs, final long nowNs)
    {
        // An absent key (or one mid-reclaim) reads as Long.MIN_VALUE: a full bucket.
        return incrementNs < 1 ? Result.NEVER : Gcra.decide(table.tatNs(keyWord), nowNs, incrementNs, ceilingNs);
    }

    /**
     * A debit through the one slot loop: a charge against the debt ceiling instead of the ceiling. When the
     * whole cost does not fit under the debt ceiling the loop answers by how much ({@code r}); the part that
     * fits, {@code I - r}, is charged next, so the word ends at the debt ceiling at most.
     */
    private long debitWord(final long keyWord, final long permits, final long nowNs)
    {
        long incrementNs = limit.debitIncrementNs(permits);
        if (incrementNs < 1)
        {
            return Result.NEVER;
        }
        final long debtCeilingNs = limit.debtCeilingNs();
        while (true)
        {
            final long code = step.charge(keyWord, incrementNs, debtCeilingNs, nowNs, null);
            if (code <= 0)
            {
                if (Result.ADMITTED != code)
                {
                    return code;
                }
                break;
            }
            incrementNs -= code;
            if (incrementNs < 1)
            {
                break;
            }
        }
        return Gcra.retryAfterNs(table.tatNs(keyWord), nowNs, emissionIntervalNs, ceilingNs);
    }

    private long charge(final long keyWord, final long incrementNs, final long nowNs, final Decision decision)
    {
        return step.charge(keyWord, incrementNs, ceilingNs, nowNs, decision);
    }

    /**
     * What the limiter does with the slot loop's outcome: fill the caller's {@link Decision}, if any, and
     * apply the table-full policy.
     */
    private final class Step extends SlotLoop<Decision>
    {
        Step(final SlotTable table)
        {
            super(table);
        }

        protected long admitted(
            final Decision decision,
            final long keyWord,
            final long tatBeforeNs,
            final long tatAfterNs,
            final long incrementNs,
            final long nowNs)
        {
            return fill(decision, Result.ADMITTED, tatAfterNs, nowNs, Result.ADMITTED);
        }

        protected long rejected(final Decision decision, final long retryAfterNs, final long tatNs, final long nowNs)
        {
            return fill(decision, retryAfterNs, tatNs, nowNs, retryAfterNs);
        }

        protected long tableFull(final Decision decision, final long incrementNs, final long nowNs)
        {
            if (TableFullPolicy.REJECT == policy)
            {
                return fill(decision, Result.TABLE_FULL, Long.MIN_VALUE, nowNs, Result.TABLE_FULL);
            }
            if (TableFullPolicy.ADMIT == policy)
            {
                return fill(decision, Result.ADMITTED, Long.MIN_VALUE, nowNs, Result.ADMITTED_TABLE_FULL);
            }
            final long code = table.chargeOverflow(incrementNs, ceilingNs, nowNs);
            if (null != decision)
            {
                decision.set(code, table.overflowTatNs(), nowNs, limit);
            }
            return Result.ADMITTED == code ? Result.ADMITTED_OVERFLOW : Result.REJECTED_OVERFLOW;
        }
    }

    private long fill(
        final Decision decision, final long cellCode, final long tatNs, final long nowNs, final long code)
    {
        if (null != decision)
        {
            decision.set(cellCode, tatNs, nowNs, limit);
        }
        return code;
    }
}
