package dev.cellrate.observe;

import dev.cellrate.stat.LimiterStats;
import dev.cellrate.stat.TopKeys;
import dev.cellrate.check.Bounds;
import dev.cellrate.Decision;
import dev.cellrate.KeyedLimiter;
import dev.cellrate.Result;
import org.agrona.concurrent.NanoClock;

/**
 * Any {@link KeyedLimiter} with its decisions counted in a {@link LimiterStats} and its rejected keys fed to the
 * limiter's top-keys sketch: enforced, or in dry-run (never rejects; {@link Result#WOULD_HAVE_REJECTED}).
 * Key words in the sketch: a {@code long} key itself; a {@link CharSequence} key's 64-bit FNV-1a hash of its
 * UTF-16 chars ({@link TopKeys#keyOf(CharSequence)}; the stat tool shows that number). Allocation-free.
 */
public final class ObservedKeyedLimiter implements KeyedLimiter
{
    private final KeyedLimiter limiter;
    private final LimiterStats stats;
    private final boolean dryRun;

    private ObservedKeyedLimiter(final KeyedLimiter limiter, final LimiterStats stats, final boolean dryRun)
    {
        Bounds.requireNonNull("limiter", limiter);
        Bounds.requireNonNull("stats", stats);
        this.limiter = limiter;
        this.stats = stats;
        this.dryRun = dryRun;
    }

    /**
     * @param limiter the keyed limiter.
     * @param stats   its counters.
     * @return the limiter, enforced, its outcomes and rejected keys counted.
     */
    public static ObservedKeyedLimiter enforced(final KeyedLimiter limiter, final LimiterStats stats)
    {
        return new ObservedKeyedLimiter(limiter, stats, false);
    }

    /**
     * @param limiter the keyed limiter.
     * @param stats   its counters.
     * @return the limiter in dry-run.
     */
    public static ObservedKeyedLimiter dryRun(final KeyedLimiter limiter, final LimiterStats stats)
    {
        return new ObservedKeyedLimiter(limiter, stats, true);
    }

    public long tryAcquire(final long key, final long permits, final long nowNs)
    {
        return count(key, limiter.tryAcquire(key, permits, nowNs));
    }

    public long tryAcquire(final long key, final long permits, final long nowNs, final Decision decision)
    {
        final long code = limiter.tryAcquire(key, permits, nowNs, decision);
        return dryRun ? pass(stats.dryRun(key, code), code, decision) : stats.record(key, code);
    }

    public long tryAcquire(final CharSequence key, final long permits, final long nowNs)
    {
        final long code = limiter.tryAcquire(key, permits, nowNs);
        return Result.isAdmitted(code) && !dryRun ? stats.record(code) : count(TopKeys.keyOf(key), code);
    }

    public long tryAcquire(final CharSequence key, final long permits, final long nowNs, final Decision decision)
    {
        final long code = limiter.tryAcquire(key, permits, nowNs, decision);
        return Result.isAdmitted(code) && !dryRun ? stats.record(code) :
            dryRun ? pass(stats.dryRun(TopKeys.keyOf(key), code), code, decision) : stats.record(TopKeys.keyOf(key), code);
    }

    public NanoClock clock()
    {
        return limiter.clock();
    }

    /**
     * @return {@code answer}; when a dry-run turned the limiter's rejection {@code code} into a pass, the
     * caller's decision describes that pass.
     */
    static long pass(final long answer, final long code, final Decision decision)
    {
        if (answer != code && null != decision)
        {
            decision.setOutcome(
                Result.WOULD_HAVE_REJECTED, decision.remaining(), decision.resetAfterNs(), decision.limit());
        }
        return answer;
    }

    private long count(final long keyWord, final long code)
    {
        return dryRun ? stats.dryRun(keyWord, code) : stats.record(keyWord, code);
    }

    /**
     * @return the counters.
     */
    public LimiterStats stats()
    {
        return stats;
    }
}
