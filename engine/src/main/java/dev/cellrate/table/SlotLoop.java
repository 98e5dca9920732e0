package dev.cellrate.table;

import static dev.cellrate.table.TableLayout.TAT_OFFSET;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

import dev.cellrate.layout.CellArray;
import dev.cellrate.gcra.Gcra;
import org.agrona.UnsafeApi;

/**
 * The keyed slot loop, written once for plain and classed words: find or claim the key's cell in a
 * {@link SlotTable}, validated load, GCRA decision, CAS, and the table's ABA rules; each keyed front supplies
 * only its steps: the increment and ceiling of a class ({@link #classIncrementNs}, {@link #classCeilingNs}; a
 * plain charge brings its own), and what it does with the outcome ({@link #admitted}, {@link #rejected},
 * {@link #tableFull}, or the classed forms {@link #admittedClassed}, {@link #rejectedClassed}), as
 * HdrHistogram's {@code recordSingleValue} calls {@code incrementCountAtIndex}. Plain charges
 * ({@link #charge}) and classed ones ({@link #chargeClassed}) run the same body.
 * <p>
 * Algorithm (a present key is decided on one validated load and one CAS):
 * <pre>
 *   off = find(k)                                      absent: class needed and not given -&gt; CLASS_NEEDED
 *                                                      cost outside [1, ceiling], or now + I past Long.MAX_VALUE
 *                                                      -&gt; rejected(NEVER)       (nothing claimed)
 *   off = claim(k, class)                              none -&gt; tableFull
 *   w   = the stored word (a classed word carries the class of the cell)
 *   tat = loadTat(off, w)                              STALE (slot left k, or mid-reclaim): back off, again
 *   I, ceiling = the steps' for the class of w
 *   loop: retry = Gcra.retryAfterNs(tat, now, I, ceiling) &gt; 0 -&gt; rejected(retry)
 *         next  = max(tat, now) + I                    unrepresentable -&gt; rejected(NEVER)
 *         CAS(off, tat, next) succeeded                -&gt; admitted(tat, next)
 *         else tat = loadTat(off, w)                   (never the CAS witness: it is not validated)
 * </pre>
 * A plain table's stored word is the key word; a classed table's is the key word with its class in the shard
 * bits ({@link SlotTable}, "Classes"), read before the TAT and validated after it, so a TAT is decided only
 * under the class stored with it.
 * <p>
 * ABA rules, enforced here and in {@link SlotTable} only: every CAS of a decision raises the word; the only
 * way to lower it is {@link #refund} (or the table's bounded refund), which records the value it lowers from in
 * the slot's high-water mark before lowering, so a reclaim never restarts a slot at or below a value a paused
 * decider may still hold (the argument: {@code docs/keyed-table.md}, "ABA").
 * <p>
 * A new key at {@code nowNs = Long.MIN_VALUE} starts full: the table's fresh TAT is
 * {@link TableLayout#FRESH_SLOT_TAT_NS} ({@code Long.MIN_VALUE + 1}, since {@code Long.MIN_VALUE} marks a slot
 * mid-reclaim), which the loop reads as {@link CellArray#FRESH_TAT_NS} ({@code Long.MIN_VALUE}) whenever the
 * charge can be written above it (any increment &ge; 2 ns).
 * <p>
 * Subclasses are final nested classes of their front, held in a field of their exact type, so that once
 * {@link #charge} is inlined the steps are bound statically (no type profile shared between fronts). Allocation-free; thread-safe if the steps are.
 *
 * @param <H> the caller-owned holder a front fills (a {@code Decision}, a {@code Reservation}, the keys of a
 *            composite), or {@code Object} if none; may be null.
 */
public abstract class SlotLoop<H>
{
    private static final long FRESH_SLOT_TAT_NS = TableLayout.FRESH_SLOT_TAT_NS;

