package dev.cellrate;

import dev.cellrate.check.Bounds;
import dev.cellrate.Decision;
import dev.cellrate.KeyedLimiter;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import dev.cellrate.TableFullPolicy;
import dev.cellrate.DecisionLoop;
import dev.cellrate.table.SlotTable;
import dev.cellrate.table.mapped.SharedLimit;
import org.agrona.concurrent.NanoClock;

/**
 * A thread-safe, allocation-free GCRA limiter per key over a {@link SlotTable} whose one {@link Limit} (the
 * limit of every key) can be replaced at run time ({@link #setLimit(Limit)}), for every key at once, without a
 * stop and without touching a single cell.
 * <p>
 * State under a new limit: the rule of {@link dev.cellrate.reconfigure.ReconfigurableRateLimiter}, per key: every cell
 * keeps its TAT (<b>the debt is kept in time</b>), so nobody gets a fresh burst by a change and a change is O(1)
 * whatever the number of keys. An idle key (TAT &le; now) has a full bucket of the new size; a key {@code D} ns in
 * debt stays {@code D} ns in debt and its next {@code n} permits conform iff {@code D + n T' &le; &tau;' + T'}.
 * Eviction (TAT &le; now - grace) is independent of the limit: an evicted key had no debt under any limit.
 * <p>
 * Concurrency: the limit lives in an immutable object (the front's slot-loop step, which holds the limit and
 * its {@code T}, {@code &tau; + T}) published by one volatile store; a decision reads it once and runs the
 * table's one slot loop ({@link DecisionLoop}) under it, so a decision racing a change is decided wholly under the
 * old or wholly under the new limit, and the {@link Decision} holder is filled under that same limit. The
 * plain {@code KeyedRateLimiter} is untouched: its limit stays a final field.
 * <p>
 * On a mapped file ({@code mappedFile}): the limit is the file's, the same for every process on the file.
 * {@link #setLimit} writes it into the file's header for all of them; every decision compares the header's limit
 * generation (one load) with the one it decides under, and takes up the file's limit when it moved, so a change
 * made by one process is followed by every other at its next decision.
 * <p>
 * Codes: as {@code KeyedRateLimiter}: {@link Result#ADMITTED}, a positive retry-after in ns (under the limit
 * current at the decision), {@link Result#NEVER}, and when the table is full the code of the
 * {@link TableFullPolicy} ({@code OVERFLOW} decides the shared overflow cell under the current limit, which
 * keeps its TAT like any cell).
 */
public final class ReconfigurableKeyedRateLimiter extends TableFront implements KeyedLimiter
{
    private final TableFullPolicy policy;
    private final NanoClock clock;
    private volatile DecisionLoop step;

    /** A mapped file's limit, which every process on the file follows; null for a table of this process. */
    private final SharedLimit shared;

    /** The generation of {@link #shared} that {@link #step} decides under (written after the step). */
    private volatile long generation;

    /**
     * @param limit  the initial limit of every key.
     * @param table  the table (not shared with another front that decides under another limit).
     * @param policy what a new key gets when the table is full.
     * @throws IllegalArgumentException if any is null.
     */
    ReconfigurableKeyedRateLimiter(final Limit limit, final SlotTable table, final TableFullPolicy policy)
    {
        super(table);
        Bounds.requireNonNull("limit", limit);
        Bounds.requireNonNull("policy", policy);
        this.policy = policy;
        this.clock = table.evictionClock();
        this.step = new DecisionLoop(table, limit, policy);
        this.shared = null;
    }

    /**
     * On a mapped file's table: the limit is the file's, followed at every decision.
     *
     * @param limit  the file's limit in use (the builder's, which opening checked against the file's).
     * @param table  the file's table.
     * @param policy what a new key gets when the table is full.
     * @param shared the file's limit.
     */
    ReconfigurableKeyedRateLimiter(
        final Limit limit, final SlotTable table, final TableFullPolicy policy, final SharedLimit shared)
    {
        super(table);
        Bounds.requireNonNull("limit", limit);
        this.policy = Bounds.requireNonNull("policy", policy);
        this.clock = table.evictionClock();
        this.shared = shared;
        this.step = new DecisionLoop(table, limit, policy);
        follow();
    }

