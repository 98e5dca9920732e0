package dev.cellrate;

import dev.cellrate.check.Bounds;
import dev.cellrate.layout.CellArray;
import dev.cellrate.gcra.AtomicGcra;
import dev.cellrate.gcra.Gcra;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;

/**
 * A thread-safe, lock-free, allocation-free limiter with Guava's "next caller pays" admission:
 * a request of any cost up to {@link #maxPermits()} is admitted whenever one permit
 * would be, and its whole cost is charged, delaying later callers. For single permits it decides exactly as
 * {@link RateLimiter}; it is a separate front so the {@link RateLimiter} path stays untouched.
 * <p>
 * Bounds: {@code maxPermits * T <= 2^62} is checked at construction, so no charge can overflow; a cost
 * outside [1, maxPermits] is {@link Result#NEVER}. The cell starts full, with a number of permits available
 * ({@link #PayLaterRateLimiter(Limit, long, NanoClock, long)}), or empty as Guava's {@code SmoothBursty} starts
 * ({@link #startingEmpty(Limit, long, long, NanoClock)}).
 * <p>
 * Algorithm: GCRA whose ceiling grows with the cost. A request of cost n (charge {@code I = n T}) conforms
 * iff {@code lag <= &tau;}, i.e. {@code lag + I <= &tau; + I}: the one cell loop of
 * {@link AtomicGcra} with ceiling {@code &tau; + I} instead of {@code &tau; + T}. The retry-after is then
 * {@code lag - &tau;}, whatever the cost.
 * <p>
 * Concurrency: as {@link RateLimiter}: one acquire read, a CAS only when admitted (see
 * {@link AtomicGcra}).
 * <p>
 * Every decision method returns {@link Result#ADMITTED} (0), a positive retry-after in ns (when one permit
 * would conform; it does not depend on the cost), or {@link Result#NEVER} (-1).
 */
public final class PayLaterRateLimiter implements DebitLimiter
{
    private final AtomicBuffer buffer;
    private final int tatOffset;
    private final long emissionIntervalNs;
    private final long toleranceNs;
    private final long maxPermits;
    private final Limit limit;
    /** The cell loop with the steps that fill a caller's {@link Decision} under this front's limit. */
    private final DecisionFill fill;
    private final NanoClock clock;

    /**
     * A limiter with its own cell, starting at {@code initialTatNs} (inside the engine: a TAT is never part of
     * the API).
     */
    private PayLaterRateLimiter(final Limit limit, final long maxPermits, final long initialTatNs, final NanoClock clock)
    {
        Bounds.requireNonNull("limit", limit);
        Bounds.requireNonNull("clock", clock);
        Bounds.requireRange("maxPermits", maxPermits, 1, Limit.MAX_CEILING_NS / limit.emissionIntervalNs());
        this.limit = limit;
        this.fill = new DecisionFill(limit);
        this.clock = clock;
        this.maxPermits = maxPermits;
        this.emissionIntervalNs = limit.emissionIntervalNs();
        this.toleranceNs = limit.toleranceNs();
        this.buffer = CellArray.allocate(1).buffer();
        this.tatOffset = CellArray.tatOffset(0);
        buffer.putLongVolatile(tatOffset, initialTatNs);
    }

    /**
     * A full-bucket limiter with its own cell.
     *
     * @param limit      GCRA(T, &tau;).
     * @param maxPermits largest cost, in [1, 2<sup>62</sup> / T].
     * @param clock      the clock of the clock forms.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public PayLaterRateLimiter(final Limit limit, final long maxPermits, final NanoClock clock)
    {
        this(limit, maxPermits, CellArray.FRESH_TAT_NS, clock);
    }

    /**
     * A limiter with its own cell and an initial fill: {@code initialPermits} single permits are admitted at
     * creation before the first rejection (0: nothing until one emission interval has passed; at or
     * above the burst = full). {@link #startingEmpty} starts as Guava does instead.
     *
     * @param limit          GCRA(T, &tau;).
     * @param maxPermits     largest cost, in [1, 2<sup>62</sup> / T].
     * @param clock          the clock of the clock forms, read once here for the creation time.
     * @param initialPermits permits available at creation, &ge; 0.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public PayLaterRateLimiter(
        final Limit limit, final long maxPermits, final NanoClock clock, final long initialPermits)
    {
        this(limit, maxPermits, CellArray.FRESH_TAT_NS, clock);
        buffer.putLongVolatile(tatOffset, Gcra.initialFillTatNs(clock.nanoTime(), initialPermits, limit.emissionIntervalNs(), limit.ceilingNs()));
    }

    /**
     * A limiter that starts empty at {@code nowNs} as Guava's {@code SmoothBursty} starts at its creation: no
     * stored permits. A request waits only for its first permit, so the first request at {@code nowNs} is admitted
     * and charges its whole cost; the next waits until that cost is paid. Permits are stored while the limiter is
     * idle, up to &tau; / T.
     *
     * @param limit      GCRA(T, &tau;).
     * @param maxPermits largest cost, in [1, 2<sup>62</sup> / T].
     * @param nowNs      the time the limiter starts empty, on the same clock as later {@code nowNs} values.
     * @param clock      the clock of the clock forms.
     * @return the limiter.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public static PayLaterRateLimiter startingEmpty(
        final Limit limit, final long maxPermits, final long nowNs, final NanoClock clock)
    {
        Bounds.requireNonNull("limit", limit);
        return new PayLaterRateLimiter(limit, maxPermits, Gcra.emptyPayLaterTatNs(nowNs, limit.toleranceNs()), clock);
    }

    /**
     * A limiter whose cell starts at {@code tatNs}: the engine's own tests reach odd states through it.
     */
    static PayLaterRateLimiter atTat(final Limit limit, final long maxPermits, final long tatNs, final NanoClock clock)
    {
        return new PayLaterRateLimiter(limit, maxPermits, tatNs, clock);
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
        final long chargeNs = chargeNs(permits);
        return AtomicGcra.acquire(buffer, tatOffset, chargeNs, toleranceNs + chargeNs, nowNs);
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
        final long chargeNs = chargeNs(permits);
        return fill.charge(buffer.byteArray(), buffer.addressOffset() + tatOffset, chargeNs, toleranceNs + chargeNs,
            nowNs, decision);
    }

    /**
     * @param permits the cost.
     * @param nowNs   the time, ns.
     * @return what {@link #tryAcquire(long, long)} would answer, without charging.
     */
    public long peek(final long permits, final long nowNs)
    {
        final long chargeNs = chargeNs(permits);
        return AtomicGcra.peek(buffer, tatOffset, chargeNs, toleranceNs + chargeNs, nowNs);
    }

    /**
     * @param permits the cost learned after the fact.
     * @param nowNs   the time, ns.
     * @return see {@link DebitLimiter#debit(long, long)}.
     */
    public long debit(final long permits, final long nowNs)
    {
        return AtomicGcra.debit(buffer, tatOffset, limit.debitIncrementNs(permits), limit.ceilingNs(),
            limit.debtCeilingNs(), emissionIntervalNs, nowNs);
    }

    private long chargeNs(final long permits)
    {
        return permits >= 1 && permits <= maxPermits ? permits * emissionIntervalNs : Result.NEVER;
    }

    /**
     * @return the cell's current TAT (acquire read); inside the engine only.
     */
    long tatNs()
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
