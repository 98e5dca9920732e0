package dev.cellrate;

import dev.cellrate.gcra.Gcra;
import dev.cellrate.gcra.PayLaterGcra;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;

/**
 * A thread-safe, lock-free, allocation-free limiter with Guava's "next caller pays" admission
 * ({@link PayLaterGcra}): a request of any cost up to {@link #maxPermits()} is admitted whenever one permit
 * would be, and its whole cost is charged, delaying later callers. For single permits it decides exactly as
 * {@link RateLimiter}; it is a separate front so the {@link RateLimiter} path stays untouched.
 * <p>
 * Bounds: {@code maxPermits * T <= 2^62} is checked at construction, so no charge can overflow; a cost
 * outside [1, maxPermits] is {@link Result#NEVER}. The cell may start at any TAT (Guava starts
 * <em>empty</em>: {@code created + &tau;}).
 * <p>
 * Concurrency: as {@link RateLimiter}: one acquire read, a CAS only when admitted (see
 * {@link dev.cellrate.gcra.AtomicGcra} for the argument, which carries over unchanged).
 * <p>
 * Every decision method returns {@link Result#ADMITTED} (0), a positive retry-after in ns (when one permit
 * would conform; it does not depend on the cost), or {@link Result#NEVER} (-1).
 */
public final class PayLaterRateLimiter implements Limiter
{
    private final AtomicBuffer buffer;
    private final int tatOffset;
    private final long emissionIntervalNs;
    private final long toleranceNs;
    private final long maxPermits;
    private final Limit limit;
    private final NanoClock clock;

    /**
     * A limiter with its own cell, starting at {@code initialTatNs}.
     *
     * @param limit        GCRA(T, &tau;).
     * @param maxPermits   largest cost, in [1, 2<sup>62</sup> / T].
     * @param initialTatNs the cell's first TAT ({@link CellArray#FRESH_TAT_NS} = full bucket).
     * @param clock        the clock of the clock forms.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public PayLaterRateLimiter(final Limit limit, final long maxPermits, final long initialTatNs, final NanoClock clock)
    {
        if (null == limit || null == clock)
        {
            throw new IllegalArgumentException("limit and clock must not be null");
        }
        Bounds.requireRange("maxPermits", maxPermits, 1, Limit.MAX_CEILING_NS / limit.emissionIntervalNs());
        this.limit = limit;
        this.clock = clock;
        this.maxPermits = maxPermits;
        this.emissionIntervalNs = limit.emissionIntervalNs();
        this.toleranceNs = limit.toleranceNs();
        this.buffer = CellArray.allocate(1).buffer();
        this.tatOffset = CellArray.tatOffset(0);
        buffer.putLongVolatile(tatOffset, initialTatNs);
    }

    /**
     * A full-bucket limiter with its own cell and {@link SystemNanoClock}.
     *
     * @param limit      GCRA(T, &tau;).
     * @param maxPermits largest cost, in [1, 2<sup>62</sup> / T].
     */
    public PayLaterRateLimiter(final Limit limit, final long maxPermits)
    {
        this(limit, maxPermits, CellArray.FRESH_TAT_NS, SystemNanoClock.INSTANCE);
    }

    /**
     * Try to take {@code permits} at {@code nowNs}, paying later for all but the first.
     *
     * @param permits the cost; outside [1, maxPermits] it is {@link Result#NEVER}.
     * @param nowNs   the time of the request, ns.
     * @return {@link Result#ADMITTED}, a positive retry-after in ns, or {@link Result#NEVER}.
     */
    public long tryAcquire(final long permits, final long nowNs)
    {
        if (permits < 1 || permits > maxPermits)
        {
            return Result.NEVER;
        }
        final long chargeNs = permits * emissionIntervalNs;
        long tatNs = buffer.getLongAcquire(tatOffset);
        while (true)
        {
            final long retryAfterNs = PayLaterGcra.retryAfterNs(tatNs, nowNs, toleranceNs);
            if (retryAfterNs > 0)
            {
                return retryAfterNs;
            }
            final long nextTatNs = Gcra.nextTatNs(tatNs, nowNs, chargeNs);
            if (Gcra.UNREPRESENTABLE == nextTatNs)
            {
                return Result.NEVER;
            }
            final long witnessNs = buffer.compareAndExchangeLong(tatOffset, tatNs, nextTatNs);
            if (witnessNs == tatNs)
            {
                return Result.ADMITTED;
            }
            tatNs = witnessNs;
        }
    }

    /**
     * As {@link #tryAcquire(long, long)}, and fill {@code decision} from the cell as it is after the decision.
     *
     * @param permits  the cost.
     * @param nowNs    the time of the request, ns.
     * @param decision a caller-owned holder, filled in place.
     * @return as {@link #tryAcquire(long, long)}.
     */
    public long tryAcquire(final long permits, final long nowNs, final Decision decision)
    {
        final long code = tryAcquire(permits, nowNs);
        decision.set(code, buffer.getLongAcquire(tatOffset), nowNs, limit);
        return code;
    }

    /**
     * @return the cell's current TAT (acquire read).
     */
    public long tatNs()
    {
        return buffer.getLongAcquire(tatOffset);
    }

    /**
     * @return the largest accepted cost.
     */
    public long maxPermits()
    {
        return maxPermits;
    }

    /**
     * @return the limit.
     */
    public Limit limit()
    {
        return limit;
    }

    /**
     * @return the clock the clock forms read.
     */
    public NanoClock clock()
    {
        return clock;
    }
}
