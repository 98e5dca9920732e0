package dev.cellrate.gcra;

import org.agrona.UnsafeApi;

/**
 * The one lock-free loop over a single TAT word, written once: acquire load, decision, CAS, and on a lost CAS
 * the decision again on the winner's value. Every single-cell GCRA front decides through it (the plain and
 * pay-later limiters, their reconfigurable forms, the composite's legs, the keyed table's overflow cell, the
 * shapers), and supplies only what it does with the outcome, as HdrHistogram's {@code recordSingleValue} calls
 * {@code incrementCountAtIndex}:
 * <ul>
 *     <li>{@link #decided}: fill the caller's holder from the outcome (a {@code Decision} under the front's
 *     limit);</li>
 *     <li>{@link #admitted}: the answer after the front's charge landed (charge the next leg of a composite and
 *     refund this one if that leg rejects);</li>
 *     <li>{@link #rejected}: the answer to a rejection;</li>
 *     <li>{@link #updatedTatNs}: the word an {@link #update} writes (a debit's bounded charge, a rewrite);</li>
 *     <li>{@link #stale}: checked after each read of the word (the first and every lost CAS's witness),
 *     whether the call should end, so that the front decides again under settings that changed meanwhile.</li>
 * </ul>
 * <p>
 * Algorithm ({@link #charge}): with base = max(TAT, t), lag = base - t and slack = ceiling - I, a cost I in
 * [1, ceiling] conforms iff lag &le; slack, and is then charged next = base + I unless that passes
 * {@link Long#MAX_VALUE} ({@link Gcra#NEVER}); a rejection answers the retry-after lag - slack, saturated at
 * {@link Long#MAX_VALUE} past 2<sup>63</sup> ns ({@link Gcra#retryAfterNs}). A cost below 1 or above the ceiling
 * never conforms ({@link Gcra#NEVER}).
 * <p>
 * When t + ceiling is a long (every time but the last ceiling's worth of the range; the entry tests it on its
 * arguments, before the load), the loop decides in the latest-TAT form: latest = t + slack is worked out while
 * the load is in flight, and the request conforms iff TAT &le; latest, which is lag &le; slack exactly. The path
 * from the load to the CAS is then one compare, with next = max(TAT, t) + I (at most t + ceiling, so it cannot
 * overflow) beside it, and a rejection's retry-after is TAT - latest. Above that time the loop decides in the lag
 * form: lag &le; slack as two signed compares (lag is exact as an unsigned number, since base &ge; t; a negative
 * one is a lag past 2<sup>63</sup>), then the overflow check of next. Both forms give the same answers and words.
 * <p>
 * Concurrency: the word is read with an acquire load and written only by {@code compareAndExchangeLong} (a
 * volatile CAS), whose release half pairs with the acquire read of the next decider. A rejection is decided on
 * the value read and writes nothing, so a flood of rejections leaves the cache line shared. An admission is
 * linearised at its successful CAS; a failed CAS returns the winner's value and the loop decides again on it, so
 * no admission is lost and none is counted twice.
 * <p>
 * Memory: the word is given by its base object and address ({@code buffer.byteArray()},
 * {@code buffer.addressOffset() + offset}), so the path is one acquire load and one CAS with nothing else on it
 * (no bounds check, no interface type check, no reload of a buffer's fields after the load). The caller keeps the
 * buffer reachable and guarantees the address is an 8-aligned word inside it.
 * <p>
 * Subclasses are final classes of their front, held in a field of their exact type (or a {@code static final}
 * one), so that once {@link #charge} is inlined the steps are bound statically. Allocation-free; thread-safe if
 * the steps are.
 *
 * @param <H> the caller-owned holder a front fills or carries through its steps, or {@code Object} if none; may
 *            be null.
 */
