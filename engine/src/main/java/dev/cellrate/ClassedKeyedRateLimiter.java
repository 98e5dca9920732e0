package dev.cellrate;

import dev.cellrate.check.Bounds;
import dev.cellrate.layout.CellArray;
import dev.cellrate.DecisionLoop;
import dev.cellrate.table.SlotLoop;
import dev.cellrate.table.SlotTable;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.NanoClock;

/**
 * A thread-safe, allocation-free GCRA limiter per key with <b>limit classes</b>: a small set of limits
 * (free, pro, internal, ... at most {@link SlotTable#MAX_CLASSES}), the class of each key chosen by the
 * caller's {@link KeyClassifier} when the key is inserted and stored with the key's cell, so later decisions
 * never call the mapping. Still 16 bytes per slot: the class lives in the slot's key word (see
 * {@link SlotTable}, "Classes"), so a decision on a present key still touches one slot, and a table of
 * {@code shardCount} shards holds up to {@code shardCount - 2} classes ({@link SlotTable#classCapacity()}).
 * <p>
 * Algorithm: each key decides exactly like a {@link RateLimiter} with its class's limit. A request for a key
 * with no cell is decided in two steps: the slot loop answers that the key is absent
 * ({@link SlotLoop#CLASS_NEEDED}, nothing claimed), the mapping is called once, and the key is inserted with
 * its class and decided. A key keeps its class while it has a cell; its class changes only if it goes idle,
 * is evicted and comes back under a mapping that now answers differently (an upgraded customer gets the new
 * class at the latest after the idle grace; an active one keeps the class it was inserted with).
 * <p>
 * Reconfiguration: {@link #setLimit(int, Limit)} replaces one class's limit for every key of the class at once,
 * by the rule of {@code dev.cellrate.reconfigure} (every cell keeps its TAT, the debt is kept in time, nobody
 * gets a fresh burst). The class limits are one immutable object (the front's slot-loop step) published by a
 * volatile store and read once per decision, so a decision racing a change is wholly under the old or the new
 * limits.
 * <p>
 * Concurrency: as {@link KeyedRateLimiter}; the class is read from the same validated slot word as the TAT,
 * so a cell is never decided under another key's class (a reclaimed slot carries its new key's class).
 * <p>
 * Codes: {@link Result#ADMITTED}, a positive retry-after in ns, {@link Result#NEVER} (a cost outside [1, burst
 * of the key's class], or a class outside [0, class count) from the mapping), and when the table is full
 * {@link Result#TABLE_FULL} (policy {@code REJECT}) or {@link Result#ADMITTED_TABLE_FULL} ({@code ADMIT});
 * {@code OVERFLOW} is not offered (one shared overflow cell would mix the classes). A {@link Decision} holder
 * is filled under the key's class (class 0's limit when no class was read: a cost below 1, a full table).
 */
public final class ClassedKeyedRateLimiter extends TableFront implements KeyedLimiter
{
    private final KeyClassifier classifier;
    private final TableFullPolicy policy;
    private final NanoClock clock;
    private volatile Step step;

    /**
     * @param limits     the limit of each class, class i at index i; 1 to {@link SlotTable#classCapacity()} of
     *                   the table (copied).
     * @param classifier the class of a key at insert.
     * @param table      the table (used only by this front: its slots hold classed words).
     * @param policy     {@link TableFullPolicy#REJECT} or {@link TableFullPolicy#ADMIT}.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    ClassedKeyedRateLimiter(
        final Limit[] limits, final KeyClassifier classifier, final SlotTable table, final TableFullPolicy policy)
    {
        super(table);
        Bounds.requireNonNull("limits", limits);
        Bounds.requireNonNull("classifier", classifier);
        Bounds.requireNonNull("policy", policy);
        if (0 == table.classCapacity())
        {
            throw new IllegalArgumentException(
                "table.shardCount must be at least 4 for limit classes but was " + table.shardCount());
        }
        Bounds.requireRange("limits.length (classCapacity = shardCount - 2, at most " + SlotTable.MAX_CLASSES + ")",
            limits.length, 1, table.classCapacity());
        if (TableFullPolicy.OVERFLOW == policy)
        {
            throw new IllegalArgumentException("tableFullPolicy must be REJECT or ADMIT on a classed table but was "
                + policy);
        }
        this.classifier = classifier;
        this.policy = policy;
        this.clock = table.evictionClock();
        this.step = new Step(table, copy(limits));
    }

    /**
     * Replace one class's limit for every key of the class; cells keep their TATs. Any thread; O(classes).
     *
     * @param classIndex the class, in [0, {@link #classCount()}).
     * @param limit      its new limit.
     * @throws IllegalArgumentException if null or out of range.
     */
    public synchronized void setLimit(final int classIndex, final Limit limit)
    {
        final Limit[] limits = step.limits.clone();
        Bounds.requireRange("classIndex", classIndex, 0, limits.length - 1);
        Bounds.requireNonNull("limit", limit);
        limits[classIndex] = limit;
        step = new Step(table, limits);
    }

