package dev.cellrate;

import dev.cellrate.gcra.Gcra;
import dev.cellrate.gcra.ShaperMath;
import dev.cellrate.layout.CellArray;
import java.util.SplittableRandom;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The shapers' reservations through the one cell loop against a reference written as a plain reservation loop on
 * one word: for a cost {@code I}, the wait tested with {@code J}, {@code w = max(0, lag + J - (&tau; + T))}
 * (saturated at {@link Long#MAX_VALUE}), granted iff {@code w <= maxWait}, {@code w} is not the saturated
 * {@link Long#MAX_VALUE} and {@code max(TAT, t) + I} is a long; the answer {@code w} plus the mode's delay, or
 * {@link Result#encodeRetryAfter} of {@code w - maxWait}, or {@link Result#NEVER}. Times, TATs and maximum waits
 * are drawn from the edges of the long range as well as from ordinary values; the code, the word after and every
 * field of the {@link Reservation} must match.
 */
class ReservationLoopTest
{
    private static final int CASES = 40_000;

    /** The reference's outcome: the code and the word after. */
    private record Outcome(long code, long tatAfterNs)
    {
    }

    private static Outcome reference(final long tatNs, final long incrementNs, final long waitIncrementNs,
        final long ceilingNs, final long maxWaitNs, final long immediateNs, final long nowNs,
        final Reservation expected, final Object owner, final int cell)
    {
        long code = Result.NEVER;
        if (incrementNs >= 1)
        {
            final long waitNs = Gcra.retryAfterNs(tatNs, nowNs, waitIncrementNs, ceilingNs);
            final long nextTatNs = Gcra.nextTatNs(tatNs, nowNs, incrementNs);
            if (waitNs > maxWaitNs)
            {
                code = Result.encodeRetryAfter(waitNs - maxWaitNs);
            }
            else if (Long.MAX_VALUE != waitNs && Gcra.UNREPRESENTABLE != nextTatNs)
            {
                code = waitNs + ShaperMath.delayNs(tatNs, nowNs, immediateNs);
                expected.admitted(code, nowNs, tatNs, incrementNs, owner, cell);
                return new Outcome(code, nextTatNs);
            }
        }
        expected.rejected(code, nowNs);
        return new Outcome(code, tatNs);
    }

    /** A time scale of the limit's ceiling, small enough that 8 of it is a long. */
    private static long scale(final Limit limit)
    {
        return Math.min(limit.ceilingNs(), 1L << 59);
    }

    private static long edgy(final SplittableRandom random, final long scaleNs)
    {
        final long[] edges = {Long.MIN_VALUE, Long.MIN_VALUE + 1, -1, 0, 1, Long.MAX_VALUE, Long.MAX_VALUE - 1,
            Long.MAX_VALUE / 2, Long.MIN_VALUE / 2, CellArray.FRESH_TAT_NS};
        switch (random.nextInt(6))
        {
            case 0:
                return edges[random.nextInt(edges.length)];
            case 1:
                return edges[random.nextInt(edges.length)] + random.nextLong(-4 * scaleNs, 4 * scaleNs);
            case 2:
                return random.nextLong();
            default:
                return random.nextLong(-8 * scaleNs, 8 * scaleNs);
        }
    }

    private static long maxWait(final SplittableRandom random, final long ceilingNs, final long waitSlackNs)
    {
        switch (random.nextInt(8))
        {
            case 0:
                return 0;
            case 1:
                return Long.MAX_VALUE;
            case 2:
                return Long.MAX_VALUE - 1;
            case 3:
                return Long.MAX_VALUE - waitSlackNs + random.nextLong(-3, 4);
            case 4:
                return random.nextLong(Long.MAX_VALUE);
            case 5:
                return random.nextLong(-2, 3);
            default:
                return random.nextLong(4 * Math.min(ceilingNs, 1L << 59));
        }
    }

    private static void assertSameReservation(final Reservation expected, final Reservation actual, final String why)
    {
        assertEquals(expected.code(), actual.code(), why);
        assertEquals(expected.admitted(), actual.admitted(), why);
        assertEquals(expected.nowNs(), actual.nowNs(), why);
        assertEquals(expected.slotNs(), actual.slotNs(), why);
        assertEquals(expected.releaseNs(), actual.releaseNs(), why);
        assertEquals(expected.incrementNs(), actual.incrementNs(), why);
        assertEquals(expected.tatBeforeNs(), actual.tatBeforeNs(), why);
        assertEquals(expected.tatAfterNs(), actual.tatAfterNs(), why);
    }

    private static Limit limit(final SplittableRandom random)
    {
        switch (random.nextInt(4))
        {
            case 0:
                return Limit.ofGcra(1, 0);
            case 1:
                return Limit.ofGcra(100, 200);
            case 2:
                return Limit.ofGcra(1L << 40, (1L << 61) - (1L << 40));
            default:
                final long t = 1 + random.nextLong(1_000_000);
                return Limit.ofGcra(t, t * random.nextLong(5));
        }
    }

    @Test
    void reservingLimitersAnswerAsTheReferenceLoopOverTheWholeLongRange()
    {
        final SplittableRandom random = new SplittableRandom(22);
        for (int i = 0; i < CASES; i++)
        {
            final Limit limit = limit(random);
            final long t = limit.emissionIntervalNs();
            final boolean payLater = random.nextBoolean();
            final long maxPermits = payLater ?
                1 + random.nextLong(Limit.MAX_CEILING_NS / t) : limit.burst();
            final long tatNs = edgy(random, scale(limit));
            final ReservingLimiter limiter = payLater ?
                ReservingLimiter.payLaterAtTat(limit, maxPermits, tatNs, SystemNanoClock.INSTANCE) :
                new ReservingLimiter(limit, SystemNanoClock.INSTANCE);
            limiter.buffer.putLongVolatile(limiter.tatOffset, tatNs);
            final long permits = random.nextInt(8) == 0 ? random.nextLong(-1, maxPermits + 2) :
                random.nextBoolean() ? maxPermits : 1 + random.nextLong(maxPermits);
            final long incrementNs = permits >= 1 && permits <= maxPermits ? permits * t : Result.NEVER;
            final long waitIncrementNs = payLater ? t : incrementNs;
            final long maxWaitNs = maxWait(random, limit.ceilingNs(), limit.ceilingNs() - waitIncrementNs);
            final long nowNs = random.nextBoolean() ? edgy(random, scale(limit)) :
                tatNs + random.nextLong(-4 * scale(limit), 4 * scale(limit));
            final Reservation expected = new Reservation();
            final Outcome outcome = reference(tatNs, maxWaitNs >= 0 ? incrementNs : Result.NEVER, waitIncrementNs,
                limit.ceilingNs(), maxWaitNs, Long.MAX_VALUE, nowNs, expected, limiter.buffer, limiter.tatOffset);
            final Reservation actual = new Reservation();
            final String why = "case " + i + ": " + limit + " payLater " + payLater + " TAT " + tatNs + " now " +
                nowNs + " permits " + permits + " maxWait " + maxWaitNs;
            assertEquals(outcome.code(), limiter.reserve(permits, nowNs, maxWaitNs, actual), why);
            assertEquals(outcome.tatAfterNs(), limiter.tatNs(), why);
            assertSameReservation(expected, actual, why);
            limiter.buffer.putLongVolatile(limiter.tatOffset, tatNs);
            assertEquals(outcome.code(), limiter.reserve(permits, nowNs, maxWaitNs), why);
        }
    }

    @Test
    void shapersAnswerAsTheReferenceLoopOverTheWholeLongRange()
    {
        final SplittableRandom random = new SplittableRandom(25);
        for (int i = 0; i < CASES; i++)
        {
            final Limit limit = limit(random);
            final ShaperMode mode = random.nextInt(3) == 0 ? ShaperMode.nodelay() :
                random.nextBoolean() ? ShaperMode.delay() : ShaperMode.delay(random.nextLong(limit.burst() + 1));
            final Shaper shaper = new Shaper(limit, mode);
            final long tatNs = edgy(random, scale(limit));
            shaper.buffer.putLongVolatile(shaper.tatOffset, tatNs);
            final long permits = random.nextInt(8) == 0 ? random.nextLong(-1, limit.burst() + 2) :
                1 + random.nextLong(limit.burst());
            final long incrementNs = limit.incrementNs(permits);
            final long nowNs = random.nextBoolean() ? edgy(random, scale(limit)) :
                tatNs + random.nextLong(-4 * scale(limit), 4 * scale(limit));
            final Reservation expected = new Reservation();
            final Outcome outcome = reference(tatNs, incrementNs, incrementNs, limit.ceilingNs(), 0,
                mode.immediateNs(limit.emissionIntervalNs()), nowNs, expected, shaper.buffer, shaper.tatOffset);
            final Reservation actual = new Reservation();
            final String why = "case " + i + ": " + limit + " " + mode + " TAT " + tatNs + " now " + nowNs +
                " permits " + permits;
            assertEquals(outcome.code(), shaper.reserve(permits, nowNs, actual), why);
            assertEquals(outcome.tatAfterNs(), shaper.tatNs(), why);
            assertSameReservation(expected, actual, why);
            shaper.buffer.putLongVolatile(shaper.tatOffset, tatNs);
            assertEquals(outcome.code(), shaper.reserve(permits, nowNs), why);
        }
    }

    @Test
    void aLagBeyondTheLongRangeIsGrantedWhenTheWaitFits()
    {
        // T = 100 ns, tau = 200 ns; TAT 100 seen from Long.MIN_VALUE is a lag of 2^63 + 100 ns: the wait
        // 2^63 + 100 - 200 ns is a long, below Long.MAX_VALUE, so a caller that accepts any wait gets it.
        final ReservingLimiter limiter = new ReservingLimiter(Limit.ofGcra(100, 200), SystemNanoClock.INSTANCE);
        limiter.buffer.putLongVolatile(limiter.tatOffset, 100);
        final Reservation r = new Reservation();
        assertEquals(Long.MAX_VALUE - 99, limiter.reserve(1, Long.MIN_VALUE, r));
        assertEquals(200, limiter.tatNs());
        assertEquals(100, r.slotNs());
        // One more is a wait of 2^63 + 100 ns: no long holds it.
        assertEquals(Result.NEVER, limiter.reserve(1, Long.MIN_VALUE));
        assertEquals(Result.encodeRetryAfter(Long.MAX_VALUE - (Long.MAX_VALUE - 2)),
            limiter.reserve(1, Long.MIN_VALUE, Long.MAX_VALUE - 2));
        assertEquals(200, limiter.tatNs(), "nothing charged");
    }

    @Test
    void reservationsThroughTheCellLoopAllocateNothing()
    {
        final Shaper shaper = new Shaper(Limit.ofGcra(100, 200), ShaperMode.delay());
        final ReservingLimiter limiter = new ReservingLimiter(Limit.ofGcra(100, 200), SystemNanoClock.INSTANCE);
        final ReservingLimiter payLater = ReservingLimiter.payLater(Limit.ofGcra(100, 200), 50, SystemNanoClock.INSTANCE);
        final Reservation reservation = new Reservation();
        ZeroAllocation.assertAllocatesNothing("shaper and reserving limiter reservations", () ->
        {
            long sum = 0;
            long nowNs = 0;
            for (int i = 0; i < 200_000; i++)
            {
                nowNs += 30 * (i & 7);
                sum += shaper.reserve(1 + (i & 1), nowNs) + shaper.reserve(1, nowNs, reservation) +
                    limiter.reserve(1 + (i & 1), nowNs, i & 255, reservation) + limiter.reserve(1, nowNs) +
                    payLater.reserve(1 + (i & 15), nowNs, 1_000, null) + reservation.releaseNs();
                if (0 == (i & 1023))
                {
                    // A lag past the long range: the exact re-decision on the loop's update entry.
                    limiter.buffer.putLongVolatile(limiter.tatOffset, 100);
                    sum += limiter.reserve(1, Long.MIN_VALUE, reservation);
                    limiter.buffer.putLongVolatile(limiter.tatOffset, nowNs);
                }
            }
            return sum;
        });
    }
}
