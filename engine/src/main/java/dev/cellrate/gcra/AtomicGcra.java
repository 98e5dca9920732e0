package dev.cellrate.gcra;

import dev.cellrate.Result;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.AtomicBuffer;

/**
 * The one lock-free loop that applies {@link Gcra} to one TAT word in an {@link AtomicBuffer}: every
 * single-cell GCRA front (RateLimiter, PayLaterRateLimiter, the keyed overflow cell) charges, peeks and debits
 * through here; the fronts supply only the increment and the ceiling.
 * <p>
 * Concurrency: the word is read with {@code getLongAcquire} and written only by {@code compareAndExchangeLong}
 * (a volatile CAS), whose release half pairs with the acquire read of the next decider. A rejection is
 * decided on the value read and writes nothing, so a flood of rejections leaves the cache line shared. An
 * admission is linearised at its successful CAS; a failed CAS returns the winner's value and the loop
 * decides again on it, so no admission is lost and none is counted twice. A debit is the same loop with a
 * different step ({@link Gcra#debitTatNs}); it never lowers a TAT.
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
        return loop(buffer, offset, incrementNs, ceilingNs, 0, nowNs, null, (CellStep<Object>)null);
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
     * As {@link #acquire(AtomicBuffer, int, long, long, long)} with a {@code ceilingNs} that depends on the
     * cost (pay-later) and an optional holder.
     *
     * @param buffer      the buffer holding the word.
     * @param offset      the word's offset (8-byte aligned).
     * @param incrementNs the charge, &ge; 1, or &lt; 1 for an impossible cost.
     * @param ceilingNs   the largest lag after the charge.
     * @param nowNs       the time of the request.
     * @param holder      the caller's holder, or null.
     * @param step        what the front does with the outcome when {@code holder} is not null.
     * @param <H>         the holder's type.
     * @return the same code as {@link #acquire(AtomicBuffer, int, long, long, long)}.
     */
    public static <H> long acquire(
        final AtomicBuffer buffer,
        final int offset,
        final long incrementNs,
        final long ceilingNs,
        final long nowNs,
        final H holder,
        final CellStep<H> step)
    {
        return loop(buffer, offset, incrementNs, ceilingNs, 0, nowNs, holder, step);
    }

    /**
     * What {@link #acquire(AtomicBuffer, int, long, long, long)} would answer now, without charging.
     *
     * @param buffer      the buffer holding the word.
     * @param offset      the word's offset.
     * @param incrementNs the cost, or &lt; 1 for an impossible one.
     * @param ceilingNs   {@code &tau; + T}.
     * @param nowNs       the time.
     * @return {@link Result#ADMITTED}, a positive retry-after in ns, or {@link Result#NEVER}.
     */
    public static long peek(
        final AtomicBuffer buffer, final int offset, final long incrementNs, final long ceilingNs, final long nowNs)
    {
        return incrementNs < 1 ? Result.NEVER : Gcra.decide(buffer.getLongAcquire(offset), nowNs, incrementNs,
            ceilingNs);
    }

    /**
     * Charge {@code incrementNs} after the fact, whether or not it conforms; the debt is bounded by
     * {@link Gcra#debitTatNs} at {@code debtCeilingNs}.
     *
     * @param buffer        the buffer holding the word.
     * @param offset        the word's offset.
     * @param incrementNs   the charge, &ge; 1, or &lt; 1 for an impossible cost (nothing charged).
     * @param ceilingNs     {@code &tau; + T}.
     * @param debtCeilingNs the largest lag a debit may leave (see {@link Gcra#debtCeilingNs}).
     * @param unitNs        T: the answer is for a one-permit request.
     * @param nowNs         the time of the debit.
     * @return {@link Result#ADMITTED} if a one-permit request would still conform after the charge, else
     * the ns until it would (the time to pay the debt back); {@link Result#NEVER} for an impossible cost.
     */
    public static long debit(
        final AtomicBuffer buffer,
        final int offset,
        final long incrementNs,
        final long ceilingNs,
        final long debtCeilingNs,
        final long unitNs,
        final long nowNs)
    {
        if (incrementNs < 1)
        {
            return Result.NEVER;
        }
        loop(buffer, offset, incrementNs, ceilingNs, debtCeilingNs, nowNs, null, (CellStep<Object>)null);
        return Gcra.retryAfterNs(buffer.getLongAcquire(offset), nowNs, unitNs, ceilingNs);
    }

    private static <H> long loop(
        final AtomicBuffer buffer,
        final int offset,
        final long incrementNs,
        final long ceilingNs,
        final long debtCeilingNs,
        final long nowNs,
        final H holder,
        final CellStep<H> step)
    {
        long tatNs = buffer.getLongAcquire(offset);
        long code = Result.NEVER;
        while (incrementNs >= 1)
        {
            final long nextTatNs;
            if (0 == debtCeilingNs)
            {
                code = Gcra.decide(tatNs, nowNs, incrementNs, ceilingNs);
                if (Result.ADMITTED != code)
                {
                    break;
                }
                nextTatNs = Math.max(tatNs, nowNs) + incrementNs;
            }
            else
            {
                code = Result.ADMITTED;
                nextTatNs = Gcra.debitTatNs(tatNs, nowNs, incrementNs, debtCeilingNs);
            }
            final long witnessNs = buffer.compareAndExchangeLong(offset, tatNs, nextTatNs);
            if (witnessNs == tatNs)
            {
                tatNs = nextTatNs;
                break;
            }
            tatNs = witnessNs;
        }
        if (null != holder)
        {
            step.decided(holder, code, tatNs, nowNs);
        }
        return code;
    }
}
