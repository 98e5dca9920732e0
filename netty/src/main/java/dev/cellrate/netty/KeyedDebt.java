package dev.cellrate.netty;

import dev.cellrate.check.Bounds;
import dev.cellrate.Limit;
import dev.cellrate.Result;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * An interim keyed {@link DebtLimiter}: one GCRA TAT per hash bucket in an {@link AtomicLongArray}
 * (allocation-free, lock-free: one volatile read per {@code peek}, one CAS per {@code debit}).
 * {@code peek} admits while the bucket's TAT is within the tolerance, exactly where GCRA would admit one
 * permit; {@code debit} pushes the TAT by {@code permits * T} from {@code max(TAT, now)}, bounded at
 * {@code now + &tau; + T + maxDebtNs}, so a key is never refused for longer than {@code maxDebtNs} past a
 * full refill.
 * <p>
 * Buckets are not keyed: two keys that hash to one bucket share its budget. That errs on the refusing side
 * (never over-admits); size the array well above the number of active keys. {@link EngineDebt} is the exact
 * per-key form on the engine's keyed table; this one offers a configurable debt bound.
 */
public final class KeyedDebt implements DebtLimiter
{
    private static final long FULL = Long.MIN_VALUE;

    private final AtomicLongArray tats;
    private final int mask;
    private final long seed;
    private final Limit limit;
    private final long emissionIntervalNs;
    private final long toleranceNs;
    private final long boundNs;
    private final long maxPermits;

    /**
     * @param limit     the limit of every key.
     * @param buckets   number of buckets, a power of two in [1, 2<sup>26</sup>].
     * @param maxDebtNs the most debt a key can build past a full refill, in [0, 2<sup>61</sup>].
     * @param seed      hash seed.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public KeyedDebt(final Limit limit, final int buckets, final long maxDebtNs, final long seed)
    {
        if (null == limit)
        {
            throw new IllegalArgumentException("limit must not be null");
        }
        Bounds.requireRange("buckets", buckets, 1, 1 << 26);
        if (Integer.bitCount(buckets) != 1)
        {
            throw new IllegalArgumentException("buckets must be a power of two but was " + buckets);
        }
        Bounds.requireRange("maxDebtNs", maxDebtNs, 0, 1L << 61);
        this.limit = limit;
        this.tats = new AtomicLongArray(buckets);
        for (int i = 0; i < buckets; i++)
        {
            tats.set(i, FULL);
        }
        this.mask = buckets - 1;
        this.seed = seed;
        this.emissionIntervalNs = limit.emissionIntervalNs();
        this.toleranceNs = limit.toleranceNs();
        this.boundNs = limit.ceilingNs() + maxDebtNs; // <= 2^62 + 2^61: no overflow
        this.maxPermits = boundNs / emissionIntervalNs + 1;
    }

    public long peek(final byte[] key, final int offset, final int length, final long nowNs)
    {
        final long tatNs = tats.get(bucket(key, offset, length));
        if (tatNs <= nowNs)
        {
            return Result.ADMITTED;
        }
        final long lagNs = tatNs - nowNs;
        if (lagNs < 0)
        {
            return Long.MAX_VALUE; // the true lag overflowed: far in debt
        }
        final long excessNs = lagNs - toleranceNs;
        return excessNs > 0 ? excessNs : Result.ADMITTED;
    }

    public long debit(final byte[] key, final int offset, final int length, final long permits, final long nowNs)
    {
        if (permits < 1)
        {
            return Result.ADMITTED;
        }
        final int i = bucket(key, offset, length);
        final long incrementNs = Math.min(permits, maxPermits) * emissionIntervalNs;
        final long capNs = nowNs > Long.MAX_VALUE - boundNs ? Long.MAX_VALUE : nowNs + boundNs;
        while (true)
        {
            final long tatNs = tats.get(i);
            final long baseNs = Math.max(tatNs, nowNs);
            // base >= now and cap <= now + bound, so cap - base cannot overflow when base < cap
            final long nextNs = baseNs >= capNs ? tatNs : (capNs - baseNs <= incrementNs ? capNs : baseNs + incrementNs);
            if (nextNs == tatNs || tats.compareAndSet(i, tatNs, nextNs))
            {
                return Result.ADMITTED;
            }
        }
    }

    public long resetAfterNs(final byte[] key, final int offset, final int length, final long nowNs)
    {
        final long tatNs = tats.get(bucket(key, offset, length));
        if (tatNs <= nowNs)
        {
            return 0;
        }
        final long lagNs = tatNs - nowNs;
        return lagNs < 0 ? Long.MAX_VALUE : lagNs;
    }

    public Limit limit()
    {
        return limit;
    }

    private int bucket(final byte[] key, final int offset, final int length)
    {
        long h = seed ^ 0xcbf29ce484222325L;
        for (int i = offset, end = offset + length; i < end; i++)
        {
            h = (h ^ (key[i] & 0xFF)) * 0x100000001b3L;
        }
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        return (int)h & mask;
    }
}
