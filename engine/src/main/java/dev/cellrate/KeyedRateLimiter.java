package dev.cellrate;

import dev.cellrate.layout.CellArray;
import dev.cellrate.gcra.Gcra;
import dev.cellrate.table.SlotLoop;
import dev.cellrate.table.SlotTable;
import org.agrona.BufferUtil;
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
public final class KeyedRateLimiter extends TableFront implements KeyedDebitLimiter
{
    private final DecisionLoop step;
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
        final int slotsPerShard,
        final int probeBound,
        final long idleGraceNs,
        final long secret0,
        final long secret1)
    {
        this(limit, policy, clock,
            new SlotTable(shardCount, slotsPerShard, probeBound, idleGraceNs, secret0, secret1, clock));
    }

    /** Over a table the builder made (a mapped file's). */
    KeyedRateLimiter(final Limit limit, final TableFullPolicy policy, final NanoClock clock, final SlotTable table)
    {
        super(table);
        this.limit = limit;
        this.policy = policy;
        this.clock = clock;
        this.step = new DecisionLoop(table, limit, policy);
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
        return chargeHashed(table.keyWord(key), limit.incrementNs(permits), nowNs, null);
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
        return chargeHashed(table.keyWord(key), limit.incrementNs(permits), nowNs, decision);
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
        return chargeHashed(table.keyWord(key, offset, length), limit.incrementNs(permits), nowNs, null);
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
        return chargeHashed(table.keyWord(key, offset, length), limit.incrementNs(permits), nowNs, decision);
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
        return chargeHashed(table.keyWord(key, offset, length), limit.incrementNs(permits), nowNs, null);
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
        return chargeHashed(table.keyWord(key, offset, length), limit.incrementNs(permits), nowNs, decision);
    }

    /**
     * Decide a batch of long keys in one call: exactly the codes of one {@code tryAcquire(keys[i], permits,
     * nowNs)} per key in index order (a key repeated in the batch is charged once per occurrence, in order),
     * but faster on a table larger than the caches: every key's word is computed first, then, 64 keys at a
     * time, every key's home line is touched, so the cache misses of the group overlap instead of following
     * one another, and the keys are decided one by one on lines already on their way to the core. A gateway event loop that read
     * many requests in one wake-up, or an order gateway with a burst of orders, calls this once.
     * Allocation-free; {@code codesOut} doubles as the scratch space for the key words.
     *
     * @param keys     the keys; {@code keys[0 .. count)} are decided.
     * @param count    how many keys, in [0, min(keys.length, codesOut.length)].
     * @param permits  the cost of each key.
     * @param nowNs    the time of the requests, ns.
     * @param codesOut receives the code of {@code keys[i]} at index i (as {@link #tryAcquire(long, long, long)}).
     * @throws IndexOutOfBoundsException if count does not fit both arrays (nothing is decided).
     */
    public void tryAcquire(
        final long[] keys, final int count, final long permits, final long nowNs, final long[] codesOut)
    {
        KeyedBatch.check(count, keys.length, codesOut.length);
        final SlotTable table = this.table;
        for (int i = 0; i < count; i++)
        {
            codesOut[i] = table.keyWord(keys[i]);
        }
        KeyedBatch.decide(step, table, count, limit.incrementNs(permits), ceilingNs, nowNs, codesOut);
    }

    /**
     * Decide a batch of byte keys held in one array (e.g. the read buffer of a connection): key i is
     * {@code keys[offsets[i] .. offsets[i] + lengths[i])}. Same codes as one
     * {@link #tryAcquire(byte[], int, int, long, long)} per key in index order; every key's bytes are touched
     * (so cold keys miss together), then the keys are hashed and their slots touched, then decided (see
     * {@link #tryAcquire(long[], int, long, long, long[])}).
     *
     * @param keys     the array holding every key's bytes.
     * @param offsets  first byte of each key.
     * @param lengths  byte count of each key.
     * @param count    how many keys, in [0, min(offsets.length, lengths.length, codesOut.length)].
     * @param permits  the cost of each key.
     * @param nowNs    the time of the requests, ns.
     * @param codesOut receives the code of key i at index i.
     * @throws IndexOutOfBoundsException if count does not fit the arrays or a key's range does not fit
     *                                   {@code keys} (nothing is decided: every range is checked before any decision).
     */
    public void tryAcquire(
        final byte[] keys, final int[] offsets, final int[] lengths, final int count, final long permits,
        final long nowNs, final long[] codesOut)
    {
        KeyedBatch.check(count, Math.min(offsets.length, lengths.length), codesOut.length);
        KeyedBatch.touchKeys(keys, BufferUtil.ARRAY_BASE_OFFSET, keys.length, offsets, lengths, count, codesOut);
        table.keyWords(keys, offsets, lengths, count, codesOut);
        KeyedBatch.decide(step, table, count, limit.incrementNs(permits), ceilingNs, nowNs, codesOut);
    }

    /**
     * As {@link #tryAcquire(byte[], int[], int[], int, long, long, long[])} for keys in a {@link DirectBuffer}.
     *
     * @param keys     the buffer holding every key's bytes.
     * @param offsets  first byte of each key.
     * @param lengths  byte count of each key.
     * @param count    how many keys, in [0, min(offsets.length, lengths.length, codesOut.length)].
     * @param permits  the cost of each key.
     * @param nowNs    the time of the requests, ns.
     * @param codesOut receives the code of key i at index i.
     * @throws IndexOutOfBoundsException if count does not fit the arrays or a key's range does not fit the
     *                                   buffer (nothing is decided).
     */
    public void tryAcquire(
        final DirectBuffer keys, final int[] offsets, final int[] lengths, final int count, final long permits,
        final long nowNs, final long[] codesOut)
    {
        KeyedBatch.check(count, Math.min(offsets.length, lengths.length), codesOut.length);
        KeyedBatch.touchKeys(keys.byteArray(), keys.addressOffset(), keys.capacity(), offsets, lengths, count, codesOut);
        table.keyWords(keys, offsets, lengths, count, codesOut);
        KeyedBatch.decide(step, table, count, limit.incrementNs(permits), ceilingNs, nowNs, codesOut);
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
    long tryAcquireKeyWord(final long keyWord, final long permits, final long nowNs)
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
     * @return the TAT of the key's cell, or {@link SlotTable#STALE} if the key has no cell (tests, diagnostics).
     */
    long tatNsOf(final long keyWord)
    {
        return table.tatNs(keyWord);
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
     * @param key     the key's bytes.
     * @param offset  the first byte.
     * @param length  the number of bytes.
     * @param permits the cost.
     * @param nowNs   the time, ns.
     * @return see {@link KeyedDebitLimiter#peek(long, long, long)}.
     */
    public long peek(final byte[] key, final int offset, final int length, final long permits, final long nowNs)
    {
        return peekWord(table.keyWord(key, offset, length), limit.incrementNs(permits), nowNs);
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

    /**
     * @param key     the key's bytes.
     * @param offset  the first byte.
     * @param length  the number of bytes.
     * @param permits the cost learned after the fact.
     * @param nowNs   the time, ns.
     * @return see {@link KeyedDebitLimiter#debit(long, long, long)}.
     */
    public long debit(final byte[] key, final int offset, final int length, final long permits, final long nowNs)
    {
        return debitWord(table.keyWord(key, offset, length), permits, nowNs);
    }

    /**
     * Give permits back to a key (a request that did not happen after all, Envoy's negative hits): the key's
     * TAT goes down by {@code permits * T}, but never below {@code nowNs}, so a refund never makes credit beyond
     * a full bucket, and never below a value an earlier key of the key's slot held, so it can never reach a key
     * that took the slot over ({@link SlotLoop#refundAtMost}; the argument: docs/keyed-table.md, "ABA"). A key
     * with no cell is a full bucket: it gets nothing, and no cell is claimed. On a table in a mapped file the
     * refund is the file's, seen by every process on it. Lock-free, allocation-free (the first refund on a mapped
     * file writes its high-water marks into the file once).
     *
     * @param key     the key.
     * @param permits the permits to give back, &ge; 1.
     * @param nowNs   the time, ns.
     * @return the time given back in ns, in [0, permits &times; T] (0: nothing to give back), or
     * {@link Result#NEVER} if {@code permits < 1}.
     */
    public long refund(final long key, final long permits, final long nowNs)
    {
        return refundWord(table.keyWord(key), permits, nowNs);
    }

    /**
     * @param key     the key, as its UTF-8 bytes.
     * @param permits the permits to give back, &ge; 1.
     * @param nowNs   the time, ns.
     * @return as {@link #refund(long, long, long)}.
     */
    public long refund(final CharSequence key, final long permits, final long nowNs)
    {
        return refundWord(table.keyWord(key), permits, nowNs);
    }

    private long refundWord(final long keyWord, final long permits, final long nowNs)
    {
        if (permits < 1)
        {
            return Result.NEVER;
        }
        final long decrementNs = permits > Long.MAX_VALUE / emissionIntervalNs ?
            Long.MAX_VALUE : permits * emissionIntervalNs;
        return step.refundAtMost(keyWord, decrementNs, nowNs);
    }

    private long peekWord(final long keyWord, final long incrementNs, final long nowNs)
    {
        // An absent key (or one mid-reclaim) reads as a new key would start at nowNs: the initial fill, or
        // SlotTable.STALE = CellArray.FRESH_TAT_NS (a full bucket) by default.
        return incrementNs < 1 ? Result.NEVER
            : Gcra.decide(table.peekTatNs(keyWord, nowNs), nowNs, incrementNs, ceilingNs);
    }

    /**
     * A debit through the one slot loop: a charge against the debt ceiling instead of the ceiling. When the
     * whole cost does not fit under the debt ceiling the loop answers by how much ({@code r}); the part that
     * fits, {@code I - r}, is charged next, so the word ends at the debt ceiling at most. A cost below one
     * permit has the increment {@code NEVER}, which the loop answers {@code NEVER} with nothing claimed.
     */
    private long debitWord(final long keyWord, final long permits, final long nowNs)
    {
        long incrementNs = limit.debitIncrementNs(permits);
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

    /** A hashed key (characters, bytes): the home line's slot is selected without a branch (SlotLoop). */
    private long chargeHashed(final long keyWord, final long incrementNs, final long nowNs, final Decision decision)
    {
        return step.chargeBranchless(keyWord, incrementNs, ceilingNs, nowNs, decision);
    }
}