    /**
     * @param classIndex the class.
     * @return its current limit.
     */
    public Limit limit(final int classIndex)
    {
        return step.limits[classIndex];
    }

    /**
     * @return the number of classes.
     */
    public int classCount()
    {
        return step.limits.length;
    }

    /**
     * @param key     the key.
     * @param permits the cost; outside [1, burst of the key's class] it is {@link Result#NEVER}.
     * @param nowNs   the time of the request, ns.
     * @return see the class documentation.
     */
    public long tryAcquire(final long key, final long permits, final long nowNs)
    {
        return tryAcquire(key, permits, nowNs, null);
    }

    /**
     * @param key      the key.
     * @param permits  the cost.
     * @param nowNs    the time of the request, ns.
     * @param decision a caller-owned holder (may be null), filled under the key's class.
     * @return as {@link #tryAcquire(long, long, long)}.
     */
    public long tryAcquire(final long key, final long permits, final long nowNs, final Decision decision)
    {
        final Step step = this.step;
        final long keyWord = table.keyWord(key);
        final long code = step.chargeClassed(keyWord, permits, nowNs, decision, SlotLoop.UNKNOWN_CLASS);
        return SlotLoop.CLASS_NEEDED != code ?
            code : insert(step, keyWord, classifier.classOf(key), permits, nowNs, decision);
    }

    /**
     * @param key     the key, as its UTF-8 bytes.
     * @param permits the cost.
     * @param nowNs   the time of the request, ns.
     * @return as {@link #tryAcquire(long, long, long)}.
     */
    public long tryAcquire(final CharSequence key, final long permits, final long nowNs)
    {
        return tryAcquire(key, permits, nowNs, null);
    }

    /**
     * @param key      the key, as its UTF-8 bytes.
     * @param permits  the cost.
     * @param nowNs    the time of the request, ns.
     * @param decision a caller-owned holder (may be null).
     * @return as {@link #tryAcquire(long, long, long)}.
     */
    public long tryAcquire(final CharSequence key, final long permits, final long nowNs, final Decision decision)
    {
        final Step step = this.step;
        final long keyWord = table.keyWord(key);
        final long code = step.chargeClassed(keyWord, permits, nowNs, decision, SlotLoop.UNKNOWN_CLASS);
        return SlotLoop.CLASS_NEEDED != code ?
            code : insert(step, keyWord, classifier.classOf(key), permits, nowNs, decision);
    }

    /**
     * @param key     array holding the key bytes.
     * @param offset  first byte.
     * @param length  byte count.
     * @param permits the cost.
     * @param nowNs   the time of the request, ns.
     * @return as {@link #tryAcquire(long, long, long)}.
     */
    public long tryAcquire(final byte[] key, final int offset, final int length, final long permits, final long nowNs)
    {
        final Step step = this.step;
        final long keyWord = table.keyWord(key, offset, length);
        final long code = step.chargeClassed(keyWord, permits, nowNs, null, SlotLoop.UNKNOWN_CLASS);
        return SlotLoop.CLASS_NEEDED != code ?
            code : insert(step, keyWord, classifier.classOf(key, offset, length), permits, nowNs, null);
    }

