package dev.cellrate.demo;

/**
 * A reference arrival trace (times in ns from the limiter's creation at 0; the traces are described in
 * {@code docs/windows-and-markers.md}) and what it is meant to show. Every trace is run against one limit:
 * 10 per second, bursts of 10.
 *
 * @param name        short name.
 * @param description the arrivals, in words.
 * @param lesson      what the rows should show.
 * @param timesNs     arrival times, non-decreasing.
 */
record Trace(String name, String description, String lesson, long[] timesNs)
{
    static final long MS_NS = 1_000_000L;
    static final long SECOND_NS = 1_000_000_000L;

    /**
     * Fixed window's classic counter-example: 10 requests in the last 100 ms of the window [1 s, 2 s) and 10
     * in the first 100 ms of [2 s, 3 s), one every 10 ms.
     */
    static Trace fixedWindowBoundary()
    {
        final long[] timesNs = new long[20];
        for (int i = 0; i < 20; i++)
        {
            timesNs[i] = 1_900 * MS_NS + i * 10 * MS_NS;
        }
        return new Trace(
            "fixed-window boundary",
            "10 requests at 1.90..1.99 s, 10 more at 2.00..2.09 s (one every 10 ms)",
            "fixed window: 20 within 200 ms (2 x 10 across the boundary); GCRA: at most b + r*0.2 s = 12 in any\n" +
                "200 ms, here 11; sliding counter and sliding log: 10; the delay shaper admits what GCRA admits\n" +
                "but releases them 100 ms apart, so downstream never sees more than 10 in a second",
            timesNs);
    }

    /**
     * The sliding counter's adversarial trace: the previous window's 10 requests all at 1.999 s, then 10 at
     * 2.9 s, where the counter weights the previous window by only 10%.
     */
    static Trace slidingCounterAdversary()
    {
        final long[] timesNs = new long[20];
        for (int i = 0; i < 20; i++)
        {
            timesNs[i] = i < 10 ? 1_999 * MS_NS : 2_900 * MS_NS;
        }
        return new Trace(
            "sliding-counter adversary",
            "10 requests at 1.999 s, 10 more at 2.900 s",
            "sliding counter: 19 within 0.9 s (10 + 9) despite its limit of 10; GCRA also admits 19, which its\n" +
                "curve b + r*u allows over 0.9 s; fixed window: 20; only the sliding log holds 10 in any 1 s",
            timesNs);
    }

    /**
     * Section 7: the limiter is created at 0 and idle to 2 s; 30 requests at 2 s, then one every 50 ms (twice
     * the rate) up to 4.95 s: 89 requests.
     */
    static Trace burstAfterIdle()
    {
        final long[] timesNs = new long[89];
        for (int i = 0; i < 89; i++)
        {
            timesNs[i] = i < 30 ? 2 * SECOND_NS : 2_050 * MS_NS + (i - 30) * 50 * MS_NS;
        }
        return new Trace(
            "section-7 burst",
            "idle to 2 s, 30 requests at 2.00 s, then one every 50 ms (20/s) to 4.95 s: 89 requests",
            "GCRA: 10 of the burst at once, then one per 100 ms: 39 in all, at most 19 in any 1 s (the arrival\n" +
                "curve b + r u allows it); the delay shaper admits the same 39 but releases at most 10 per second, each waiting up\n" +
                "to 900 ms (shaping trades delay for smoothness; policing answers at once)",
            timesNs);
    }
}
