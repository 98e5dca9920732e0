package dev.cellrate;

import dev.cellrate.layout.CellArray;
import dev.cellrate.gcra.Gcra;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;

/**
 * The {@link RateLimiter} for a caller confined to one thread (one event loop, one trading strand): the same
 * {@link Gcra} decisions with plain loads and stores instead of a CAS.
 * <p>
 * Threading: every decision must come from the same thread, or from threads that hand the limiter over
 * with a happens-before edge (a queue, a lock). Concurrent use over-admits; use {@link RateLimiter} then.
 * <p>
 * Every decision method returns a {@link Result} code: {@link Result#ADMITTED} (0), a positive retry-after
 * in ns, or {@link Result#NEVER} (-1).
 */
public final class SingleThreadedRateLimiter extends CellFront implements DebitLimiter
{
    /**
     * @param limit the limit; the clock is {@link SystemNanoClock}.
     */
    public SingleThreadedRateLimiter(final Limit limit)
    {
        this(limit, CellArray.allocate(1), 0, SystemNanoClock.INSTANCE);
    }

    /**
     * @param limit the limit.
     * @param clock the clock of the clock forms (e.g. the event loop's Agrona {@code CachedNanoClock}).
     */
    public SingleThreadedRateLimiter(final Limit limit, final NanoClock clock)
    {
        this(limit, CellArray.allocate(1), 0, clock);
    }

    /**
     * @param limit          the limit.
     * @param clock          the clock of the clock forms, read once here for the creation time.
     * @param initialPermits permits available at creation, &ge; 0 (0 = empty; at or above the burst = full).
     */
    public SingleThreadedRateLimiter(final Limit limit, final NanoClock clock, final long initialPermits)
    {
        this(limit, clock);
        buffer.putLong(tatOffset, Gcra.initialFillTatNs(clock.nanoTime(), initialPermits, limit.emissionIntervalNs(), limit.ceilingNs()));
    }

    /**
     * @param limit     the limit.
     * @param cells     the array holding the cell.
     * @param cellIndex the cell, in [0, cells.cellCount()).
     * @param clock     the clock of the clock forms.
     */
    SingleThreadedRateLimiter(
        final Limit limit, final CellArray cells, final int cellIndex, final NanoClock clock)
    {
        super(limit, cells, cellIndex, clock);
    }

    /**
     * @param permits the cost; outside [1, burst] it is {@link Result#NEVER}.
     * @param nowNs   the time of the request, ns.
     * @return {@link Result#ADMITTED}, a positive retry-after in ns, or {@link Result#NEVER}.
     */
    public long tryAcquire(final long permits, final long nowNs)
    {
        return charge(limit.incrementNs(permits), nowNs);
    }

    /**
     * @param permits  the cost.
     * @param nowNs    the time of the request, ns.
     * @param decision a caller-owned holder, filled in place.
     * @return {@link Result#ADMITTED}, a positive retry-after in ns, or {@link Result#NEVER}.
     */
    public long tryAcquire(final long permits, final long nowNs, final Decision decision)
    {
        final long code = charge(limit.incrementNs(permits), nowNs);
        decision.set(code, Gcra.resetAfterNs(buffer.getLong(tatOffset), nowNs), limit);
        return code;
    }

    /**
     * @param permits the cost.
     * @param nowNs   the time, ns.
     * @return what {@link #tryAcquire(long, long)} would answer, without charging.
     */
    public long peek(final long permits, final long nowNs)
    {
        final long incrementNs = limit.incrementNs(permits);
        return incrementNs < 1 ? Result.NEVER : Gcra.decide(buffer.getLong(tatOffset), nowNs, incrementNs, ceilingNs);
    }

    /**
     * @param permits the cost learned after the fact.
     * @param nowNs   the time, ns.
     * @return see {@link DebitLimiter#debit(long, long)}.
     */
    public long debit(final long permits, final long nowNs)
    {
        final long incrementNs = limit.debitIncrementNs(permits);
        if (incrementNs < 1)
        {
            return Result.NEVER;
        }
        final long tatNs = Gcra.debitTatNs(buffer.getLong(tatOffset), nowNs, incrementNs, limit.debtCeilingNs());
        buffer.putLong(tatOffset, tatNs);
        return Gcra.retryAfterNs(tatNs, nowNs, emissionIntervalNs, ceilingNs);
    }

    private long charge(final long incrementNs, final long nowNs)
    {
        if (incrementNs < 1)
        {
            return Result.NEVER;
        }
        final long tatNs = buffer.getLong(tatOffset);
        final long code = Gcra.decide(tatNs, nowNs, incrementNs, ceilingNs);
        if (Result.ADMITTED == code)
        {
            buffer.putLong(tatOffset, Math.max(tatNs, nowNs) + incrementNs);
        }
        return code;
    }
}
