package dev.cellrate.gcra;

import java.lang.ref.Reference;

import org.agrona.concurrent.AtomicBuffer;

/**
 * The single-cell GCRA operations on one TAT word in an {@link AtomicBuffer}, each a use of the one cell loop
 * ({@link CellLoop}) with the steps that only answer a code: charge ({@link #acquire}, {@link #acquireAt}), peek
 * (one acquire read, no loop) and debit ({@link #debit}, the loop's unconditional update with
 * {@link Gcra#debitTatNs}, which never lowers a TAT). The fronts that fill a holder or carry more through the
 * loop (a composite's next leg, settings that may change) supply their own {@link CellLoop} steps.
 * <p>
 * Concurrency: {@link CellLoop}.
 */
public final class AtomicGcra
{
    /** The loop whose steps answer the code alone (charge, and debit by its default update step). */
    private static final Codes CODES = new Codes();

    /**
     * The code-only steps, each a trivial method (at most HotSpot's {@code MaxTrivialSize}, 6 bytecode bytes), which
     * C2 inlines without asking its profile: the loop's branch profile is shared with every front, so a rejection
     * branch that only other fronts took is compiled into a limiter that has never rejected, and the inherited
     * defaults ({@link #decided} through a call) would stay calls there, being never executed.
     */
    private static final class Codes extends CellLoop<Object>
    {
        @Override
        protected long admitted(
            final Object holder, final long tatBeforeNs, final long tatAfterNs, final long incrementNs,
            final long nowNs)
        {
            return Gcra.ADMITTED;
        }

        @Override
        protected long rejected(final Object holder, final long code, final long tatNs, final long nowNs)
        {
            return code;
        }
    }

    private AtomicGcra()
    {
    }

    /**
     * Charge {@code incrementNs} to the word at {@code offset} if the request conforms.
     *
     * @param buffer      the buffer holding the word.
     * @param offset      the word's offset (8-byte aligned, inside the buffer).
     * @param incrementNs {@code n * T} in [1, ceilingNs], or {@link Gcra#NEVER} for an impossible cost.
     * @param ceilingNs   {@code &tau; + T}.
     * @param nowNs       the time of the request.
     * @return {@link Gcra#ADMITTED}, a positive retry-after in ns, or {@link Gcra#NEVER}.
     */
    public static long acquire(
        final AtomicBuffer buffer, final int offset, final long incrementNs, final long ceilingNs, final long nowNs)
    {
        final long code = CODES.charge(
            buffer.byteArray(), buffer.addressOffset() + offset, incrementNs, ceilingNs, nowNs, null);
        Reference.reachabilityFence(buffer);
        return code;
    }

    /**
     * {@link #acquire(AtomicBuffer, int, long, long, long)} on a word given by its base object and address
     * ({@code buffer.byteArray()}, {@code buffer.addressOffset() + offset}), as the single-cell limiter holds
     * them. The caller keeps the buffer reachable and guarantees the address is an 8-aligned word inside it.
     *
     * @param base        the buffer's array, or null for off-heap memory.
     * @param address     the word's address (relative to {@code base}).
     * @param incrementNs {@code n * T} in [1, ceilingNs], or {@link Gcra#NEVER} for an impossible cost.
     * @param ceilingNs   {@code &tau; + T}.
     * @param nowNs       the time of the request.
     * @return {@link Gcra#ADMITTED}, a positive retry-after in ns, or {@link Gcra#NEVER}.
     */
    public static long acquireAt(
        final Object base, final long address, final long incrementNs, final long ceilingNs, final long nowNs)
    {
        return CODES.charge(base, address, incrementNs, ceilingNs, nowNs, null);
    }

    /**
     * {@link #acquireAt} with the slack precomputed ({@link CellLoop#chargeWithin}): the single-cell limiter's
     * one-permit path.
     *
     * @param base        the buffer's array, or null for off-heap memory.
     * @param address     the word's address (relative to {@code base}).
     * @param incrementNs {@code n * T} in [1, ceilingNs].
     * @param slackNs     {@code ceilingNs - incrementNs}.
     * @param nowNs       the time of the request.
     * @return {@link Gcra#ADMITTED}, a positive retry-after in ns, or {@link Gcra#NEVER}.
     */
    public static long acquireWithin(
        final Object base, final long address, final long incrementNs, final long slackNs, final long nowNs)
    {
        return CODES.chargeWithin(base, address, incrementNs, slackNs, nowNs, null);
    }

    /**
     * {@link #acquireWithin} for a caller that has checked {@code nowNs <= Long.MAX_VALUE - incrementNs - slackNs}
     * against a bound it holds ({@link CellLoop#chargeLatest}); any other time must go through
     * {@link #acquireWithin}.
     *
     * @param base        the buffer's array, or null for off-heap memory.
     * @param address     the word's address (relative to {@code base}).
     * @param incrementNs {@code n * T} in [1, ceilingNs].
     * @param slackNs     {@code ceilingNs - incrementNs}.
     * @param nowNs       the time of the request, at most {@code Long.MAX_VALUE - incrementNs - slackNs}.
     * @return {@link Gcra#ADMITTED} or a positive retry-after in ns.
     */
    public static long acquireLatest(
        final Object base, final long address, final long incrementNs, final long slackNs, final long nowNs)
    {
        return CODES.chargeLatest(base, address, incrementNs, slackNs, nowNs, null);
    }

    /**
     * What {@link #acquire(AtomicBuffer, int, long, long, long)} would answer now, without charging.
     *
     * @param buffer      the buffer holding the word.
     * @param offset      the word's offset.
     * @param incrementNs the cost, or &lt; 1 for an impossible one.
     * @param ceilingNs   {@code &tau; + T}.
     * @param nowNs       the time.
     * @return {@link Gcra#ADMITTED}, a positive retry-after in ns, or {@link Gcra#NEVER}.
     */
    public static long peek(
        final AtomicBuffer buffer, final int offset, final long incrementNs, final long ceilingNs, final long nowNs)
    {
        return incrementNs < 1 ? Gcra.NEVER : Gcra.decide(buffer.getLongAcquire(offset), nowNs, incrementNs,
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
     * @return {@link Gcra#ADMITTED} if a one-permit request would still conform after the charge, else
     * the ns until it would (the time to pay the debt back); {@link Gcra#NEVER} for an impossible cost.
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
            return Gcra.NEVER;
        }
        CODES.update(buffer.byteArray(), buffer.addressOffset() + offset, incrementNs, debtCeilingNs, nowNs, null);
        return Gcra.retryAfterNs(buffer.getLongAcquire(offset), nowNs, unitNs, ceilingNs);
    }
}
