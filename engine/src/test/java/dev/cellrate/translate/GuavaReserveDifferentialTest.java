package dev.cellrate.translate;

import dev.cellrate.Result;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import com.google.common.util.concurrent.GuavaPeer;
import com.google.common.util.concurrent.RateLimiter;
import dev.cellrate.ReservingLimiter;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Guava's waiting calls against the pay-later {@link ReservingLimiter} of {@link GuavaBursty#newReservingLimiter},
 * decision for decision and wait for wait, with the real guava-33 jar on a fake stopwatch
 * ({@link GuavaPeer}): {@code tryAcquire(n, timeout, MICROSECONDS)} is {@code reserve(n, t, timeoutNs)} (admitted
 * iff Guava returns true; the wait is what Guava sleeps), {@code acquire(n)} is
 * {@code reserve(n, t, Long.MAX_VALUE)}. Times on a millisecond grid, rates dividing 10<sup>6</sup> (T a whole
 * number of microseconds). Guava truncates a fractional permit's wait to whole microseconds in floating point
 * ({@code docs/translations.md}, fact 3), so its waits can run up to 1 us per admission early, carried until its
 * store is full; the test asserts cellrate is never earlier, bounds the drift and explains every differing
 * decision by it.
 */
class GuavaReserveDifferentialTest
{
    private static final long[] RATES = {1, 2, 4, 5, 8, 10, 20, 25, 40, 50, 100, 125, 200, 250, 500, 1000};
    private static final long BASE_NS = 1_000_000_000_000L;

    @Test
    void tryAcquireWithTimeoutAndAcquireMatchTheRealGuava()
    {
        long decisions = 0;
        long admitted = 0;
        long waited = 0;
        long exactWaits = 0;
        long maxLateNs = 0;
        long mismatches = 0;
        for (final long rate : RATES)
        {
            for (int variant = 0; variant < 4; variant++)
            {
                final long seed = rate * 31 + variant;
                final SplittableRandom random = new SplittableRandom(seed);
                final long createdMs = random.nextLong(3000);
                final GuavaPeer.FakeStopwatch stopwatch = new GuavaPeer.FakeStopwatch(createdMs * 1000);
                final RateLimiter guava = GuavaPeer.bursty(rate, stopwatch);
                final ReservingLimiter ours =
                    Guava.create(rate).newReservingLimiter(BASE_NS + createdMs * 1_000_000, SystemNanoClock.INSTANCE);
                final long meanGapMs = Math.max(1, 1000 / rate);
                long nowMs = createdMs;
                for (int i = 0; i < 1500; i++)
                {
                    nowMs += random.nextLong(2 * meanGapMs + 1);
                    stopwatch.setMicros(nowMs * 1000);
                    final int cost = 1 + random.nextInt(1 == variant ? 1 : 4 + (int)Math.min(rate, 20));
                    final long nowNs = BASE_NS + nowMs * 1_000_000;
                    final long sleptBefore = stopwatch.sleptMicros();
                    final String where = "rate=" + rate + " variant=" + variant + " i=" + i + " t=" + nowMs + "ms cost=" +
                        cost;
                    if (3 == variant && 0 == (i & 7))
                    {
                        guava.acquire(cost);
                        final long code = ours.reserve(cost, nowNs, Long.MAX_VALUE);
                        assertTrue(Result.isReserved(code), where);
                        final long guavaNs = (stopwatch.sleptMicros() - sleptBefore) * 1000;
                        exactWaits += guavaNs == code ? 1 : 0;
                        assertTrue(code >= guavaNs, where + " acquire: cellrate earlier than Guava");
                        maxLateNs = Math.max(maxLateNs, code - guavaNs);
                        admitted++;
                        waited += code > 0 ? 1 : 0;
                    }
                    else
                    {
                        final long timeoutMs = random.nextInt(4) == 0 ? 0 : random.nextLong(3 * meanGapMs * 4 + 1);
                        final boolean expected = guava.tryAcquire(cost, timeoutMs * 1000, TimeUnit.MICROSECONDS);
                        final long code = ours.reserve(cost, nowNs, timeoutMs * 1_000_000);
                        if (expected != Result.isReserved(code))
                        {
                            // Only Guava's truncation (fact 3) may separate them: Guava admits a wait up to
                            // its drift shorter, cellrate asks to retry within that drift.
                            assertTrue(expected && Result.decodeRetryAfterNs(code) <= maxLateNs + 1_000,
                                where + " timeout=" + timeoutMs + "ms: cellrate " + code);
                            mismatches++;
                            ours.reserve(cost, nowNs, Long.MAX_VALUE);
                            admitted++;
                            decisions++;
                            continue;
                        }
                        if (expected)
                        {
                            final long guavaNs = (stopwatch.sleptMicros() - sleptBefore) * 1000;
                            exactWaits += guavaNs == code ? 1 : 0;
                            assertTrue(code >= guavaNs, where + ": cellrate earlier than Guava");
                            maxLateNs = Math.max(maxLateNs, code - guavaNs);
                            admitted++;
                            waited += code > 0 ? 1 : 0;
                        }
                        else
                        {
                            assertTrue(Result.isEncodedRetryAfter(code), where + ": a wait beyond the timeout");
                        }
                    }
                    decisions++;
                }
            }
        }
        System.out.println("Guava tryAcquire(n, timeout)/acquire(n) vs pay-later ReservingLimiter: decisions=" +
            decisions + " admitted=" + admitted + " (waited " + waited + ", wait identical " + exactWaits +
            ", cellrate later by at most " + maxLateNs + " ns) decisions differing by Guava's truncation=" + mismatches);
        assertTrue(maxLateNs <= 100_000, "drift " + maxLateNs);
        assertTrue(admitted > decisions / 5 && admitted < decisions * 9 / 10, "trace mix " + admitted);
        assertTrue(waited > admitted / 10, "waits exercised " + waited);
    }
}