public abstract class CellLoop<H>
{
    /**
     * What {@link #charge} and {@link #update} return when {@link #stale} ended the call: nothing was written,
     * decide again. {@code Long.MIN_VALUE}, which is no code of the API's {@code Result}; a front that
     * overrides {@link #stale} must not return it from its other steps.
     */
    public static final long STALE = Long.MIN_VALUE;

    /**
     * For subclasses.
     */
    protected CellLoop()
    {
    }

    /**
     * Decide one charge of {@code incrementNs} against {@code ceilingNs} on the word and hand the outcome to the
     * front's steps.
     *
     * @param base        the buffer's array, or null for off-heap memory.
     * @param address     the word's address (relative to {@code base}).
     * @param incrementNs {@code n * T} in [1, ceilingNs]; a cost below 1 or above {@code ceilingNs} never conforms
     *                    ({@link Gcra#NEVER}, nothing written).
     * @param ceilingNs   the largest lag after the charge ({@code &tau; + T}, or {@code &tau; + I} for
     *                    pay-later), &ge; 1.
     * @param nowNs       the time of the request.
     * @param holder      passed to the steps unchanged (may be null).
     * @return what {@link #admitted} or {@link #rejected} returned, or {@link #STALE}.
     */
    public final long charge(final Object base, final long address, final long incrementNs, final long ceilingNs,
        final long nowNs, final H holder)
    {
        if (incrementNs < 1 || incrementNs > ceilingNs)
        {
            return loop(base, address, incrementNs, ceilingNs, nowNs, holder, NEVER);
        }
        return chargeWithin(base, address, incrementNs, ceilingNs - incrementNs, nowNs, holder);
    }

    /**
     * {@link #charge} with its slack given by the caller: a cost {@code incrementNs} &ge; 1 conforms iff lag &le;
     * {@code slackNs}. A front's charge passes {@code slackNs = ceilingNs - incrementNs}; a reservation that tests
     * its wait with another increment, or accepts a wait beyond the burst, passes a slack of its own choosing, any
     * in [0, {@link Long#MAX_VALUE}]. The charge is next = max(TAT, t) + I unless that passes {@link Long#MAX_VALUE}
     * ({@link Gcra#NEVER}); a rejection answers lag - slack exactly, saturated at {@link Long#MAX_VALUE} past
     * 2<sup>63</sup> ns. Both forms hold for every such pair: the latest-TAT form's condition
     * t &le; {@link Long#MAX_VALUE} - I - slack is computed without overflow (I and slack are at most
     * {@link Long#MAX_VALUE}), and the lag form's saturating retry-after gets back slack + I - I = slack exactly in
     * two's complement even where slack + I wraps.
     *
     * @param base        the buffer's array, or null for off-heap memory.
     * @param address     the word's address (relative to {@code base}).
     * @param incrementNs the charge {@code I} &ge; 1.
     * @param slackNs     the largest lag before the charge that conforms, in [0, {@link Long#MAX_VALUE}].
     * @param nowNs       the time of the request.
     * @param holder      passed to the steps unchanged (may be null).
     * @return what {@link #admitted} or {@link #rejected} returned, or {@link #STALE}.
     */
    public final long chargeWithin(final Object base, final long address, final long incrementNs,
        final long slackNs, final long nowNs, final H holder)
    {
        // Which form decides is known from the arguments alone, before the load: the latest-TAT form whenever
        // now + ceiling (slack + I) is a long, the lag form in the last ceiling's worth of the range.
        if (nowNs <= Long.MAX_VALUE - incrementNs - slackNs)
        {
            return loop(base, address, incrementNs, nowNs + slackNs, nowNs, holder, LATEST);
        }
        return loop(base, address, incrementNs, slackNs, nowNs, holder, LAG);
    }

