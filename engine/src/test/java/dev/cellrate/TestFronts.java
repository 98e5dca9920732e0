package dev.cellrate;

import dev.cellrate.layout.CellArray;
import dev.cellrate.table.SlotTable;
import org.agrona.concurrent.NanoClock;

/**
 * The engine's own tests, stress tests and benchmarks reach what users cannot (a front over a table they built,
 * a front's table, raw key words, a cell of a shared array) through this class of the engine's test jar; the
 * public API names none of it.
 */
public final class TestFronts
{
    private TestFronts()
    {
    }

    /**
     * @param front a keyed front of the engine.
     * @return its table.
     */
    public static SlotTable tableOf(final Object front)
    {
        if (front instanceof KeyedRateLimiter)
        {
            return ((KeyedRateLimiter)front).table();
        }
        if (front instanceof ClassedKeyedRateLimiter)
        {
            return ((ClassedKeyedRateLimiter)front).table();
        }
        if (front instanceof ReconfigurableKeyedRateLimiter)
        {
            return ((ReconfigurableKeyedRateLimiter)front).table();
        }
        if (front instanceof KeyedShaper)
        {
            return ((KeyedShaper)front).table();
        }
        throw new IllegalArgumentException("not a keyed front: " + front);
    }

    public static KeyedRateLimiter keyedRateLimiter(
        final Limit limit, final TableFullPolicy policy, final NanoClock clock, final SlotTable table)
    {
        return new KeyedRateLimiter(limit, policy, clock, table);
    }

    public static KeyedShaper keyedShaper(
        final Limit limit, final ShaperMode mode, final SlotTable table, final NanoClock clock)
    {
        return new KeyedShaper(limit, mode, table, clock);
    }

    public static ClassedKeyedRateLimiter classed(
        final Limit[] limits, final KeyClassifier classifier, final SlotTable table, final TableFullPolicy policy)
    {
        return new ClassedKeyedRateLimiter(limits, classifier, table, policy);
    }

    public static ReconfigurableKeyedRateLimiter reconfigurableKeyed(
        final Limit limit, final SlotTable table, final TableFullPolicy policy)
    {
        return new ReconfigurableKeyedRateLimiter(limit, table, policy);
    }

    public static long tryAcquireKeyWord(
        final KeyedRateLimiter limiter, final long keyWord, final long permits, final long nowNs)
    {
        return limiter.tryAcquireKeyWord(keyWord, permits, nowNs);
    }

    public static long tryAcquireKeyWord(
        final ReconfigurableKeyedRateLimiter limiter, final long keyWord, final long permits, final long nowNs)
    {
        return limiter.tryAcquireKeyWord(keyWord, permits, nowNs);
    }

    public static long reserveKeyWord(
        final KeyedShaper shaper, final long keyWord, final long permits, final long nowNs, final Reservation reservation)
    {
        return shaper.reserveKeyWord(keyWord, permits, nowNs, reservation);
    }

    public static boolean cancelKeyWord(
        final KeyedShaper shaper, final long keyWord, final Reservation reservation, final long nowNs)
    {
        return shaper.cancelKeyWord(keyWord, reservation, nowNs);
    }

    public static RateLimiter rateLimiter(
        final Limit limit, final CellArray cells, final int cellIndex, final NanoClock clock)
    {
        return new RateLimiter(limit, cells, cellIndex, clock);
    }

    public static SingleThreadedRateLimiter singleThreaded(
        final Limit limit, final CellArray cells, final int cellIndex, final NanoClock clock)
    {
        return new SingleThreadedRateLimiter(limit, cells, cellIndex, clock);
    }

    public static long tatNs(final ClassedKeyedRateLimiter limiter, final long key)
    {
        return limiter.tatNs(key);
    }

    public static long tatNs(final ReconfigurableKeyedRateLimiter limiter, final long key)
    {
        return limiter.tatNs(key);
    }

    /** The cell's TAT (the internal time word, never part of the API) of a single-cell front. */
    public static long tatNs(final RateLimiter limiter)
    {
        return limiter.tatNs();
    }

    public static long tatNs(final SingleThreadedRateLimiter limiter)
    {
        return limiter.tatNs();
    }

    public static long tatNs(final Shaper shaper)
    {
        return shaper.tatNs();
    }

    public static long tatNs(final ReservingLimiter limiter)
    {
        return limiter.tatNs();
    }

    public static long tatNs(final PayLaterRateLimiter limiter)
    {
        return limiter.tatNs();
    }

    /** A pay-later limiter whose cell starts at an odd TAT. */
    public static PayLaterRateLimiter payLaterAtTat(
        final Limit limit, final long maxPermits, final long tatNs, final NanoClock clock)
    {
        return PayLaterRateLimiter.atTat(limit, maxPermits, tatNs, clock);
    }

    /** A pay-later reserving limiter whose cell starts at an odd TAT. */
    public static ReservingLimiter reservingPayLaterAtTat(
        final Limit limit, final long maxPermits, final long tatNs, final NanoClock clock)
    {
        return ReservingLimiter.payLaterAtTat(limit, maxPermits, tatNs, clock);
    }
}
