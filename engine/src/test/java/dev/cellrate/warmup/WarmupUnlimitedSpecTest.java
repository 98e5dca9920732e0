package dev.cellrate.warmup;

import dev.cellrate.Result;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The unlimited rate charges nothing (this kills the PIT mutant of {@code WarmingUpRateLimiter.decide}
 * that forces {@code 0 == chargeNs} false): once the wait charged before {@link WarmingUpRateLimiter#setUnlimited()}
 * has passed, every request is admitted, in any order of time, and neither nextFree nor the store moves.
 */
final class WarmupUnlimitedSpecTest
{
    private static final long SECOND_NS = 1_000_000_000L;

    @Test
    void anUnlimitedLimiterAdmitsWithoutChargingAndInAnyOrderOfTime()
    {
        final WarmingUpRateLimiter limiter = WarmingUpRateLimiter.guava(10, 1, TimeUnit.SECONDS, 0, () -> 0);
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, SECOND_NS));
        final long nextFreeNs = limiter.nextFreeNs();
        assertTrue(nextFreeNs > SECOND_NS, "a finite rate charged the first request");
        limiter.setUnlimited();
        assertTrue(limiter.isUnlimited());
        assertTrue(limiter.tryAcquire(1, SECOND_NS) > 0, "the wait charged before is still served first");
        final long storedNs = limiter.storedNs();

        assertEquals(Result.ADMITTED, limiter.tryAcquire(1_000, 10 * SECOND_NS));
        assertEquals(nextFreeNs, limiter.nextFreeNs(), "nothing charged: nextFree stays");
        assertEquals(storedNs, limiter.storedNs(), "nothing charged: the store stays");
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 5 * SECOND_NS), "an earlier time after the old debt");
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, nextFreeNs), "and at the old debt's end");
        assertEquals(nextFreeNs, limiter.nextFreeNs());
    }

    @Test
    void aDebitWhileUnlimitedChargesNothingAndAnswersAsARequestWould()
    {
        final WarmingUpRateLimiter limiter = WarmingUpRateLimiter.guava(10, 1, TimeUnit.SECONDS, 0, () -> 0);
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, SECOND_NS));
        final long nextFreeNs = limiter.nextFreeNs();
        limiter.setUnlimited();
        assertEquals(nextFreeNs - SECOND_NS, limiter.debit(1_000, SECOND_NS), "the old debt still to serve");
        assertEquals(Result.ADMITTED, limiter.debit(1_000, nextFreeNs), "at the old debt's end a request goes");
        assertEquals(Result.ADMITTED, limiter.debit(1, nextFreeNs + 1));
        assertEquals(nextFreeNs, limiter.nextFreeNs(), "nothing charged");
    }
}
