package dev.cellrate;

import dev.cellrate.gcra.Gcra;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link RateLimiter}'s one-permit path decides in the cell loop's latest-TAT form up to
 * {@code Long.MAX_VALUE - (τ + T)}, a bound it works out at construction, and in the lag form after it. Around that
 * bound, and for every TAT that puts the request at the edge of conformance or of the long range, its answer and
 * the word it leaves are those of the decision functions ({@link Gcra#decide}, {@link Gcra#nextTatNs}).
 */
class OnePermitFormBoundSpecTest
{
    private static final Limit[] LIMITS = {
        Limit.ofGcra(1, 0),
        Limit.ofGcra(100, 150),
        Limit.ofGcra(7, 1L << 40),
        Limit.ofGcra(1, 1L << 61),
        Limit.ofGcra(1L << 30, 3L << 30),
    };

    @Test
    void aOnePermitRequestAroundTheLastTimeOfTheLatestTatFormAnswersAsTheDecisionFunctions()
    {
        int checked = 0;
        for (final Limit limit : LIMITS)
        {
            final long incrementNs = limit.emissionIntervalNs();
            final long ceilingNs = limit.ceilingNs();
            final long slackNs = ceilingNs - incrementNs;
            final long boundNs = Long.MAX_VALUE - ceilingNs;
            for (int offset = -3; offset <= 3; offset++)
            {
                if (offset > 0 && boundNs > Long.MAX_VALUE - offset)
                {
                    continue; // past the end of time: a ceiling of 1 or 2 ns leaves fewer times after the bound
                }
                final long nowNs = boundNs + offset;
                final long latestNs = saturated(nowNs, slackNs);
                final long[] tats = {
                    Long.MIN_VALUE, nowNs - 1, nowNs, nowNs + 1, latestNs - 1, latestNs, saturated(latestNs, 1),
                    saturated(latestNs, incrementNs - 1), saturated(latestNs, incrementNs), Long.MAX_VALUE - 1,
                    Long.MAX_VALUE,
                };
                for (final long tatNs : tats)
                {
                    final RateLimiter limiter = new RateLimiter(limit);
                    limiter.buffer.putLongVolatile(limiter.tatOffset, tatNs);
                    final long expectedCode = Gcra.decide(tatNs, nowNs, incrementNs, ceilingNs);
                    final long expectedTatNs = Result.ADMITTED == expectedCode ?
                        Gcra.nextTatNs(tatNs, nowNs, incrementNs) : tatNs;
                    final String where = limit + " at now = bound " + signed(nowNs - boundNs) + ", TAT " + tatNs;
                    assertEquals(expectedCode, limiter.tryAcquire(1, nowNs), where);
                    assertEquals(expectedTatNs, limiter.buffer.getLongVolatile(limiter.tatOffset), where);
                    checked++;
                }
            }
        }
        assertEquals((LIMITS.length * 7 - 2) * 11, checked, "every time around each bound, the end of time aside");
    }

    private static long saturated(final long valueNs, final long addNs)
    {
        return valueNs > Long.MAX_VALUE - addNs ? Long.MAX_VALUE : valueNs + addNs;
    }

    private static String signed(final long value)
    {
        return value < 0 ? "- " + -value : "+ " + value;
    }
}
