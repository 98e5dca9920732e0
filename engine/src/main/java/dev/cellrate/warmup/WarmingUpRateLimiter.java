package dev.cellrate.warmup;

import dev.cellrate.CellArray;
import dev.cellrate.Decision;
import dev.cellrate.Limiter;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import dev.cellrate.lock.SeqLock;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;

import java.util.concurrent.TimeUnit;

/**
 * A thread-safe, allocation-free limiter with Guava's {@code SmoothWarmingUp} semantics (cold factor 3), in
 * integer ns: after idling it starts <em>cold</em> (the next permits are spaced up to 3S apart) and warms up
 * to the stable interval S over the warm-up period W. Arithmetic: {@link WarmupMath}.
 * <p>
 * Layout: two state words and a version word in one padded, 128-byte-aligned cell:
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |              SeqLock stamp (even: free, odd: being written)   |  VERSION_OFFSET
 *  +---------------------------------------------------------------+
 *  |              nextFree (ns, signed)                            |  NEXT_FREE_OFFSET
 *  +---------------------------------------------------------------+
 *  |              stored (ns of store, in [0, W])                  |  STORED_OFFSET
 *  +---------------------------------------------------------------+
 *  |              padding to CELL_LENGTH = 128 bytes               |
 *  +---------------------------------------------------------------+
 * </pre>
 * Why two words: unlike SmoothBursty (where a waiting limiter never has stored permits, so one TAT word
 * holds both), a cold admission leaves permits stored <em>and</em> moves nextFree into the future, so the
 * state has two independent degrees of freedom; packing both exactly into 64 bits would cap the warm-up
 * period or the time range.
 * <p>
 * Concurrency: the engine's {@link SeqLock} over the version word. A decider waits for an even stamp v,
 * reads nextFree and stored (acquire), and validates v; a changed stamp means retry. A rejection
 * ({@code nextFree > t}) is decided on that consistent snapshot and writes nothing. An admission takes the
 * lock from v ({@link SeqLock#tryLock}: succeeds only if no other admission happened since the snapshot, so
 * the snapshot is still the state), writes nextFree and stored (release) and unlocks to v + 2. Admissions are
 * linearised at the stamp CAS. A decider that meets an odd stamp spins.
 * <p>
 * Codes: {@link Result#ADMITTED}, a positive retry-after in ns ({@code nextFree - t}, independent of the
 * cost: Guava's "next caller pays"), or {@link Result#NEVER} (cost outside [1, maxPermits], or a nextFree
 * beyond the long range).
 */
public final class WarmingUpRateLimiter implements Limiter
{
    /** Offset of the version word. */
    public static final int VERSION_OFFSET = 0;
    /** Offset of the nextFree word. */
    public static final int NEXT_FREE_OFFSET = VERSION_OFFSET + Long.BYTES;
    /** Offset of the stored word. */
    public static final int STORED_OFFSET = NEXT_FREE_OFFSET + Long.BYTES;
    /** Bytes of the padded cell. */
    public static final int CELL_LENGTH = 128;
    /** Largest warm-up period: 2<sup>61</sup> ns. */
    public static final long MAX_WARMUP_NS = 1L << 61;

    private final AtomicBuffer buffer;
    private final long stableIntervalNs;
    private final long warmupNs;
    private final long maxPermits;
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
        if (null == clock)
        {
            throw new IllegalArgumentException("clock must not be null");
        }
        require("stableIntervalNs", stableIntervalNs, 1, Limit.MAX_CEILING_NS);
        require("warmupNs", warmupNs, 0, MAX_WARMUP_NS);
        this.stableIntervalNs = stableIntervalNs;
        this.warmupNs = warmupNs;
        this.maxPermits = Math.min(Integer.MAX_VALUE, Limit.MAX_CEILING_NS / stableIntervalNs);
        this.clock = clock;
        this.buffer = CellArray.allocateBuffer(CELL_LENGTH, CELL_LENGTH);
        final long stamp = SeqLock.lock(buffer, VERSION_OFFSET);
        buffer.putLongRelease(NEXT_FREE_OFFSET, createdNs);
        buffer.putLongRelease(STORED_OFFSET, warmupNs);
        SeqLock.unlock(buffer, VERSION_OFFSET, stamp);
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
        require("permitsPerSecond", permitsPerSecond, 1, 1_000_000_000L);
        require("warmupPeriod", warmupPeriod, 0, Long.MAX_VALUE);
        final long warmupNs = require("warmupPeriod (in ns)", unit.toNanos(warmupPeriod), 0, MAX_WARMUP_NS);
        final long stableIntervalNs = 1_000_000_000L / permitsPerSecond +
            (1_000_000_000L % permitsPerSecond != 0 ? 1 : 0);
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
        if (permits < 1 || permits > maxPermits)
        {
            return Result.NEVER;
        }
        final AtomicBuffer buffer = this.buffer;
        final long chargeNs = permits * stableIntervalNs;
        while (true)
        {
            final long stamp = SeqLock.awaitStamp(buffer, VERSION_OFFSET);
            final long nextFreeNs = buffer.getLongAcquire(NEXT_FREE_OFFSET);
            final long storedNs = buffer.getLongAcquire(STORED_OFFSET);
            if (!SeqLock.validate(buffer, VERSION_OFFSET, stamp))
            {
                continue;
            }
            if (nextFreeNs > nowNs)
            {
                final long retryAfterNs = nextFreeNs - nowNs;
                return retryAfterNs > 0 ? retryAfterNs : Long.MAX_VALUE;
            }
            final long storedNowNs = WarmupMath.storedNs(storedNs, nextFreeNs, nowNs, warmupNs);
            final long waitNs = WarmupMath.waitNs(storedNowNs, chargeNs, warmupNs);
            if (nowNs > Long.MAX_VALUE - waitNs)
            {
                return Result.NEVER;
            }
            if (SeqLock.tryLock(buffer, VERSION_OFFSET, stamp))
            {
                buffer.putLongRelease(NEXT_FREE_OFFSET, nowNs + waitNs);
                buffer.putLongRelease(STORED_OFFSET, WarmupMath.storedAfterNs(storedNowNs, chargeNs));
                SeqLock.unlock(buffer, VERSION_OFFSET, stamp);
                return Result.ADMITTED;
            }
        }
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
        decision.setOutcome(code, 0 == untilFreeNs ? 1 : 0, untilFreeNs < 0 ? Long.MAX_VALUE : untilFreeNs, maxPermits);
        return code;
    }

    /**
     * @return nextFree (a racy diagnostic read).
     */
    public long nextFreeNs()
    {
        return buffer.getLongVolatile(NEXT_FREE_OFFSET);
    }

    /**
     * @return the store in ns after the last admission (a racy diagnostic read).
     */
    public long storedNs()
    {
        return buffer.getLongVolatile(STORED_OFFSET);
    }

    /**
     * @return S.
     */
    public long stableIntervalNs()
    {
        return stableIntervalNs;
    }

    /**
     * @return W.
     */
    public long warmupNs()
    {
        return warmupNs;
    }

    /**
     * @return the largest accepted cost.
     */
    public long maxPermits()
    {
        return maxPermits;
    }

    private static long require(final String field, final long value, final long min, final long max)
    {
        if (value < min || value > max)
        {
            throw new IllegalArgumentException(field + " must be in [" + min + ", " + max + "] but was " + value);
        }
        return value;
    }

    /**
     * @return the clock the clock forms read.
     */
    public NanoClock clock()
    {
        return clock;
    }
}
