package dev.cellrate.reconfigure;

import dev.cellrate.Limit;
import dev.cellrate.Result;
import dev.cellrate.ShaperMode;
import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Reconfiguration mid-trace equals the documented model: the TAT is kept across a change (debt kept in time)
 * and every decision is the exact GCRA of the limit current at that moment. Seeded traces that raise and
 * lower the limit many times, for the limiter and the shaper; plus the worked examples of docs/operating.md.
 */
final class ReconfigureReferenceTest
{
    static final Limit[] LIMITS = {
        Limit.perSecond(10, 10), Limit.perSecond(100, 5), Limit.perSecond(1, 1), Limit.perSecond(1_000, 100),
        Limit.ofGcra(7_000_001, 3_000_000), Limit.perSecond(10, 1) };

    /** The model: one TAT in unbounded integers, decided under the current (T, tau). */
    static final class Model
    {
        BigInteger tatNs;
        Limit limit;

        Model(final Limit limit)
        {
            this.limit = limit;
        }

        /** @return the delay (lag before charging) if admitted, or -1 if rejected, -2 if never. */
        long decide(final long permits, final long nowNs)
        {
            final BigInteger t = BigInteger.valueOf(nowNs);
            final BigInteger incrementNs = BigInteger.valueOf(permits).multiply(BigInteger.valueOf(limit.emissionIntervalNs()));
            final BigInteger ceilingNs = BigInteger.valueOf(limit.ceilingNs());
            if (permits < 1 || incrementNs.compareTo(ceilingNs) > 0)
            {
                return -2;
            }
            final BigInteger baseNs = null == tatNs ? t : tatNs.max(t);
            if (baseNs.add(incrementNs).subtract(ceilingNs).subtract(t).signum() > 0)
            {
                return -1;
            }
            tatNs = baseNs.add(incrementNs);
            return baseNs.subtract(t).longValueExact();
        }
    }

    @Test
    void limiterEqualsTheModelAcrossRaisesAndLowers()
    {
        for (int seed = 0; seed < 20; seed++)
        {
            final SplittableRandom random = new SplittableRandom(seed);
            final Model model = new Model(LIMITS[0]);
            final ReconfigurableRateLimiter limiter = new ReconfigurableRateLimiter(LIMITS[0]);
            long nowNs = random.nextLong(-1_000_000_000L, 1_000_000_000L);
            int raises = 0;
            int lowers = 0;
            for (int i = 0; i < 20_000; i++)
            {
                if (random.nextInt(200) == 0)
                {
                    final Limit next = LIMITS[random.nextInt(LIMITS.length)];
                    raises += next.emissionIntervalNs() < model.limit.emissionIntervalNs() ? 1 : 0;
                    lowers += next.emissionIntervalNs() > model.limit.emissionIntervalNs() ? 1 : 0;
                    model.limit = next;
                    limiter.setLimit(next);
                }
                nowNs += random.nextLong(0, 50_000_000L);
                final long permits = 1 + random.nextInt(random.nextInt(8) == 0 ? 12 : 2);
                final long expected = model.decide(permits, nowNs);
                final long code = limiter.tryAcquire(permits, nowNs);
                if (expected >= 0)
                {
                    assertEquals(Result.ADMITTED, code, "seed " + seed + " step " + i);
                }
                else if (expected == -1)
                {
                    assertTrue(code > 0, "seed " + seed + " step " + i + ": " + code);
                }
                else
                {
                    assertEquals(Result.NEVER, code, "seed " + seed + " step " + i);
                }
                assertEquals(null == model.tatNs ? limiter.tatNs() : model.tatNs.longValueExact(), limiter.tatNs());
            }
            assertTrue(raises > 10 && lowers > 10, raises + " raises, " + lowers + " lowers");
        }
    }

    @Test
    void shaperEqualsTheModelAcrossRaisesAndLowers()
    {
        for (int seed = 0; seed < 20; seed++)
        {
            final SplittableRandom random = new SplittableRandom(100 + seed);
            final Model model = new Model(LIMITS[0]);
            final ReconfigurableShaper shaper = new ReconfigurableShaper(LIMITS[0], ShaperMode.delay());
            long nowNs = 0;
            for (int i = 0; i < 20_000; i++)
            {
                if (random.nextInt(200) == 0)
                {
                    final Limit next = LIMITS[random.nextInt(LIMITS.length)];
                    model.limit = next;
                    shaper.setLimit(next);
                }
                nowNs += random.nextLong(0, 50_000_000L);
                final long permits = 1 + random.nextInt(2);
                final long expected = model.decide(permits, nowNs);
                final long code = shaper.reserve(permits, nowNs);
                if (expected >= 0)
                {
                    assertEquals(expected, code, "delay, seed " + seed + " step " + i);
                }
                else if (expected == -1)
                {
                    assertTrue(Result.isEncodedRetryAfter(code), "seed " + seed + " step " + i + ": " + code);
                }
                else
                {
                    assertEquals(Result.NEVER, code);
                }
            }
        }
    }

    @Test
    void workedExamples()
    {
        // 100/s burst 100, all used at t = 0: 1 s of debt.
        final ReconfigurableRateLimiter limiter = new ReconfigurableRateLimiter(Limit.perSecond(100, 100));
        for (int i = 0; i < 100; i++)
        {
            assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 0));
        }
        assertTrue(limiter.tryAcquire(1, 0) > 0);
        // Raising to 1000/s burst 100 (T = 1 ms, tau + T = 100 ms): the 1 s of debt is kept, so the next permit
        // conforms when TAT + T - (tau + T) <= now, at 0.901 s: no fresh burst from the change.
        limiter.setLimit(Limit.perSecond(1_000, 100));
        assertEquals(901_000_000L, limiter.tryAcquire(1, 0));
        assertTrue(limiter.tryAcquire(1, 900_999_999L) > 0);
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 901_000_000L));
        // Lowering to 10/s burst 10 at 0.901 s (T = 100 ms, tau + T = 1 s): the debt is TAT - now = 0.1 s in time,
        // so 10 permits (1 s) wait exactly 0.1 s; kept in permits (0.1 s at 1000/s = 100 permits = 10 s at
        // 10/s) the client would be locked out for 10 s for admissions that were legitimate under the old limit.
        limiter.setLimit(Limit.perSecond(10, 10));
        assertEquals(100_000_000L, limiter.tryAcquire(10, 901_000_000L));
        assertEquals(Result.ADMITTED, limiter.tryAcquire(10, 1_001_000_000L));
    }
}