    /**
     * {@link #chargeWithin} in the latest-TAT form, for a caller that has already checked, against a bound it
     * computed once, that {@code nowNs <= Long.MAX_VALUE - incrementNs - slackNs} (the form's condition): the path
     * then holds no arithmetic on the settings before the load but the latest TAT {@code nowNs + slackNs}, which
     * the loop takes in place of the slack, so that the slack is not one more value live across the CAS (inlined
     * into a caller with many live values of its own, such as JMH's stub, the loop then spills nothing). Any other
     * {@code nowNs} must go through {@link #chargeWithin}.
     *
     * @param base        the buffer's array, or null for off-heap memory.
     * @param address     the word's address (relative to {@code base}).
     * @param incrementNs {@code n * T} in [1, ceilingNs].
     * @param slackNs     {@code ceilingNs - incrementNs}.
     * @param nowNs       the time of the request, at most {@code Long.MAX_VALUE - incrementNs - slackNs}.
     * @param holder      passed to the steps unchanged (may be null).
     * @return what {@link #admitted} or {@link #rejected} returned, or {@link #STALE}.
     */
    public final long chargeLatest(final Object base, final long address, final long incrementNs,
        final long slackNs, final long nowNs, final H holder)
    {
        return loop(base, address, incrementNs, nowNs + slackNs, nowNs, holder, LATEST);
    }

    /**
     * Write {@link #updatedTatNs} of the word, whatever it is (no decision): the same loop for the updates that
     * always land (a debit, a rewrite when the settings change).
     *
     * @param base        the buffer's array, or null for off-heap memory.
     * @param address     the word's address (relative to {@code base}).
     * @param incrementNs passed to {@link #updatedTatNs}.
     * @param ceilingNs   passed to {@link #updatedTatNs}.
     * @param nowNs       the time of the update.
     * @param holder      passed to the steps unchanged (may be null).
     * @return what {@link #admitted} returned, or {@link #STALE}.
     */
    public final long update(final Object base, final long address, final long incrementNs, final long ceilingNs,
        final long nowNs, final H holder)
    {
        return loop(base, address, incrementNs, ceilingNs, nowNs, holder, UPDATE);
    }

    private static final int LATEST = 0;
    private static final int LAG = 1;
    private static final int UPDATE = 2;
    private static final int NEVER = 3;

    /**
     * The loop. {@code mode} is a constant at each caller, so each inlined copy keeps one branch:
     * {@code LATEST} (the latest-TAT form) with {@code limitNs} the latest TAT itself, now + slack, worked out by
     * the entry before the load, {@code LAG} (the lag form) with {@code limitNs} the slack, {@code UPDATE} with {@code limitNs} the ceiling, {@code NEVER} (a cost below 1 or above the ceiling:
     * never conforms) on the word as read.
     */
    private long loop(
        final Object base,
        final long address,
        final long incrementNs,
        final long limitNs,
        final long nowNs,
        final H holder,
        final int mode)
    {
        // LATEST: limitNs is the latest TAT that conforms, now + slack; neither it nor the charge
        // max(TAT, t) + I <= now + slack + I can overflow in this form.
        long tatNs = UnsafeApi.getLongAcquire(base, address);
        while (true)
        {
            if (stale(holder))
            {
                return STALE;
            }
            long nextTatNs;
            if (LATEST == mode)
            {
                if (tatNs > limitNs)
                {
                    // TAT - latest is the retry-after, lag - slack; it reads <= 0 only past 2^63 ns: saturated
                    final long retryAfterNs = tatNs - limitNs;
                    return rejected(holder, retryAfterNs > 0 ? retryAfterNs : Long.MAX_VALUE, tatNs, nowNs);
                }
                nextTatNs = Math.max(tatNs, nowNs) + incrementNs;
            }
            else if (LAG == mode)
            {
                final long baseNs = Math.max(tatNs, nowNs);
                final long lagNs = baseNs - nowNs; // exact as an unsigned number: base >= now
                nextTatNs = baseNs + incrementNs;
                if (lagNs >= 0 && lagNs <= limitNs) // slack >= 0, so this is lag <= slack as unsigned numbers
                {
                    if (nextTatNs <= baseNs) // max(TAT, t) + I past Long.MAX_VALUE
                    {
                        return rejected(holder, Gcra.NEVER, tatNs, nowNs);
                    }
                }
                else if (lagNs >= 0)
                {
                    return rejected(holder, lagNs - limitNs, tatNs, nowNs); // lag and slack both in [0, 2^63)
                }
                else
                {
                    // A lag of 2^63 ns or more: Gcra's saturating retry-after (never 0 here, as the lag passes the slack).
                    return rejected(holder, Gcra.retryAfterNs(tatNs, nowNs, incrementNs, limitNs + incrementNs), tatNs,
                        nowNs);
                }
            }
            else if (NEVER == mode)
            {
                return rejected(holder, Gcra.NEVER, tatNs, nowNs);
            }
            else
            {
                nextTatNs = updatedTatNs(holder, tatNs, nowNs, incrementNs, limitNs);
            }
            final long witnessNs = UnsafeApi.compareAndExchangeLong(base, address, tatNs, nextTatNs);
            if (witnessNs == tatNs)
            {
                return admitted(holder, tatNs, nextTatNs, incrementNs, nowNs);
            }
            tatNs = witnessNs;
        }
    }

