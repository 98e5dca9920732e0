package dev.cellrate.warmup;

import dev.cellrate.check.Bounds;
import dev.cellrate.layout.CellArray;
import dev.cellrate.DebitLimiter;
import dev.cellrate.Decision;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import dev.cellrate.layout.CellLayout;
import dev.cellrate.lock.SeqLock;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;

import java.util.concurrent.TimeUnit;

import static org.agrona.BitUtil.SIZE_OF_LONG;

/**
 * A thread-safe, allocation-free limiter with Guava's {@code SmoothWarmingUp} semantics (cold factor 3), in
 * integer ns: after idling it starts <em>cold</em> (the next permits are spaced up to 3S apart) and warms up
 * to the stable interval S over the warm-up period W. Arithmetic: {@link WarmupMath}. The rate can be changed
 * live, as Guava's {@code setRate} does, including to unlimited ({@link #setRate(long, long)},
 * {@link #setUnlimited()}).
 * <p>
 * Layout: a seqlock cell ({@link CellArray} cell, 128 bytes; the stamp where {@code layout.CellLayout} puts it)
 * with three state words:
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |              stamp (SeqLock word: even = free)                |  STAMP_OFFSET = 0
 *  +---------------------------------------------------------------+
 *  |              nextFree (ns, signed)                            |  NEXT_FREE_OFFSET = 8
 *  +---------------------------------------------------------------+
 *  |              stored (ns of store, in [0, W])                  |  STORED_OFFSET = 16
 *  +---------------------------------------------------------------+
 *  |              S, the stable interval (ns; 0 = unlimited)       |  INTERVAL_OFFSET = 24
 *  +---------------------------------------------------------------+
 *  |              the rest of the 128-byte cell, unused            |
 *  +---------------------------------------------------------------+
 * </pre>
 * Why two state words: unlike SmoothBursty (where a waiting limiter never has stored permits, so one TAT word
 * holds both), a cold admission leaves permits stored <em>and</em> moves nextFree into the future, so the
 * state has two independent degrees of freedom; packing both exactly into 64 bits would cap the warm-up
 * period or the time range. S lives in the cell too, so a rate change and a decision are ordered by the one
 * seqlock: every decision is taken wholly under the old or wholly under the new rate.
 * <p>
 * Concurrency: the engine's {@link SeqLock} over the stamp word. A decider waits for an even stamp v, reads the
 * three words (acquire) and validates v; a changed stamp means retry. A rejection ({@code nextFree > t}) or a
 * peek is answered on that consistent snapshot and writes nothing. An admission takes the lock from v
 * ({@link SeqLock#tryLock}: succeeds only if nothing was written since the snapshot, so the snapshot is still
 * the state), writes nextFree and stored (release) and unlocks to v + 2. Debits and rate changes take the lock
 * ({@link SeqLock#lock}). A decider that meets an odd stamp spins.
 * <p>
 * Peek, debit, initial fill ({@link DebitLimiter}): {@code peek} is the decision on a validated snapshot.
 * {@code debit} is Guava's {@code reserve} (what {@code acquire(n)} charges, without sleeping): the cost is
 * charged after {@code max(nextFree, now)} whether or not a request would be admitted, its cold surcharge
 * included, and the debt is bounded: nextFree is never moved beyond {@code now + W + S} (a full store plus one
 * permit at the stable interval) by a debit, and a debit never lowers it. The initial fill is the store Guava
 * starts with: full (cold, Guava's start) by default; {@code k} stored permits ({@code min(W, k S)} ns) with the
 * {@link #WarmingUpRateLimiter(long, long, long, NanoClock, long)} constructor, 0 = warm (the stable rate from
 * the first request). Warm-up never admits a burst from its store: stored permits cost at least S each.
 * <p>
 * Codes: {@link Result#ADMITTED}, a positive retry-after in ns ({@code nextFree - t}, independent of the
 * cost: Guava's "next caller pays"), or {@link Result#NEVER} (cost outside [1, {@link #maxPermits()}], or a
 * nextFree beyond the long range).
 */