    /**
     * Replace the limit of every key; every cell keeps its TAT. Any thread; O(1).
     *
     * @param limit the new limit.
     * @throws IllegalArgumentException if null.
     */
    public void setLimit(final Limit limit)
    {
        Bounds.requireNonNull("limit", limit);
        if (null != shared)
        {
            shared.change(new long[] {limit.emissionIntervalNs(), limit.toleranceNs()});
            follow();
            return;
        }
        step = new DecisionLoop(table, limit, policy);
    }

    /**
     * Decide under the mapped file's limit in use from now on (the limit another process may have set).
     */
    private synchronized void follow()
    {
        final long[] current = shared.read();
        if (current[0] != generation || current[1] != step.limit.emissionIntervalNs() ||
            current[2] != step.limit.toleranceNs())
        {
            step = new DecisionLoop(table, Limit.ofGcra(current[1], current[2]), policy);
        }
        generation = current[0];
    }

    /**
     * @return the current limit.
     */
    public Limit limit()
    {
        if (null != shared && shared.generation() != generation)
        {
            follow();
        }
        return step.limit;
    }

    /**
     * @param key     the key.
     * @param permits the cost; outside [1, burst of the current limit] it is {@link Result#NEVER}.
     * @param nowNs   the time of the request, ns.
     * @return see the class documentation.
     */
    public long tryAcquire(final long key, final long permits, final long nowNs)
    {
        return charge(table.keyWord(key), permits, nowNs, null);
    }

    /**
     * @param key      the key.
     * @param permits  the cost.
     * @param nowNs    the time of the request, ns.
     * @param decision a caller-owned holder, filled under the limit that decided.
     * @return as {@link #tryAcquire(long, long, long)}.
     */
    public long tryAcquire(final long key, final long permits, final long nowNs, final Decision decision)
    {
        return charge(table.keyWord(key), permits, nowNs, decision);
    }

    /**
     * @param key     the key, as its UTF-8 bytes.
     * @param permits the cost.
     * @param nowNs   the time of the request, ns.
     * @return as {@link #tryAcquire(long, long, long)}.
     */
    public long tryAcquire(final CharSequence key, final long permits, final long nowNs)
    {
        return charge(table.keyWord(key), permits, nowNs, null);
    }

    /**
     * @param key      the key, as its UTF-8 bytes.
     * @param permits  the cost.
     * @param nowNs    the time of the request, ns.
     * @param decision a caller-owned holder, filled under the limit that decided.
     * @return as {@link #tryAcquire(long, long, long)}.
     */
    public long tryAcquire(final CharSequence key, final long permits, final long nowNs, final Decision decision)
    {
        return charge(table.keyWord(key), permits, nowNs, decision);
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
        return charge(table.keyWord(key, offset, length), permits, nowNs, null);
    }

    /**
     * @param keyWord a key word from {@link SlotTable#keyWord} of {@link #table()}.
     * @param permits the cost.
     * @param nowNs   the time of the request, ns.
     * @return as {@link #tryAcquire(long, long, long)}.
     */
    long tryAcquireKeyWord(final long keyWord, final long permits, final long nowNs)
    {
        return charge(keyWord, permits, nowNs, null);
    }

    /**
     * @param key the key.
     * @return the TAT of its cell, or {@link SlotTable#STALE} if it has none (tests, through {@code TestFronts}).
     */
    long tatNs(final long key)
    {
        return table.tatNs(table.keyWord(key));
    }


    /**
     * @return the table-full policy.
     */
    public TableFullPolicy policy()
    {
        return policy;
    }

    /**
     * @return the clock of the clock-reading forms (the table's eviction clock).
     */
    public NanoClock clock()
    {
        return clock;
    }

    private long charge(final long keyWord, final long permits, final long nowNs, final Decision decision)
    {
        if (null != shared && shared.generation() != generation)
        {
            follow();
        }
        final DecisionLoop step = this.step;
        return step.charge(keyWord, step.limit.incrementNs(permits), step.ceilingNs, nowNs, decision);
    }
}