    /**
     * The front's answer once its charge landed. Default: {@link #decided} with {@link Gcra#ADMITTED} and the
     * word written, then {@link Gcra#ADMITTED}.
     *
     * @param holder      the caller's holder (may be null).
     * @param tatBeforeNs the word the charge replaced.
     * @param tatAfterNs  the word it wrote.
     * @param incrementNs the charge.
     * @param nowNs       the time of the request.
     * @return the front's answer.
     */
    protected long admitted(
        final H holder, final long tatBeforeNs, final long tatAfterNs, final long incrementNs, final long nowNs)
    {
        decided(holder, Gcra.ADMITTED, tatAfterNs, nowNs);
        return Gcra.ADMITTED;
    }

    /**
     * The front's answer to a rejection (nothing was written). Default: {@link #decided} with the code and the
     * word seen, then {@code code}.
     *
     * @param holder the caller's holder (may be null).
     * @param code   a positive retry-after in ns, or {@link Gcra#NEVER}.
     * @param tatNs  the word the decision saw.
     * @param nowNs  the time of the request.
     * @return the front's answer.
     */
    protected long rejected(final H holder, final long code, final long tatNs, final long nowNs)
    {
        decided(holder, code, tatNs, nowNs);
        return code;
    }

    /**
     * What the default {@link #admitted} and {@link #rejected} do with the outcome before answering its code
     * (fill the caller's holder). Default: nothing.
     *
     * @param holder the caller's holder (may be null).
     * @param code   the decision's code.
     * @param tatNs  the word after the decision (unchanged if rejected).
     * @param nowNs  the time of the request.
     */
    protected void decided(final H holder, final long code, final long tatNs, final long nowNs)
    {
    }

    /**
     * The word {@link #update} writes over {@code tatNs}. Default: a debit's charge,
     * {@link Gcra#debitTatNs}{@code (tatNs, nowNs, incrementNs, ceilingNs)} with {@code ceilingNs} the debt
     * ceiling.
     *
     * @param holder      the caller's holder (may be null).
     * @param tatNs       the word read.
     * @param nowNs       the time of the update.
     * @param incrementNs as given to {@link #update}.
     * @param ceilingNs   as given to {@link #update}.
     * @return the word to write.
     */
    protected long updatedTatNs(
        final H holder, final long tatNs, final long nowNs, final long incrementNs, final long ceilingNs)
    {
        return Gcra.debitTatNs(tatNs, nowNs, incrementNs, ceilingNs);
    }

    /**
     * Called after each read of the word (the first, and every lost CAS's witness), before deciding on it.
     * Default: false.
     *
     * @param holder the caller's holder (may be null).
     * @return true to end the call with {@link #STALE}.
     */
    protected boolean stale(final H holder)
    {
        return false;
    }
}