    /**
     * @param key     buffer holding the key bytes.
     * @param offset  first byte.
     * @param length  byte count.
     * @param permits the cost.
     * @param nowNs   the time of the request, ns.
     * @return as {@link #tryAcquire(long, long, long)}.
     */
    public long tryAcquire(
        final DirectBuffer key, final int offset, final int length, final long permits, final long nowNs)
    {
        final Step step = this.step;
        final long keyWord = table.keyWord(key, offset, length);
        final long code = step.chargeClassed(keyWord, permits, nowNs, null, SlotLoop.UNKNOWN_CLASS);
        return SlotLoop.CLASS_NEEDED != code ?
            code : insert(step, keyWord, classifier.classOf(key, offset, length), permits, nowNs, null);
    }

    /**
     * @param key a long key.
     * @return the class stored with its cell, or -1 if it has none (diagnostics).
     */
    int storedClassOf(final long key)
    {
        return table.classOf(table.keyWord(key));
    }

    /**
     * @param key a long key.
     * @return the TAT of its cell, or {@link SlotTable#STALE} if it has none (tests, through {@code TestFronts}).
     */
    long tatNs(final long key)
    {
        return table.classedTatNs(table.keyWord(key));
    }


    /**
     * @return the clock of the clock-reading forms (the table's eviction clock).
     */
    public NanoClock clock()
    {
        return clock;
    }



    private static long insert(
        final Step step, final long keyWord, final int classIndex, final long permits, final long nowNs,
        final Decision decision)
    {
        if (classIndex < 0 || classIndex >= step.limits.length)
        {
            return step.rejectedClassed(decision, SlotLoop.UNKNOWN_CLASS, Result.NEVER, CellArray.FRESH_TAT_NS, nowNs);
        }
        return step.chargeClassed(keyWord, permits, nowNs, decision, classIndex);
    }

    private static Limit[] copy(final Limit[] limits)
    {
        final Limit[] copy = limits.clone();
        for (int i = 0; i < copy.length; i++)
        {
            if (null == copy[i])
            {
                throw new IllegalArgumentException("limits[" + i + "] must not be null");
            }
        }
        return copy;
    }

    /**
     * The slot loop's step under one set of class limits: immutable, replaced whole by {@link #setLimit}.
     */
    private final class Step extends SlotLoop<Decision>
    {
        final Limit[] limits;

        Step(final SlotTable table, final Limit[] limits)
        {
            super(table);
            this.limits = limits;
        }

        protected long classIncrementNs(final int classIndex, final long permits)
        {
            return limits[classIndex].incrementNs(permits);
        }

        protected long classCeilingNs(final int classIndex)
        {
            return limits[classIndex].ceilingNs();
        }

        protected long admittedClassed(
            final Decision decision, final int classIndex, final long keyWord, final long tatBeforeNs,
            final long tatAfterNs, final long incrementNs, final long nowNs)
        {
            return DecisionLoop.fill(
                decision, Result.ADMITTED, tatAfterNs, nowNs, limits[classIndex], Result.ADMITTED);
        }

        protected long rejectedClassed(
            final Decision decision, final int classIndex, final long retryAfterNs, final long tatNs,
            final long nowNs)
        {
            return DecisionLoop.fill(
                decision, retryAfterNs, tatNs, nowNs, limits[Math.max(0, classIndex)], retryAfterNs);
        }

        protected long admitted(
            final Decision decision, final long keyWord, final long tatBeforeNs, final long tatAfterNs,
            final long incrementNs, final long nowNs)
        {
            return admittedClassed(decision, 0, keyWord, tatBeforeNs, tatAfterNs, incrementNs, nowNs);
        }

        protected long rejected(final Decision decision, final long retryAfterNs, final long tatNs, final long nowNs)
        {
            return rejectedClassed(decision, 0, retryAfterNs, tatNs, nowNs);
        }

        protected long tableFull(final Decision decision, final long incrementNs, final long nowNs)
        {
            // REJECT or ADMIT: the constructor refuses OVERFLOW on a classed table.
            return DecisionLoop.tableFull(
                table, policy, decision, incrementNs, limits[0].ceilingNs(), limits[0], nowNs);
        }
    }
}
