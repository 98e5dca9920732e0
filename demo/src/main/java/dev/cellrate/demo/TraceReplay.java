package dev.cellrate.demo;

import java.util.Locale;

/**
 * The outcome of one trace through one limiter: how many were admitted, the most admitted (by release time)
 * in any window of one second, the first rejection and the longest release delay.
 */
final class TraceReplay
{
    final int admitted;
    final int arrivals;
    final int maxInAnySecond;
    final int firstRejectedIndex;
    final long firstRejectedNs;
    final long maxDelayNs;

    private TraceReplay(
        final int admitted,
        final int arrivals,
        final int maxInAnySecond,
        final int firstRejectedIndex,
        final long firstRejectedNs,
        final long maxDelayNs)
    {
        this.admitted = admitted;
        this.arrivals = arrivals;
        this.maxInAnySecond = maxInAnySecond;
        this.firstRejectedIndex = firstRejectedIndex;
        this.firstRejectedNs = firstRejectedNs;
        this.maxDelayNs = maxDelayNs;
    }

    /**
     * @param trace   the trace.
     * @param limiter a fresh limiter.
     * @return the outcome.
     */
    static TraceReplay replay(final Trace trace, final TraceLimiter limiter)
    {
        final long[] timesNs = trace.timesNs();
        final long[] releasedNs = new long[timesNs.length];
        int admitted = 0;
        int firstRejectedIndex = -1;
        long firstRejectedNs = 0;
        long maxDelayNs = 0;
        for (int i = 0; i < timesNs.length; i++)
        {
            final long delayNs = limiter.offer(timesNs[i]);
            if (TraceLimiter.REJECTED == delayNs)
            {
                if (firstRejectedIndex < 0)
                {
                    firstRejectedIndex = i;
                    firstRejectedNs = timesNs[i];
                }
            }
            else
            {
                releasedNs[admitted++] = timesNs[i] + delayNs;
                maxDelayNs = Math.max(maxDelayNs, delayNs);
            }
        }
        java.util.Arrays.sort(releasedNs, 0, admitted);
        return new TraceReplay(
            admitted, timesNs.length, maxInWindow(releasedNs, admitted, Trace.SECOND_NS),
            firstRejectedIndex, firstRejectedNs, maxDelayNs);
    }

    /**
     * @return the most sorted times in any half-open window [s, s + windowNs).
     */
    static int maxInWindow(final long[] sortedNs, final int count, final long windowNs)
    {
        int best = 0;
        int start = 0;
        for (int end = 0; end < count; end++)
        {
            while (sortedNs[end] - sortedNs[start] >= windowNs)
            {
                start++;
            }
            best = Math.max(best, end - start + 1);
        }
        return best;
    }

    String firstRejection()
    {
        return firstRejectedIndex < 0 ? "none" :
            String.format(Locale.ROOT, "#%d at %.3f s", firstRejectedIndex + 1, firstRejectedNs / 1e9);
    }

    String maxDelay()
    {
        return String.format(Locale.ROOT, "%.0f ms", maxDelayNs / 1e6);
    }
}