    /**
     * {@link #chargeClassed} result when the key has no cell and no class was given to insert it under: call
     * again with the key's class. {@code Long.MIN_VALUE}; a front using {@code chargeClassed} must not return
     * it from its steps.
     */
    public static final long CLASS_NEEDED = Long.MIN_VALUE;

    /**
     * {@link #chargeClassed}'s {@code insertClass} when the caller has not computed the key's class, and the class
     * a plain charge hands to the classed steps.
     */
    public static final int UNKNOWN_CLASS = -1;

    /**
     * {@link #chargeSlow}, called through a handle held in an instance field so that the JIT never inlines it
     * into {@link #charge}: C2 does not treat an instance field as a constant, so the handle is opaque and the
     * call stays a call. Inlined, the slow path (insert, saturating GCRA, back-off) made every compiled
     * caller of {@code charge} too big to be inlined into its own callers, and the present-key path paid a
     * call, a frame and spills per decision (docs/benchmarks.md, "Where the time goes"). The slow path pays an
     * indirect call instead: it is taken by new keys, keys more than one line past their home line, lost CASes
     * and odd inputs.
     */
    private static final MethodHandle CHARGE_SLOW;

    static
    {
        try
        {
            CHARGE_SLOW = MethodHandles.lookup().findVirtual(SlotLoop.class, "chargeSlow", MethodType.methodType(
                long.class, long.class, long.class, long.class, long.class, Object.class, int.class, boolean.class));
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    /** The table this loop decides on. */
    protected final SlotTable table;

    /** The table's lock-free side, read by the decision path. */
    private final SlotIndex index;

    /** {@link SlotIndex#matchMask} of a classed table. */
    private final long classedMask;

    /** {@link #CHARGE_SLOW}, read from an instance field (see there). */
    private final MethodHandle chargeSlow = CHARGE_SLOW;

    /**
     * @param table the table (thread-safe, shared by every front that uses it).
     * @throws IllegalArgumentException if null.
     */
    protected SlotLoop(final SlotTable table)
    {
        if (null == table)
        {
            throw new IllegalArgumentException("table must not be null");
        }
        this.table = table;
        this.index = table.index();
        this.classedMask = index.matchMask(true);
    }

    /**
     * Decide one charge of {@code incrementNs} on the key's cell of a plain table at {@code nowNs} and hand the
     * outcome to the front's step.
     *
     * @param keyWord     from {@link SlotTable#keyWord}.
     * @param incrementNs {@code n * T}, in [1, ceilingNs]; anything below 1 is NEVER.
     * @param ceilingNs   {@code &tau; + T}.
     * @param nowNs       the time of the request.
     * @param holder      passed to the step unchanged (may be null).
     * @return what the step returned.
     */
    public final long charge(
        final long keyWord, final long incrementNs, final long ceilingNs, final long nowNs, final H holder)
    {
        return decide(keyWord, incrementNs, ceilingNs, nowNs, holder, UNKNOWN_CLASS, false, false);
    }

    /**
     * {@link #charge} for a key whose home line is likely in cache already (a batch that touched its keys' lines)
     * or whose key word is a hash of many bytes: the same decision, with the home line's slot selected without a
     * branch ({@link SlotIndex#slotSelected}), which costs less there than the predicted branch of
     * {@link #charge}'s scan.
     *
     * @param keyWord     from {@link SlotTable#keyWord}.
     * @param incrementNs {@code n * T}, in [1, ceilingNs]; anything below 1 is NEVER.
     * @param ceilingNs   {@code &tau; + T}.
     * @param nowNs       the time of the request.
     * @param holder      passed to the step unchanged (may be null).
     * @return what the step returned.
     */
    public final long chargeBranchless(
        final long keyWord, final long incrementNs, final long ceilingNs, final long nowNs, final H holder)
    {
        return decide(keyWord, incrementNs, ceilingNs, nowNs, holder, UNKNOWN_CLASS, false, true);
    }

    /**
     * Classed tables (see {@link SlotTable}, "Classes"): decide {@code permits} on the key's cell under the
     * limit of the class stored with the cell, through the same body as {@link #charge}: the steps supply the
     * class's increment and ceiling ({@link #classIncrementNs}, {@link #classCeilingNs}) and receive the outcome with the
     * class ({@link #admittedClassed}, {@link #rejectedClassed}, {@link #tableFull}).
     *
     * @param keyWord     from {@link SlotTable#keyWord}.
     * @param permits     the cost.
     * @param nowNs       the time of the request.
     * @param holder      passed to the step unchanged (may be null).
     * @param insertClass the key's class if it must be inserted, or {@link #UNKNOWN_CLASS}: then an absent key
     *                    is answered {@link #CLASS_NEEDED} with nothing claimed, so the caller's mapping is
     *                    called only for keys that are not in the table. A class at or above the table's
     *                    {@link SlotTable#classCapacity()} is answered NEVER (nothing claimed).
     * @return what the step returned, or {@link #CLASS_NEEDED}.
     */
    public final long chargeClassed(
        final long keyWord, final long permits, final long nowNs, final H holder, final int insertClass)
    {
        if (permits < 1)
        {
            return rejectedClassed(holder, UNKNOWN_CLASS, Gcra.NEVER, CellArray.FRESH_TAT_NS, nowNs);
        }
        return decide(keyWord, permits, 0, nowNs, holder, insertClass, true, false);
    }

    /**
     * The one body. The present-key path touches one cache line for a key in its home bucket (four key words
     * compared, one predicted branch per slot in {@link SlotIndex#slotIn}, or none in {@link SlotIndex#slotSelected}),
     * and, in {@link SlotIndex#slotIn}, the next line too for a key that sits there (its home line was full when it
     * arrived); then the validated
     * load (for a classed table the stored word first, acquire; the TAT, acquire; then the word again, acquire: same
     * line) and the CAS, all on raw addresses. Everything else (a key further on, an absent or reserved key, a lost
     * CAS, the saturating GCRA cases) goes to {@link #chargeSlow}, which decides from scratch.
     *
     * @param amount       a plain charge's increment, or a classed charge's permits (the steps turn it into one).
     * @param ceilingArgNs a plain charge's ceiling (a classed charge's comes from {@link #classCeilingNs}).
     * @param classed      whether the table holds classed words: a constant of each entry point, so that once
     *                     {@link #charge} or {@link #chargeClassed} is inlined the other kind's code folds away.
     * @param branchless   whether the home line's slot is selected without a branch ({@link #chargeBranchless}):
     *                     a constant of each entry point, as {@code classed}.
     */
    private long decide(
        final long keyWord, final long amount, final long ceilingArgNs, final long nowNs, final H holder,
        final int insertClass, final boolean classed, final boolean branchless)
    {
        final long matchMask = classed ? classedMask : -1L;
        // No test of whether the scan found a slot: SlotIndex.NO_SLOT fails the validation below (its TAT is
        // RECLAIMING, its stored word EMPTY) and goes the general way.
        final long slot = branchless ? index.slotSelected(keyWord, matchMask) : index.slotIn(keyWord, matchMask);
        final long storedWord = classed ? UnsafeApi.getLongAcquire(null, slot) : keyWord;
        if (!classed || isClassedWord(storedWord, keyWord))
        {
            final int classIndex = classed ? index.classOfStoredWord(storedWord) : UNKNOWN_CLASS;
            final long incrementNs = classed ? classIncrementNs(classIndex, amount) : amount;
            final long tatNs = UnsafeApi.getLongAcquire(null, slot + TAT_OFFSET);
            // GCRA in three operations: next = max(TAT, t) + I and due = next - t = lag + I. If next did not
            // overflow (next > base, which also rules out I < 1) and due > 0, due is exact, so "conforms iff
            // lag + I <= tau + T" is due <= ceiling and the retry-after is due - ceiling (what
            // Gcra.retryAfterNs and Gcra.nextTatNs compute, without their saturation cases, which go to
            // chargeSlow). A TAT at or below FRESH_SLOT_TAT_NS (RECLAIMING, or a fresh cell, which a charge at
            // nowNs = Long.MIN_VALUE reads as full: startsFull) also goes there: one test for both.
            final long baseNs = Math.max(tatNs, nowNs);
            final long nextTatNs = baseNs + incrementNs;
            final long dueNs = nextTatNs - nowNs;
            if (nextTatNs > baseNs && dueNs > 0 && tatNs > FRESH_SLOT_TAT_NS &&
                UnsafeApi.getLongAcquire(null, slot) == storedWord)
            {
                final long ceilingNs = classed ? classCeilingNs(classIndex) : ceilingArgNs;
                if (dueNs > ceilingNs)
                {
                    return rejectedClassed(holder, classIndex, dueNs - ceilingNs, tatNs, nowNs);
                }
                if (UnsafeApi.compareAndExchangeLong(null, slot + TAT_OFFSET, tatNs, nextTatNs) == tatNs)
                {
                    return admittedClassed(holder, classIndex, keyWord, tatNs, nextTatNs, incrementNs, nowNs);
                }
                index.countCasRetry(keyWord);
            }
        }
        return callChargeSlow(keyWord, amount, ceilingArgNs, nowNs, holder, insertClass, classed);
    }

    /**
     * @return whether {@code storedWord}, read from a slot that matched {@code keyWord} under the classed mask, is
     * still the key's: it agrees outside the class field and is neither EMPTY nor TOMBSTONE.
     */
    private boolean isClassedWord(final long storedWord, final long keyWord)
    {
        return ((storedWord ^ keyWord) & classedMask) == 0 && (storedWord + 1 >>> 1) != 0;
    }

    private long callChargeSlow(
        final long keyWord, final long amount, final long ceilingArgNs, final long nowNs, final H holder,
        final int insertClass, final boolean classed)
    {
        try
        {
            return (long)chargeSlow.invokeExact(
                this, keyWord, amount, ceilingArgNs, nowNs, (Object)holder, insertClass, classed);
        }
        catch (final RuntimeException | Error ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    /**
     * Classed step: the TAT increment of {@code permits} under class {@code classIndex}.
     *
     * @param classIndex a class stored in the table (or given to {@link #chargeClassed} to insert).
     * @param permits    the cost, &ge; 1.
     * @return {@code permits * T} of the class, or a value below 1 if the cost can never conform (NEVER).
     */
    protected long classIncrementNs(final int classIndex, final long permits)
    {
        return 0; // below 1: NEVER
    }

    /**
     * Classed step: {@code &tau; + T} of class {@code classIndex}.
     *
     * @param classIndex a class stored in the table.
     * @return the class's ceiling.
     */
    protected long classCeilingNs(final int classIndex)
    {
        return 0;
    }

    /**
     * Step: {@link #admitted} with the class that decided (by default, {@link #admitted}).
     *
     * @param holder      the caller's holder.
     * @param classIndex  the class of the cell ({@link #UNKNOWN_CLASS} on a plain table).
     * @param keyWord     the key word.
     * @param tatBeforeNs as {@link #admitted}.
     * @param tatAfterNs  as {@link #admitted}.
     * @param incrementNs the increment charged.
     * @param nowNs       the time of the request.
     * @return the front's code.
     */
    protected long admittedClassed(
        final H holder, final int classIndex, final long keyWord, final long tatBeforeNs, final long tatAfterNs,
        final long incrementNs, final long nowNs)
    {
        return admitted(holder, keyWord, tatBeforeNs, tatAfterNs, incrementNs, nowNs);
    }

    /**
     * Step: {@link #rejected} with the class that decided (by default, {@link #rejected}).
     *
     * @param holder       the caller's holder.
     * @param classIndex   the class of the cell, or {@link #UNKNOWN_CLASS} (a plain table, or a cost below 1).
     * @param retryAfterNs as {@link #rejected}.
     * @param tatNs        as {@link #rejected}.
     * @param nowNs        the time of the request.
     * @return the front's code.
     */
    protected long rejectedClassed(
        final H holder, final int classIndex, final long retryAfterNs, final long tatNs, final long nowNs)
    {
        return rejected(holder, retryAfterNs, tatNs, nowNs);
    }

    /**
     * Undo a charge: lower the key's word from {@code chargedNs} (the value a charge wrote) to
     * {@code restoredNs}, by one CAS, if the key's cell still holds exactly {@code chargedNs}. The only way any
     * front lowers a word. {@code restoredNs} must be at least the value that charge read (a value the key
     * held since its cell was claimed): the exact refund {@code chargedNs - incrementNs} and the shaper's
     * "TAT before" both are; it is raised to {@link TableLayout#FRESH_SLOT_TAT_NS} if lower.
     *
     * @param keyWord    the key word the charge was made on.
     * @param chargedNs  the value the charge wrote.
     * @param restoredNs the value to restore, below {@code chargedNs}.
     * @return true iff the word was lowered.
     */
    protected final boolean refund(final long keyWord, final long chargedNs, final long restoredNs)
    {
        return table.refund(keyWord, chargedNs, restoredNs);
    }

    /**
     * Give time back to a key: lower the key's word by at most {@code decrementNs}, never below {@code nowNs}
     * (so never beyond a full bucket) and never below the reclaim floor of its shard (every value an earlier key
     * of any slot of that shard held is at or below it, so a paused decider of an earlier key of the key's slot
     * never finds its value again: docs/keyed-table.md, "ABA"). The value lowered from is recorded in the
     * slot's high-water mark first, as for {@link #refund}. A key with no cell (a full bucket) gets nothing; a
     * table shared with other processes never lowers a word and gives nothing. Lock-free, allocation-free.
     *
     * @param keyWord     the key word.
     * @param decrementNs the most to give back, {@code n * T} for n permits; below 1 gives nothing.
     * @param nowNs       the time of the refund.
     * @return the ns given back, in [0, decrementNs].
     */
    public final long refundAtMost(final long keyWord, final long decrementNs, final long nowNs)
    {
        return table.refundBounded(keyWord, decrementNs, nowNs);
    }

    /**
     * The CAS succeeded: the key's cell went from {@code tatBeforeNs} to {@code tatAfterNs}.
     *
     * @param holder      the caller's holder.
     * @param keyWord     the key word.
     * @param tatBeforeNs the TAT the decision read ({@link CellArray#FRESH_TAT_NS} for a fresh cell at that time).
     * @param tatAfterNs  the TAT written, {@code max(tatBeforeNs, nowNs) + incrementNs}.
     * @param incrementNs the increment charged.
     * @param nowNs       the time of the request.
     * @return the front's code.
     */
    protected abstract long admitted(
        H holder, long keyWord, long tatBeforeNs, long tatAfterNs, long incrementNs, long nowNs);

    /**
     * Nothing was written.
     *
     * @param holder       the caller's holder.
     * @param retryAfterNs a positive retry-after in ns, or {@link Gcra#NEVER}.
     * @param tatNs        the TAT decided on, or {@link CellArray#FRESH_TAT_NS} if no cell was read.
     * @param nowNs        the time of the request.
     * @return the front's code.
     */
    protected abstract long rejected(H holder, long retryAfterNs, long tatNs, long nowNs);

    /**
     * No cell could be claimed for a new key (counted by the table); nothing was written.
     *
     * @param holder      the caller's holder.
     * @param incrementNs the increment asked for.
     * @param nowNs       the time of the request.
     * @return the front's code.
     */
    protected abstract long tableFull(H holder, long incrementNs, long nowNs);

    private long chargeSlow(
        final long keyWord, final long amount, final long ceilingArgNs, final long nowNs, final H holder,
        final int insertClass, final boolean classed)
    {
        final SlotTable table = this.table;
        final SlotIndex index = this.index;
        final long matchMask = classed ? classedMask : -1L;
        int spins = 0;
        while (true)
        {
            int tatOffset = index.find(keyWord, matchMask);
            if (SlotIndex.NO_CELL == tatOffset)
            {
                if (classed && insertClass < 0)
                {
                    return CLASS_NEEDED;
                }
                if (classed && insertClass >= table.classCapacity())
                {
                    return rejectedClassed(holder, UNKNOWN_CLASS, Gcra.NEVER, CellArray.FRESH_TAT_NS, nowNs);
                }
                final int classIndex = classed ? insertClass : UNKNOWN_CLASS;
                final long incrementNs = classed ? classIncrementNs(classIndex, amount) : amount;
                if (incrementNs < 1 || nowNs > Long.MAX_VALUE - incrementNs)
                {
                    return rejectedClassed(holder, classIndex, Gcra.NEVER, CellArray.FRESH_TAT_NS, nowNs);
                }
                tatOffset = classed ?
                    table.insertClassedSlot(keyWord, insertClass, nowNs) : table.insertSlot(keyWord, nowNs);
                if (SlotTable.FULL == tatOffset)
                {
                    return tableFull(holder, incrementNs, nowNs);
                }
            }
            final long storedWord = classed ? index.storedWordAt(tatOffset, keyWord, matchMask) : keyWord;
            if (!classed || TableLayout.EMPTY_KEY != storedWord)
            {
                final int classIndex = classed ? index.classOfStoredWord(storedWord) : UNKNOWN_CLASS;
                final long incrementNs = classed ? classIncrementNs(classIndex, amount) : amount;
                if (incrementNs < 1)
                {
                    return rejectedClassed(holder, classIndex, Gcra.NEVER, CellArray.FRESH_TAT_NS, nowNs);
                }
                final long ceilingNs = classed ? classCeilingNs(classIndex) : ceilingArgNs;
                long tatNs = index.loadTat(tatOffset, storedWord);
                while (SlotTable.STALE != tatNs)
                {
                    final long decidedNs = startsFull(tatNs, nowNs, incrementNs) ? CellArray.FRESH_TAT_NS : tatNs;
                    final long retryAfterNs = Gcra.retryAfterNs(decidedNs, nowNs, incrementNs, ceilingNs);
                    if (retryAfterNs > 0)
                    {
                        return rejectedClassed(holder, classIndex, retryAfterNs, decidedNs, nowNs);
                    }
                    final long nextTatNs = Gcra.nextTatNs(decidedNs, nowNs, incrementNs);
                    if (Gcra.UNREPRESENTABLE == nextTatNs)
                    {
                        return rejectedClassed(holder, classIndex, Gcra.NEVER, decidedNs, nowNs);
                    }
                    if (index.compareAndExchangeTat(tatOffset, tatNs, nextTatNs) == tatNs)
                    {
                        return admittedClassed(holder, classIndex, keyWord, decidedNs, nextTatNs, incrementNs, nowNs);
                    }
                    tatNs = index.loadTat(tatOffset, storedWord);
                }
            }
            spins = ShardWriter.backOff(spins);
        }
    }

    /**
     * A fresh slot at {@code nowNs = Long.MIN_VALUE} is a full bucket; read it as {@link CellArray#FRESH_TAT_NS} when the
     * charge lands strictly above the fresh value, so the word still only grows (with a 1 ns increment it
     * cannot, and the cell is read as it is: 1 ns of lag).
     */
    private static boolean startsFull(final long tatNs, final long nowNs, final long incrementNs)
    {
        return FRESH_SLOT_TAT_NS == tatNs && Long.MIN_VALUE == nowNs && incrementNs > 1;
    }
}
