package dev.cellrate;

import dev.cellrate.ShaperMode;
import dev.cellrate.check.Bounds;
import dev.cellrate.gcra.ShaperMath;
import dev.cellrate.KeyedReserver;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import dev.cellrate.table.SlotLoop;
import dev.cellrate.table.SlotTable;
import org.agrona.concurrent.NanoClock;

/**
 * A thread-safe, allocation-free {@link Shaper} per key (client, account, venue, route) over an off-heap
 * {@link SlotTable}: one {@link Limit} and one {@link ShaperMode} for every key.
 * <p>
 * Algorithm: each key's cell decides and shapes exactly like a single-cell {@link Shaper} (see
 * {@link ShaperMath}); codes are the same ({@link Result}), plus {@link Result#TABLE_FULL} when no
 * cell can be claimed for a new key (fail closed, nothing charged, counted by the table).
 * <p>
 * Concurrency: the table's one slot loop ({@link SlotLoop}): a validated TAT read and one CAS per admission,
 * lock-free on present keys; a new key takes its shard's insert lock once. A rejection writes nothing, and a
 * request answered {@link Result#NEVER} claims no cell.
 * <p>
 * Cancel: as {@link Shaper#cancel(Reservation)} (LIFO per key: refunded iff no later reservation of the key
 * is live, restoring exactly the TAT before), with one more condition: a reservation whose span has ended
 * ({@code tatAfter <= nowNs}) is not refunded. Refunding it could change no decision at or after
 * {@code nowNs}, and skipping it means a cancel never touches a cell that idled out and was reused. The
 * refund lowers the word through {@link SlotLoop#refund}, the table's only lowering: the restored value is
 * one the same key held before, so it is above every value of the slot's previous keys, and the table records
 * the value it lowers from, so the slot is not reclaimed (for a new key whose TAT could pass through that
 * value under a paused decider) until that value is idle too.
 */
public final class KeyedShaper extends TableFront implements KeyedReserver
{
    private final Step step;
    private final Limit limit;
    private final ShaperMode mode;
    private final NanoClock clock;
    private final long emissionIntervalNs;
    private final long ceilingNs;
    private final long immediateNs;

    /**
     * @param limit the limit of every key.
     * @param mode  the release mode of every key.
     * @param table a table used by this shaper only (e.g. {@code new SlotTable(64, 16384, 64, 1_000_000_000L,
     *              clock)}, keyed with a random secret); its idle grace must cover the skew between concurrent callers' {@code nowNs},
     *              and its eviction clock ({@link SlotTable#evictionClock()}) must be the clock of those times.
     * @param clock the clock of the clock forms.
     * @throws IllegalArgumentException on a null argument.
     */
    KeyedShaper(final Limit limit, final ShaperMode mode, final SlotTable table, final NanoClock clock)
    {
        super(table);
        this.limit = Bounds.requireNonNull("limit", limit);
        this.mode = Bounds.requireNonNull("mode", mode);
        this.clock = Bounds.requireNonNull("clock", clock);
        this.emissionIntervalNs = limit.emissionIntervalNs();
        this.ceilingNs = limit.ceilingNs();
        this.immediateNs = mode.immediateNs(emissionIntervalNs);
        this.step = new Step(table);
    }

    /**
     * @param key         the key.
     * @param permits     the cost.
     * @param nowNs       the time of the request, ns.
     * @param reservation a caller-owned holder, filled in place (for {@link #cancel(long, Reservation, long)}).
     * @return as {@link #reserve(long, long)}.
     */
    public long reserve(final long key, final long permits, final long nowNs, final Reservation reservation)
    {
        return reserveIncrement(table.keyWord(key), limit.incrementNs(permits), nowNs, reservation);
    }

    /**
     * @param key         the key, as its UTF-8 bytes.
     * @param permits     the cost.
     * @param nowNs       the time of the request, ns.
     * @param reservation a caller-owned holder filled in place, or null.
     * @return as {@link #reserve(long, long)}.
     */
    public long reserve(final CharSequence key, final long permits, final long nowNs, final Reservation reservation)
    {
        return reserveIncrement(table.keyWord(key), limit.incrementNs(permits), nowNs, reservation);
    }

