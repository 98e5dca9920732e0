package dev.cellrate.rls;

import dev.cellrate.stat.LimiterStats;
import dev.cellrate.stat.StatFile;
import dev.cellrate.stat.StatLayout;

import java.util.concurrent.atomic.LongAdder;

/**
 * The reference service's statistics of one statistics key ({@code domain.key_value...}), counted in hits
 * (a request's hits addend), as it counts them: {@code total_hits}; {@code over_limit}, the hits refused
 * (including those a shadow mode let through); {@code near_limit}, the admitted hits above 80% of the
 * limit's capacity; {@code within_limit}, the admitted hits; {@code shadow_mode}, the hits a shadow mode let
 * through that the limit refused. Adds are allocation-free ({@link LongAdder}). Each decision is also counted
 * in the engine's {@link LimiterStats} (admitted, rejected, never-fit, would-reject), in a {@link StatFile}
 * that {@code cellrate-stat} reads when it is a mapped file.
 */
final class RuleStats
{
    /** Near-limit threshold: 80% of the capacity, as the reference's default {@code NEAR_LIMIT_RATIO}. */
    static final int NEAR_LIMIT_PERCENT = 80;

    final String domain;
    final String key;
    /** The engine's decision counters of this key (readable by cellrate-stat), or null past the file's room. */
    final LimiterStats engine;
    final LongAdder totalHits = new LongAdder();
    final LongAdder overLimit = new LongAdder();
    final LongAdder nearLimit = new LongAdder();
    final LongAdder withinLimit = new LongAdder();
    final LongAdder shadowMode = new LongAdder();

    RuleStats(final String domain, final String key, final StatFile file)
    {
        this.domain = domain;
        this.key = key;
        this.engine = register(file, key);
    }

    private static LimiterStats register(final StatFile file, final String key)
    {
        if (null == file)
        {
            return null;
        }
        final StringBuilder name = new StringBuilder("rls ");
        for (int i = 0; i < key.length() && name.length() < StatLayout.MAX_NAME_LENGTH; i++)
        {
            final char c = key.charAt(i);
            name.append(c >= 0x20 && c < 0x7F ? c : '?');
        }
        try
        {
            return file.limiter(name.toString(), 1, 0);
        }
        catch (final IllegalStateException full)
        {
            return null;
        }
    }

    /**
     * Count one decision in the engine's counters.
     *
     * @param code     the decision's code ({@link dev.cellrate.Result}).
     * @param shadowed true if a shadow mode lets a refusal through (a dry-run: counted as would-reject).
     */
    void recordDecision(final long code, final boolean shadowed)
    {
        if (null != engine)
        {
            if (shadowed)
            {
                engine.dryRun(code);
            }
            else
            {
                engine.record(code);
            }
        }
    }

    /**
     * @param hits      hits of the decision.
     * @param admitted  true if the limit admitted them.
     * @param shadowed  true if refused but let through by a shadow mode.
     * @param usedAfter permits in use after the decision (capacity - remaining), for near_limit.
     * @param capacity  the limit's capacity.
     */
    void record(final long hits, final boolean admitted, final boolean shadowed, final long usedAfter,
        final long capacity)
    {
        totalHits.add(hits);
        if (admitted)
        {
            withinLimit.add(hits);
            final long nearThreshold = capacity * NEAR_LIMIT_PERCENT / 100;
            if (usedAfter > nearThreshold)
            {
                nearLimit.add(Math.min(hits, usedAfter - nearThreshold));
            }
        }
        else
        {
            overLimit.add(hits);
            if (shadowed)
            {
                shadowMode.add(hits);
            }
        }
    }
}