public final class WarmingUpRateLimiter implements DebitLimiter
{
    /** Largest warm-up period: 2<sup>61</sup> ns. */
    public static final long MAX_WARMUP_NS = 1L << 61;

    static final int STAMP_OFFSET = CellLayout.STAMP_OFFSET;
    static final int NEXT_FREE_OFFSET = STAMP_OFFSET + SIZE_OF_LONG;
    static final int STORED_OFFSET = NEXT_FREE_OFFSET + SIZE_OF_LONG;
    static final int INTERVAL_OFFSET = STORED_OFFSET + SIZE_OF_LONG;

    private final AtomicBuffer buffer;
    private final long warmupNs;
    private final NanoClock clock;

    /**
     * A cold limiter (store full, as Guava at construction) created at {@code createdNs}.
     *
     * @param stableIntervalNs S, in [1, 2<sup>62</sup>].
     * @param warmupNs         W, in [0, 2<sup>61</sup>].
     * @param createdNs        the creation time (Guava's first nextFree).
     * @param clock            the clock of the clock forms.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public WarmingUpRateLimiter(
        final long stableIntervalNs, final long warmupNs, final long createdNs, final NanoClock clock)
    {
        this(stableIntervalNs, warmupNs, createdNs, clock, WarmupMath.MAX_PERMITS);
    }

    /**
     * A limiter created at {@code createdNs} with {@code initialPermits} stored permits (the store
     * {@code min(W, k S)} ns): at or above {@code W / S} it is cold (Guava's start), 0 is warm.
     *
     * @param stableIntervalNs S, in [1, 2<sup>62</sup>].
     * @param warmupNs         W, in [0, 2<sup>61</sup>].
     * @param createdNs        the creation time (Guava's first nextFree).
     * @param clock            the clock of the clock forms.
     * @param initialPermits   stored permits at creation, &ge; 0.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public WarmingUpRateLimiter(
        final long stableIntervalNs,
        final long warmupNs,
        final long createdNs,
        final NanoClock clock,
        final long initialPermits)
    {
        if (null == clock)
        {
            throw new IllegalArgumentException("clock must not be null");
        }
        Bounds.requireRange("stableIntervalNs", stableIntervalNs, 1, Limit.MAX_CEILING_NS);
        Bounds.requireRange("warmupNs", warmupNs, 0, MAX_WARMUP_NS);
        Bounds.requireRange("initialPermits", initialPermits, 0, Long.MAX_VALUE);
        this.warmupNs = warmupNs;
        this.clock = clock;
        this.buffer = CellArray.allocate(1).buffer();
        final long storedNs = initialPermits > warmupNs / stableIntervalNs ?
            warmupNs : Math.min(warmupNs, initialPermits * stableIntervalNs);
        final long stamp = SeqLock.lock(buffer, STAMP_OFFSET);
        buffer.putLongRelease(NEXT_FREE_OFFSET, createdNs);
        buffer.putLongRelease(STORED_OFFSET, storedNs);
        buffer.putLongRelease(INTERVAL_OFFSET, stableIntervalNs);
        SeqLock.unlock(buffer, STAMP_OFFSET, stamp);
    }

    /**
     * Guava's {@code RateLimiter.create(permitsPerSecond, warmupPeriod, unit)} created at {@code createdNs}.
     * S is {@code ceil(10^9 / permitsPerSecond)}: exact when the rate divides 10<sup>9</sup>.
     *
     * @param permitsPerSecond the stable rate, in [1, 10<sup>9</sup>].
     * @param warmupPeriod     the warm-up period, &ge; 0.
     * @param unit             its unit.
     * @param createdNs        the creation time.
     * @param clock            the clock of the clock forms.
     * @return the limiter, cold.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public static WarmingUpRateLimiter guava(
        final long permitsPerSecond,
        final long warmupPeriod,
        final TimeUnit unit,
        final long createdNs,
        final NanoClock clock)
    {
        if (null == unit)
        {
            throw new IllegalArgumentException("unit must not be null");
        }
        final long stableIntervalNs = stableIntervalNs(permitsPerSecond);
        Bounds.requireRange("warmupPeriod", warmupPeriod, 0, Long.MAX_VALUE);
        final long warmupNs = Bounds.requireRange("warmupPeriod (in ns)", unit.toNanos(warmupPeriod), 0, MAX_WARMUP_NS);
        return new WarmingUpRateLimiter(stableIntervalNs, warmupNs, createdNs, clock);
    }

    /**
     * A cold limiter created now by {@link SystemNanoClock}.
     *
     * @param permitsPerSecond the stable rate.
     * @param warmupPeriod     the warm-up period.
     * @param unit             its unit.
     * @return the limiter.
     */
    public static WarmingUpRateLimiter guava(final long permitsPerSecond, final long warmupPeriod, final TimeUnit unit)
    {
        return guava(permitsPerSecond, warmupPeriod, unit, System.nanoTime(), SystemNanoClock.INSTANCE);
    }