    /**
     * Refund a reservation of {@code key} (see the class comment for the exact semantics).
     *
     * @param key         the key it was made for.
     * @param reservation the holder its {@code reserve} filled.
     * @param nowNs       the time of the cancel.
     * @return true iff refunded.
     */
    public boolean cancel(final long key, final Reservation reservation, final long nowNs)
    {
        return cancelKeyWord(table.keyWord(key), reservation, nowNs);
    }

    /**
     * @param key         the key it was made for, as its UTF-8 bytes.
     * @param reservation the holder its {@code reserve} filled.
     * @param nowNs       the time of the cancel.
     * @return true iff refunded.
     */
    public boolean cancel(final CharSequence key, final Reservation reservation, final long nowNs)
    {
        return cancelKeyWord(table.keyWord(key), reservation, nowNs);
    }

    /**
     * Reserve on a key word from {@link SlotTable#keyWord} of {@link #table()} (callers that hash once).
     *
     * @param keyWord     the key word.
     * @param permits     the cost.
     * @param nowNs       the time of the request, ns.
     * @param reservation a caller-owned holder filled in place, or null.
     * @return as {@link #reserve(long, long)}.
     */
    long reserveKeyWord(final long keyWord, final long permits, final long nowNs, final Reservation reservation)
    {
        return reserveIncrement(keyWord, limit.incrementNs(permits), nowNs, reservation);
    }

    /**
     * @param keyWord     the key word the reservation was made on.
     * @param reservation the holder its {@code reserve} filled.
     * @param nowNs       the time of the cancel.
     * @return true iff refunded.
     */
    boolean cancelKeyWord(final long keyWord, final Reservation reservation, final long nowNs)
    {
        return reservation.heldOn(table, keyWord) && reservation.tatAfterNs() > nowNs &&
            reservation.refundedIf(step.cancel(keyWord, reservation.tatAfterNs(), reservation.tatBeforeNs()));
    }


    /**
     * @return the limit of every key.
     */
    public Limit limit()
    {
        return limit;
    }

    /**
     * @return the release mode of every key.
     */
    ShaperMode mode()
    {
        return mode;
    }

    /**
     * @return the clock of the clock forms.
     */
    public NanoClock clock()
    {
        return clock;
    }

    /**
     * @return the key's TAT, or {@link SlotTable#STALE} if it has no cell (tests, diagnostics).
     */
    long tatNsOf(final long key)
    {
        return table.tatNs(table.keyWord(key));
    }

    private long reserveIncrement(
        final long keyWord, final long incrementNs, final long nowNs, final Reservation reservation)
    {
        long code = Result.NEVER;
        if (incrementNs >= 1)
        {
            code = step.charge(keyWord, incrementNs, ceilingNs, nowNs, reservation);
            if (code >= 0)
            {
                return code;
            }
        }
        if (null != reservation)
        {
            reservation.rejected(code, nowNs);
        }
        return code;
    }

    /**
     * What the shaper does with the slot loop's outcome: the delay and the caller's {@link Reservation}, or an
     * encoded retry-after.
     */
    private final class Step extends SlotLoop<Reservation>
    {
        Step(final SlotTable table)
        {
            super(table);
        }

        boolean cancel(final long keyWord, final long tatAfterNs, final long tatBeforeNs)
        {
            return refund(keyWord, tatAfterNs, tatBeforeNs);
        }

        protected long admitted(
            final Reservation reservation,
            final long keyWord,
            final long tatBeforeNs,
            final long tatAfterNs,
            final long incrementNs,
            final long nowNs)
        {
            return AtomicShaper.granted(reservation, ShaperMath.delayNs(tatBeforeNs, nowNs, immediateNs), nowNs,
                tatBeforeNs, incrementNs, table, keyWord);
        }

        protected long rejected(
            final Reservation reservation, final long retryAfterNs, final long tatNs, final long nowNs)
        {
            return retryAfterNs > 0 ? Result.encodeRetryAfter(retryAfterNs) : retryAfterNs;
        }

        protected long tableFull(final Reservation reservation, final long incrementNs, final long nowNs)
        {
            return Result.TABLE_FULL;
        }
    }
}
