package dev.cellrate.gcra;

import dev.cellrate.Decision;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.AtomicBuffer;

/**
 * The lock-free loop that applies {@link Gcra} to one TAT word in an {@link AtomicBuffer}; every limiter
 * whose state is one GCRA word (single cell, table slot, shaper) charges through here.
 * <p>
 * Concurrency: the word is read with {@code getLongAcquire} and written only by {@code compareAndExchangeLong}
 * (a volatile CAS), whose release half pairs with the acquire read of the next decider. A rejection is
 * decided on the value read and writes nothing, so a flood of rejections leaves the cache line shared. An
 * admission is linearised at its successful CAS; a failed CAS returns the winner's value and the loop
 * decides again on it, so no admission is lost and none is counted twice.
 */
public final class AtomicGcra
{
    private AtomicGcra()
    {
    }

    /**
     * Charge {@code incrementNs} to the word at {@code offset} if the request conforms.
     *
     * @param buffer      the buffer holding the word.
     * @param offset      the word's offset (8-byte aligned).
     * @param incrementNs {@code n * T} in [1, ceilingNs], or {@link Result#NEVER} for an impossible cost.
     * @param ceilingNs   {@code &tau; + T}.
     * @param nowNs       the time of the request.
     * @return {@link Result#ADMITTED}, a positive retry-after in ns, or {@link Result#NEVER}.
     */
    public static long acquire(
        final AtomicBuffer buffer, final int offset, final long incrementNs, final long ceilingNs, final long nowNs)
    {
        if (incrementNs < 1)
        {
            return Result.NEVER;
        }
        long tatNs = buffer.getLongAcquire(offset);
        while (true)
        {
            final long retryAfterNs = Gcra.retryAfterNs(tatNs, nowNs, incrementNs, ceilingNs);
            if (retryAfterNs > 0)
            {
                return retryAfterNs;
            }
            final long nextTatNs = Gcra.nextTatNs(tatNs, nowNs, incrementNs);
            if (Gcra.UNREPRESENTABLE == nextTatNs)
            {
                return Result.NEVER;
            }
            final long witnessNs = buffer.compareAndExchangeLong(offset, tatNs, nextTatNs);
            if (witnessNs == tatNs)
            {
                return Result.ADMITTED;
            }
            tatNs = witnessNs;
        }
    }

    /**
     * {@link #acquire(AtomicBuffer, int, long, long, long)} on a word given by its base object and address
     * ({@code buffer.byteArray()}, {@code buffer.addressOffset() + offset}), as the single-cell limiter holds
     * them: the same decision and the same codes, on one acquire load and one CAS with nothing else on the
     * path (no bounds check, no interface type check, no reload of the buffer's fields after the acquire).
     * The caller keeps the buffer reachable and guarantees the address is an 8-aligned word inside it.
     * <p>
     * Arithmetic: next = max(TAT, t) + I and due = next - t = lag + I. If next did not overflow (next &gt; base,
     * which also rules out I &lt; 1) and due &gt; 0, due is exact, so the request conforms iff due &le; ceiling
     * and its retry-after is due - ceiling; every other case (saturated lag, unrepresentable TAT, impossible
     * cost) is decided by {@link Gcra}'s saturating functions on the same TAT.
     *
     * @param base        the buffer's array, or null for off-heap memory.
     * @param address     the word's address (relative to {@code base}).
     * @param incrementNs {@code n * T} in [1, ceilingNs], or {@link Result#NEVER} for an impossible cost.
     * @param ceilingNs   {@code &tau; + T}.
     * @param nowNs       the time of the request.
     * @return {@link Result#ADMITTED}, a positive retry-after in ns, or {@link Result#NEVER}.
     */
    public static long acquireAt(
        final Object base, final long address, final long incrementNs, final long ceilingNs, final long nowNs)
    {
        long tatNs = UnsafeApi.getLongAcquire(base, address);
        while (true)
        {
            final long baseNs = Math.max(tatNs, nowNs);
            long nextTatNs = baseNs + incrementNs;
            final long dueNs = nextTatNs - nowNs;
            if (nextTatNs <= baseNs || dueNs <= 0)
            {
                if (incrementNs < 1)
                {
                    return Result.NEVER;
                }
                final long retryAfterNs = Gcra.retryAfterNs(tatNs, nowNs, incrementNs, ceilingNs);
                if (retryAfterNs > 0)
                {
                    return retryAfterNs;
                }
                nextTatNs = Gcra.nextTatNs(tatNs, nowNs, incrementNs);
                if (Gcra.UNREPRESENTABLE == nextTatNs)
                {
                    return Result.NEVER;
                }
            }
            else if (dueNs > ceilingNs)
            {
                return dueNs - ceilingNs;
            }
            final long witnessNs = UnsafeApi.compareAndExchangeLong(base, address, tatNs, nextTatNs);
            if (witnessNs == tatNs)
            {
                return Result.ADMITTED;
            }
            tatNs = witnessNs;
        }
    }

    /**
     * As {@link #acquire(AtomicBuffer, int, long, long, long)}, and fill {@code decision} from the TAT the
     * decision saw (after charging, if admitted).
     *
     * @param buffer   the buffer holding the word.
     * @param offset   the word's offset (8-byte aligned).
     * @param limit    the limit of the word.
     * @param permits  the cost.
     * @param nowNs    the time of the request.
     * @param decision filled with the outcome.
     * @return the same code as {@link #acquire(AtomicBuffer, int, long, long, long)}.
     */
    public static long acquire(
        final AtomicBuffer buffer,
        final int offset,
        final Limit limit,
        final long permits,
        final long nowNs,
        final Decision decision)
    {
        final long incrementNs = limit.incrementNs(permits);
        final long ceilingNs = limit.ceilingNs();
        long tatNs = buffer.getLongAcquire(offset);
        long code;
        while (true)
        {
            if (incrementNs < 1)
            {
                code = Result.NEVER;
                break;
            }
            code = Gcra.retryAfterNs(tatNs, nowNs, incrementNs, ceilingNs);
            if (code > 0)
            {
                break;
            }
            final long nextTatNs = Gcra.nextTatNs(tatNs, nowNs, incrementNs);
            if (Gcra.UNREPRESENTABLE == nextTatNs)
            {
                code = Result.NEVER;
                break;
            }
            final long witnessNs = buffer.compareAndExchangeLong(offset, tatNs, nextTatNs);
            if (witnessNs == tatNs)
            {
                tatNs = nextTatNs;
                code = Result.ADMITTED;
                break;
            }
            tatNs = witnessNs;
        }
        decision.set(code, tatNs, nowNs, limit);
        return code;
    }
}