    /**
     * Try to take {@code permits} at {@code nowNs} (admitted iff nextFree &le; t; the cost moves nextFree).
     *
     * @param permits the cost; outside [1, maxPermits] it is {@link Result#NEVER}.
     * @param nowNs   the time of the request.
     * @return {@link Result#ADMITTED}, a positive retry-after in ns, or {@link Result#NEVER}.
     */
    public long tryAcquire(final long permits, final long nowNs)
    {
        return decide(permits, nowNs, true);
    }

    /**
     * As {@link #tryAcquire(long, long)}, and fill {@code decision}: remaining 1 if one more permit would be
     * admitted at {@code nowNs} (Guava's rule admits one request whenever nextFree &le; now), else 0;
     * reset-after the time until nextFree; limit {@link #maxPermits()}. The fill is a diagnostic read.
     *
     * @param permits  the cost.
     * @param nowNs    the time of the request, ns.
     * @param decision a caller-owned holder, filled in place.
     * @return as {@link #tryAcquire(long, long)}.
     */
    public long tryAcquire(final long permits, final long nowNs, final Decision decision)
    {
        final long code = tryAcquire(permits, nowNs);
        final long nextFreeNs = nextFreeNs();
        final long untilFreeNs = nextFreeNs > nowNs ? nextFreeNs - nowNs : 0;
        decision.setOutcome(
            code, 0 == untilFreeNs ? 1 : 0, untilFreeNs < 0 ? Long.MAX_VALUE : untilFreeNs, maxPermits());
        return code;
    }

    /**
     * Guava has no peek: this is its {@code tryAcquire(permits)} answered on a validated snapshot, with no charge.
     *
     * @param permits the cost; outside [1, maxPermits] it is {@link Result#NEVER}.
     * @param nowNs   the time of the question, ns.
     * @return {@link Result#ADMITTED}, the ns until nextFree, or {@link Result#NEVER}.
     */
    public long peek(final long permits, final long nowNs)
    {
        return decide(permits, nowNs, false);
    }

