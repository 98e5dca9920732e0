package dev.cellrate;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Worked GCRA / token-bucket traces (10 per second, burst 10; described in {@code docs/design.md} and
 * {@code docs/windows-and-markers.md}), replayed on the engine with exact expectations. Both limiters must give the same pattern.
 */
final class SeedTracesTest
{
    static final long MS_NS = 1_000_000L;

    /**
     * Section 5: 10/s, burst 10 (T = 100 ms, &tau; = 900 ms). 12 requests at 0.5 s, then one every 50 ms until
     * 1.5 s. The first 10 are admitted (lag 0 -> 1000 ms), the 11th and 12th rejected (lag 1000 ms > 900 ms);
     * then the lag falls back to 900 ms every 100 ms, so of the 50 ms requests only those at 0.6, 0.7, ..., 1.5 s
     * are admitted.
     */
    @Test
    void section5TwelveAtOnceThenEvery50Ms()
    {
        final StringBuilder expected = new StringBuilder("AAAAAAAAAARR");
        for (long tMs = 550; tMs <= 1500; tMs += 50)
        {
            expected.append(0 == tMs % 100 ? 'A' : 'R');
        }
        assertEquals("AAAAAAAAAARR" + "RARARARARARARARARARA", expected.toString());

        final long[] timesNs = new long[32];
        for (int i = 0; i < 12; i++)
        {
            timesNs[i] = 500 * MS_NS;
        }
        for (int i = 12; i < 32; i++)
        {
            timesNs[i] = (550 + 50L * (i - 12)) * MS_NS;
        }
        assertEquals(expected.toString(), pattern(new RateLimiter(Limit.perSecond(10, 10)), timesNs));
        assertEquals(expected.toString(), pattern(new SingleThreadedRateLimiter(Limit.perSecond(10, 10)), timesNs));

        // The retry-afters: the 11th and 12th wait 100 ms; a rejected 50 ms request waits 50 ms.
        final RateLimiter limiter = new RateLimiter(Limit.perSecond(10, 10));
        for (int i = 0; i < 10; i++)
        {
            assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 500 * MS_NS));
        }
        assertEquals(100 * MS_NS, limiter.tryAcquire(1, 500 * MS_NS));
        assertEquals(100 * MS_NS, limiter.tryAcquire(1, 500 * MS_NS));
        assertEquals(50 * MS_NS, limiter.tryAcquire(1, 550 * MS_NS));
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 600 * MS_NS));
        assertEquals(1600 * MS_NS, limiter.tatNs());
    }

    /**
     * Section 7: 10/s, burst 10; created at 0 and idle to 2 s, 30 requests at 2 s, then one every 50 ms (20/s)
     * until 4.95 s: 89 requests. 10 of the 30 are admitted, then every other 50 ms request from 2.1 s to 4.9 s
     * (29): exactly 39 of 89.
     */
    @Test
    void section7BurstAfterIdle()
    {
        final long[] timesNs = new long[89];
        for (int i = 0; i < 30; i++)
        {
            timesNs[i] = 2_000 * MS_NS;
        }
        for (int i = 30; i < 89; i++)
        {
            timesNs[i] = (2_050 + 50L * (i - 30)) * MS_NS;
        }
        assertEquals(4_950 * MS_NS, timesNs[88]);

        final StringBuilder expected = new StringBuilder();
        for (int i = 0; i < 30; i++)
        {
            expected.append(i < 10 ? 'A' : 'R');
        }
        for (int i = 30; i < 89; i++)
        {
            expected.append(0 == (timesNs[i] / MS_NS) % 100 ? 'A' : 'R');
        }
        final String actual = pattern(new RateLimiter(Limit.perSecond(10, 10)), timesNs);
        assertEquals(expected.toString(), actual);
        assertEquals(39, actual.chars().filter(c -> 'A' == c).count());
        assertEquals(expected.toString(), pattern(new SingleThreadedRateLimiter(Limit.perSecond(10, 10)), timesNs));
    }

    /**
     * In the manner of Network Calculus Table 1.1, GCRA(10, 2) in slots: cells at 0 and 10 are on schedule;
     * from 18 on each cell arrives 2 slots before its TAT (within &tau; = 2, so it conforms and the TAT
     * advances by T = 10 from the TAT, not from the arrival); a cell at 57 arrives 3 slots early and is
     * rejected (retry after 1 slot) without changing the TAT; a cell at 58, 2 slots early again, conforms.
     * Tolerance does not accumulate: the early arrivals never buy more than &tau; of advance.
     */
    @Test
    void networkCalculusGcra10Tolerance2()
    {
        final RateLimiter limiter = new RateLimiter(Limit.ofGcra(10, 2));
        final long[] arrivals = {0, 10, 18, 28, 38, 48, 57, 58};
        final long[] tatsAfter = {10, 20, 30, 40, 50, 60, 60, 70};
        final long[] codes = {0, 0, 0, 0, 0, 0, 1, 0};
        for (int i = 0; i < arrivals.length; i++)
        {
            assertEquals(codes[i], limiter.tryAcquire(1, arrivals[i]), "cell at " + arrivals[i]);
            assertEquals(tatsAfter[i], limiter.tatNs(), "TAT after the cell at " + arrivals[i]);
        }
        assertEquals(1, Limit.ofGcra(10, 2).burst());
    }

    static String pattern(final RateLimiter limiter, final long[] timesNs)
    {
        final StringBuilder pattern = new StringBuilder();
        for (final long timeNs : timesNs)
        {
            pattern.append(Result.isAdmitted(limiter.tryAcquire(1, timeNs)) ? 'A' : 'R');
        }
        return pattern.toString();
    }

    static String pattern(final SingleThreadedRateLimiter limiter, final long[] timesNs)
    {
        final StringBuilder pattern = new StringBuilder();
        for (final long timeNs : timesNs)
        {
            pattern.append(Result.isAdmitted(limiter.tryAcquire(1, timeNs)) ? 'A' : 'R');
        }
        return pattern.toString();
    }
}
