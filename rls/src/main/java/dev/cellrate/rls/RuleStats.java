package dev.cellrate.rls;

import dev.cellrate.stat.HitStats;
import dev.cellrate.stat.LimiterStats;
import dev.cellrate.stat.StatFile;
import dev.cellrate.stat.StatKind;
import dev.cellrate.stat.StatLayout;


/**
 * The reference service's statistics of one statistics key ({@code domain.key_value...}), counted in hits
 * (a request's hits addend), as it counts them: {@code total_hits}; {@code over_limit}, the hits refused
 * (including those a shadow mode let through); {@code near_limit}, the admitted hits above 80% of the
 * limit's capacity; {@code within_limit}, the admitted hits; {@code shadow_mode}, the hits a shadow mode let
 * through that the limit refused. They are the engine's counters ({@link HitStats}) in the service's
 * {@link StatFile}, which {@code cellrate-stat} reads when it is a mapped file; each decision is also counted in
 * the engine's {@link LimiterStats} (admitted, rejected, never-fit, would-reject) there. Adds are
 * allocation-free.
 */
final class RuleStats
{
    /** Near-limit threshold: 80% of the capacity, as the reference's default {@code NEAR_LIMIT_RATIO}. */
    static final int NEAR_LIMIT_PERCENT = 80;
    /** Counters per statistics key in the stat file: 5 hit counts and 7 decision outcomes, one stripe each. */
    static final int COUNTERS_PER_KEY = 12;

    /** One of the key's hit counts. */
    static final class Count
    {
        private final HitStats hits;
        private final StatKind kind;

        Count(final HitStats hits, final StatKind kind)
        {
            this.hits = hits;
            this.kind = kind;
        }

        void add(final long n)
        {
            hits.add(kind, n);
        }

        long sum()
        {
            return hits.value(kind);
        }
    }

    final String domain;
    final String key;
    /** The engine's decision counters of this key. */
    final LimiterStats engine;
    final Count totalHits;
    final Count overLimit;
    final Count nearLimit;
    final Count withinLimit;
    final Count shadowMode;

    /**
     * @param domain the domain.
     * @param key    the statistics key.
     * @param file   the file that holds the counters.
     * @throws IllegalStateException if the file has no room left for them.
     */
    RuleStats(final String domain, final String key, final StatFile file)
    {
        this.domain = domain;
        this.key = key;
        final String name = counterName(key);
        final HitStats hits = file.hits(name, 1);
        this.engine = file.limiter(name, 1, 0);
        this.totalHits = new Count(hits, StatKind.TOTAL_HITS);
        this.overLimit = new Count(hits, StatKind.OVER_LIMIT);
        this.nearLimit = new Count(hits, StatKind.NEAR_LIMIT);
        this.withinLimit = new Count(hits, StatKind.WITHIN_LIMIT);
        this.shadowMode = new Count(hits, StatKind.SHADOW_MODE);
    }

    private static String counterName(final String key)
    {
        final StringBuilder name = new StringBuilder("rls ");
        for (int i = 0; i < key.length() && name.length() < StatLayout.MAX_NAME_LENGTH; i++)
        {
            final char c = key.charAt(i);
            name.append(c >= 0x20 && c < 0x7F ? c : '?');
        }
        return name.toString();
    }

    /**
     * Count one decision in the engine's counters.
     *
     * @param code     the decision's code ({@link dev.cellrate.Result}).
     * @param shadowed true if a shadow mode lets a refusal through (a dry-run: counted as would-reject).
     */
    void recordDecision(final long code, final boolean shadowed)
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