    /**
     * Charge {@code permits} after the fact, as Guava's {@code acquire(n)} reserves them (no sleep): after
     * {@code max(nextFree, now)}, cold surcharge included, whether or not a request would be admitted now.
     * Bounded: a debit moves nextFree to at most {@code now + W + S} and never lowers it; the store is drained
     * as Guava drains it. Unlimited: nothing is charged.
     *
     * @param permits the cost learned after the fact, &ge; 1 (any size; the charge is clamped at 2<sup>62</sup>
     *                ns before the bound applies); below 1 it is {@link Result#NEVER}.
     * @param nowNs   the time, ns.
     * @return {@link Result#ADMITTED} if a request would still be admitted after the charge, else the ns until
     * nextFree.
     */
    public long debit(final long permits, final long nowNs)
    {
        if (permits < 1)
        {
            return Result.NEVER;
        }
        final AtomicBuffer buffer = this.buffer;
        final long stamp = SeqLock.lock(buffer, STAMP_OFFSET);
        long nextFreeNs = buffer.getLongAcquire(NEXT_FREE_OFFSET);
        final long intervalNs = buffer.getLongAcquire(INTERVAL_OFFSET);
        if (WarmupMath.UNLIMITED_INTERVAL_NS != intervalNs)
        {
            final long storedNowNs =
                WarmupMath.storedNs(buffer.getLongAcquire(STORED_OFFSET), nextFreeNs, nowNs, warmupNs);
            final long chargeNs = permits > WarmupMath.MAX_CHARGE_NS / intervalNs ?
                WarmupMath.MAX_CHARGE_NS : permits * intervalNs;
            nextFreeNs = WarmupMath.debitedNextFreeNs(nextFreeNs, nowNs,
                WarmupMath.waitNs(storedNowNs, chargeNs, warmupNs), warmupNs + intervalNs);
            buffer.putLongRelease(NEXT_FREE_OFFSET, nextFreeNs);
            buffer.putLongRelease(STORED_OFFSET, WarmupMath.storedAfterNs(storedNowNs, chargeNs));
        }
        SeqLock.unlock(buffer, STAMP_OFFSET, stamp);
        return untilFreeNs(nextFreeNs, nowNs);
    }

    /**
     * Guava's {@code setRate(permitsPerSecond)} at {@code nowNs}: S becomes {@code ceil(10^9 / permitsPerSecond)}.
     * Guava rescales the stored permits by {@code maxPermits' / maxPermits = S / S'}, so the store <em>in time</em>
     * (and the threshold W/2 and nextFree) is unchanged: only S changes. Leaving the unlimited rate, Guava's store
     * is emptied (the limiter is warm) and nextFree becomes {@code max(nextFree, now)}. Atomic for concurrent
     * deciders (one seqlock write); changes serialise among themselves.
     *
     * @param permitsPerSecond the new stable rate, in [1, 10<sup>9</sup>].
     * @param nowNs            the time of the change, ns (Guava reads its clock here).
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public void setRate(final long permitsPerSecond, final long nowNs)
    {
        setStableIntervalNs(stableIntervalNs(permitsPerSecond), nowNs);
    }

    /**
     * {@link #setRate(long, long)} at the clock's time.
     *
     * @param permitsPerSecond the new stable rate, in [1, 10<sup>9</sup>].
     */
    public void setRate(final long permitsPerSecond)
    {
        setRate(permitsPerSecond, clock.nanoTime());
    }

    /**
     * As {@link #setRate(long, long)} with S given in ns.
     *
     * @param stableIntervalNs the new S, in [1, 2<sup>62</sup>].
     * @param nowNs            the time of the change, ns.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public void setStableIntervalNs(final long stableIntervalNs, final long nowNs)
    {
        Bounds.requireRange("stableIntervalNs", stableIntervalNs, 1, Limit.MAX_CEILING_NS);
        final AtomicBuffer buffer = this.buffer;
        final long stamp = SeqLock.lock(buffer, STAMP_OFFSET);
        if (WarmupMath.UNLIMITED_INTERVAL_NS == buffer.getLongAcquire(INTERVAL_OFFSET))
        {
            buffer.putLongRelease(NEXT_FREE_OFFSET, Math.max(buffer.getLongAcquire(NEXT_FREE_OFFSET), nowNs));
            buffer.putLongRelease(STORED_OFFSET, 0);
        }
        buffer.putLongRelease(INTERVAL_OFFSET, stableIntervalNs);
        SeqLock.unlock(buffer, STAMP_OFFSET, stamp);
    }

    /**
     * Guava's {@code setRate(Double.POSITIVE_INFINITY)}: limiting off. A request is admitted once the wait
     * already charged has passed ({@code nextFree <= now}, as Guava), and nothing is charged. Atomic for
     * concurrent deciders.
     */
    public void setUnlimited()
    {
        final long stamp = SeqLock.lock(buffer, STAMP_OFFSET);
        buffer.putLongRelease(INTERVAL_OFFSET, WarmupMath.UNLIMITED_INTERVAL_NS);
        SeqLock.unlock(buffer, STAMP_OFFSET, stamp);
    }

