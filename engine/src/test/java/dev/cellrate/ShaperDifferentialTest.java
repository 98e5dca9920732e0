package dev.cellrate;

import dev.cellrate.ShaperMode;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shaper against the exact {@link ShaperModel} on seeded random traces (bursts at one instant, idle
 * gaps, clock going backwards, multi-permit requests), in all three modes; plus the shaping invariants.
 */
class ShaperDifferentialTest
{
    private static final int TRACES = 200;
    private static final int REQUESTS = 2_000;

    @Test
    void releaseTimesEqualTheModelInEveryMode()
    {
        final SplittableRandom random = new SplittableRandom(0x5EED_0004L);
        for (int trace = 0; trace < TRACES; trace++)
        {
            final long emissionIntervalNs = 1 + random.nextLong(trace % 3 == 0 ? 10 : 1_000_000);
            final long toleranceNs = random.nextBoolean() ?
                random.nextLong(20) * emissionIntervalNs : random.nextLong(20 * emissionIntervalNs + 1);
            final long immediateExcess = switch (trace % 4)
            {
                case 0, 1 -> 0;
                case 2 -> random.nextLong(25);
                default -> Long.MAX_VALUE;
            };
            runTrace(random, emissionIntervalNs, toleranceNs, immediateExcess);
        }
    }

    private static void runTrace(
        final SplittableRandom random,
        final long emissionIntervalNs,
        final long toleranceNs,
        final long immediateExcess)
    {
        final Limit limit = Limit.ofGcra(emissionIntervalNs, toleranceNs);
        final ShaperMode mode =
            Long.MAX_VALUE == immediateExcess ? ShaperMode.nodelay() : ShaperMode.delay(immediateExcess);
        final Shaper shaper = new Shaper(limit, mode);
        final ShaperModel model = new ShaperModel(emissionIntervalNs, toleranceNs, immediateExcess);
        final String context = limit + " " + mode;
        long nowNs = random.nextLong(-(1L << 61), 1L << 61);
        long previousSlotNs = Long.MIN_VALUE;
        long previousIncrementNs = 0;
        for (int i = 0; i < REQUESTS; i++)
        {
            final int kind = random.nextInt(100);
            if (kind < 40)
            {
                nowNs += random.nextLong(3 * emissionIntervalNs);
            }
            else if (kind < 45)
            {
                nowNs += random.nextLong(40 * emissionIntervalNs + 1);
            }
            else if (kind < 48)
            {
                nowNs -= random.nextLong(2 * emissionIntervalNs + 1);
            }
            final long permits = random.nextInt(10) < 8 ? 1 : random.nextLong(-1, limit.burst() + 3);
            final long code = shaper.reserve(permits, nowNs);
            final boolean admitted = model.reserve(permits, nowNs);
            assertEquals(admitted, Result.isReserved(code), context + " request " + i);
            if (admitted)
            {
                final long releaseNs = nowNs + code;
                assertEquals(model.lastRelease, BigInteger.valueOf(releaseNs), context + " request " + i);
                final long slotNs = model.lastSlot.longValueExact();
                assertTrue(slotNs <= nowNs + toleranceNs, "slot later than t + tau");
                assertTrue(releaseNs <= slotNs && releaseNs >= nowNs, "release outside [t, slot]");
                if (previousIncrementNs > 0)
                {
                    assertTrue(slotNs - previousSlotNs >= previousIncrementNs, "slots closer than n * T");
                }
                previousSlotNs = slotNs;
                previousIncrementNs = permits * emissionIntervalNs;
            }
            else if (model.lastNever)
            {
                assertEquals(Result.NEVER, code, context + " request " + i);
            }
            else
            {
                assertTrue(Result.isEncodedRetryAfter(code), context + " request " + i);
                assertEquals(model.lastRetryAfter, BigInteger.valueOf(Result.decodeRetryAfterNs(code)));
            }
            assertEquals(null == model.tat ? Long.MIN_VALUE : model.tat.longValueExact(), shaper.tatNs());
        }
    }

    @Test
    void delayModeSpacesConsecutiveReleasesByAtLeastT()
    {
        final SplittableRandom random = new SplittableRandom(42);
        final long emissionIntervalNs = 1_000;
        final Shaper shaper = new Shaper(Limit.ofGcra(emissionIntervalNs, 50 * emissionIntervalNs), ShaperMode.delay());
        long nowNs = 0;
        long previousReleaseNs = Long.MIN_VALUE;
        int admitted = 0;
        for (int i = 0; i < 50_000; i++)
        {
            nowNs += random.nextInt(4) == 0 ? random.nextLong(2_000) : 0;
            final long code = shaper.reserve(1, nowNs);
            if (Result.isReserved(code))
            {
                final long releaseNs = nowNs + code;
                if (previousReleaseNs != Long.MIN_VALUE)
                {
                    assertTrue(releaseNs - previousReleaseNs >= emissionIntervalNs, "spacing < T at " + i);
                }
                previousReleaseNs = releaseNs;
                admitted++;
            }
        }
        assertTrue(admitted > 1_000);
    }
}