    /**
     * @return true while the rate is unlimited.
     */
    public boolean isUnlimited()
    {
        return WarmupMath.UNLIMITED_INTERVAL_NS == stableIntervalNs();
    }

    /**
     * @return nextFree (a consistent read).
     */
    public long nextFreeNs()
    {
        return SeqLock.read(buffer, STAMP_OFFSET, NEXT_FREE_OFFSET);
    }

    /**
     * @return the store in ns after the last charge (a consistent read).
     */
    public long storedNs()
    {
        return SeqLock.read(buffer, STAMP_OFFSET, STORED_OFFSET);
    }

    /**
     * @return S, 0 while unlimited (a consistent read).
     */
    public long stableIntervalNs()
    {
        return SeqLock.read(buffer, STAMP_OFFSET, INTERVAL_OFFSET);
    }

    /**
     * @return W.
     */
    public long warmupNs()
    {
        return warmupNs;
    }

    /**
     * @return the largest accepted cost under the current rate: {@code min(2^31 - 1, 2^62 / S)}.
     */
    public long maxPermits()
    {
        return WarmupMath.maxPermits(stableIntervalNs());
    }

    /**
     * @return the clock the clock forms read.
     */
    public NanoClock clock()
    {
        return clock;
    }

    /**
     * The one decision of {@code tryAcquire} and {@code peek}: a validated snapshot of the cell; a rejection (or,
     * for a peek or the unlimited rate, an admission) is answered on it; a charge takes the lock from the very
     * stamp it read, which proves the snapshot is still the state.
     */
    private long decide(final long permits, final long nowNs, final boolean charge)
    {
        final AtomicBuffer buffer = this.buffer;
        while (true)
        {
            final long stamp = SeqLock.awaitStamp(buffer, STAMP_OFFSET);
            final long nextFreeNs = buffer.getLongAcquire(NEXT_FREE_OFFSET);
            final long storedNs = buffer.getLongAcquire(STORED_OFFSET);
            final long intervalNs = buffer.getLongAcquire(INTERVAL_OFFSET);
            if (!SeqLock.validate(buffer, STAMP_OFFSET, stamp))
            {
                continue;
            }
            final long chargeNs = WarmupMath.chargeNs(permits, intervalNs);
            if (chargeNs < 0)
            {
                return Result.NEVER;
            }
            if (nextFreeNs > nowNs)
            {
                return untilFreeNs(nextFreeNs, nowNs);
            }
            final long storedNowNs = WarmupMath.storedNs(storedNs, nextFreeNs, nowNs, warmupNs);
            final long waitNs = WarmupMath.waitNs(storedNowNs, chargeNs, warmupNs);
            if (nowNs > Long.MAX_VALUE - waitNs)
            {
                return Result.NEVER;
            }
            if (!charge || 0 == chargeNs)
            {
                return Result.ADMITTED; // a peek, or unlimited: nothing to charge
            }
            if (SeqLock.tryLock(buffer, STAMP_OFFSET, stamp))
            {
                buffer.putLongRelease(NEXT_FREE_OFFSET, nowNs + waitNs);
                buffer.putLongRelease(STORED_OFFSET, WarmupMath.storedAfterNs(storedNowNs, chargeNs));
                SeqLock.unlock(buffer, STAMP_OFFSET, stamp);
                return Result.ADMITTED;
            }
        }
    }

    private static long untilFreeNs(final long nextFreeNs, final long nowNs)
    {
        if (nextFreeNs <= nowNs)
        {
            return Result.ADMITTED;
        }
        final long untilNs = nextFreeNs - nowNs;
        return untilNs > 0 ? untilNs : Long.MAX_VALUE;
    }

    private static long stableIntervalNs(final long permitsPerSecond)
    {
        Bounds.requireRange("permitsPerSecond", permitsPerSecond, 1, 1_000_000_000L);
        return 1_000_000_000L / permitsPerSecond + (1_000_000_000L % permitsPerSecond != 0 ? 1 : 0);
    }
}
