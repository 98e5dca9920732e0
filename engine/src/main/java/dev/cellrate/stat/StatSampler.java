package dev.cellrate.stat;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.shaper.ReleaseAgent;
import dev.cellrate.shaper.Shaper;
import dev.cellrate.table.SlotTable;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.NanoClock;

/**
 * An Agrona {@link Agent} that copies the statistics a table, shaper or release agent already keeps into
 * their limiter's counters every {@code intervalNs}: live keys, evictions, table-full events and CAS retries
 * of a {@link SlotTable}; the backlog of a {@link Shaper}; outstanding, released and the largest lateness of
 * a {@link ReleaseAgent}. The decision path pays nothing for these. Run it on an {@code AgentRunner}, compose
 * it into a duty cycle you already have, or call {@link #sampleNow()}.
 * <p>
 * Threading: {@code add*} from any thread (copy-on-write); {@link #doWork()} / {@link #sampleNow()} from one
 * thread at a time (the single writer of the gauges). Nothing is allocated per duty cycle.
 */
public final class StatSampler implements Agent
{
    private final NanoClock clock;
    private final long intervalNs;
    private volatile Source[] sources = new Source[0];
    /** {@link #nextSampleNs} before the first sample: the next duty cycle samples whatever the time. */
    private static final long NOT_SAMPLED_YET = Long.MIN_VALUE;

    private long nextSampleNs = NOT_SAMPLED_YET;

    /**
     * @param clock      the clock of the duty cycle (and of shaper backlogs: the shapers' time base).
     * @param intervalNs time between samples, ns, in [0, 1 h].
     */
    public StatSampler(final NanoClock clock, final long intervalNs)
    {
        if (null == clock)
        {
            throw new IllegalArgumentException("clock must not be null");
        }
        dev.cellrate.Bounds.requireRange("intervalNs", intervalNs, 0, 3_600_000_000_000L);
        this.clock = clock;
        this.intervalNs = intervalNs;
    }

    /**
     * Sample a keyed limiter's table.
     *
     * @param limiter the limiter.
     * @param stats   its counters.
     * @return this.
     */
    public StatSampler add(final KeyedRateLimiter limiter, final LimiterStats stats)
    {
        return add(limiter.table(), stats);
    }

    /**
     * Sample a table (a keyed limiter's or a keyed shaper's).
     *
     * @param table the table.
     * @param stats its limiter's counters.
     * @return this.
     */
    public synchronized StatSampler add(final SlotTable table, final LimiterStats stats)
    {
        return add(new TableSource(table, stats));
    }

    /**
     * Sample a shaper's backlog: {@code (tat - now) / emission interval} permits queued ahead of a new request.
     *
     * @param shaper the shaper.
     * @param stats  its counters.
     * @return this.
     */
    public synchronized StatSampler add(final Shaper shaper, final LimiterStats stats)
    {
        return add(new ShaperSource(shaper, stats));
    }

    /**
     * Sample a release agent: outstanding items, released items, largest lateness.
     *
     * @param agent the agent.
     * @param stats its shaper's counters.
     * @return this.
     */
    public synchronized StatSampler add(final ReleaseAgent<?> agent, final LimiterStats stats)
    {
        return add(new AgentSource(agent, stats));
    }

    private StatSampler add(final Source source)
    {
        final Source[] old = sources;
        final Source[] next = java.util.Arrays.copyOf(old, old.length + 1);
        next[old.length] = source;
        sources = next;
        return this;
    }

    /**
     * @return 1 if it sampled, 0 if the interval has not elapsed.
     */
    public int doWork()
    {
        final long nowNs = clock.nanoTime();
        if (nowNs - nextSampleNs < 0 && NOT_SAMPLED_YET != nextSampleNs)
        {
            return 0;
        }
        nextSampleNs = nowNs + intervalNs;
        sample(nowNs);
        return 1;
    }

    /**
     * Sample every source now (e.g. before reading the counters in a test).
     */
    public void sampleNow()
    {
        sample(clock.nanoTime());
    }

    private void sample(final long nowNs)
    {
        for (final Source source : sources)
        {
            source.sample(nowNs);
        }
    }

    /**
     * @return "cellrate-stat-sampler".
     */
    public String roleName()
    {
        return "cellrate-stat-sampler";
    }

    private abstract static class Source
    {
        abstract void sample(long nowNs);
    }

    private static final class TableSource extends Source
    {
        private final SlotTable table;
        private final LimiterStats stats;
        private final int liveKeys;
        private final int evictions;
        private final int tableFull;
        private final int casRetries;

        TableSource(final SlotTable table, final LimiterStats stats)
        {
            this.table = table;
            this.stats = stats;
            liveKeys = stats.gauge(StatKind.LIVE_KEYS);
            evictions = stats.gauge(StatKind.EVICTIONS);
            tableFull = stats.gauge(StatKind.TABLE_FULL_EVENTS);
            casRetries = stats.gauge(StatKind.CAS_RETRIES);
        }

        void sample(final long nowNs)
        {
            stats.set(liveKeys, table.liveKeys());
            stats.set(evictions, table.evictions());
            stats.set(tableFull, table.tableFullEvents());
            stats.set(casRetries, table.casRetries());
        }
    }

    private static final class ShaperSource extends Source
    {
        private final Shaper shaper;
        private final LimiterStats stats;
        private final int queueDepth;
        private final long emissionIntervalNs;

        ShaperSource(final Shaper shaper, final LimiterStats stats)
        {
            this.shaper = shaper;
            this.stats = stats;
            this.emissionIntervalNs = shaper.limit().emissionIntervalNs();
            queueDepth = stats.gauge(StatKind.QUEUE_DEPTH);
        }

        void sample(final long nowNs)
        {
            final long backlogNs = shaper.tatNs() - nowNs;
            stats.set(queueDepth, backlogNs > 0 ? backlogNs / emissionIntervalNs : 0);
        }
    }

    private static final class AgentSource extends Source
    {
        private final ReleaseAgent<?> agent;
        private final LimiterStats stats;
        private final int outstanding;
        private final int released;
        private final int maxLateness;

        AgentSource(final ReleaseAgent<?> agent, final LimiterStats stats)
        {
            this.agent = agent;
            this.stats = stats;
            outstanding = stats.gauge(StatKind.RELEASE_OUTSTANDING);
            released = stats.gauge(StatKind.RELEASED);
            maxLateness = stats.gauge(StatKind.MAX_LATENESS_NS);
        }

        void sample(final long nowNs)
        {
            stats.set(outstanding, agent.outstanding());
            stats.set(released, agent.releasedCount());
            stats.set(maxLateness, agent.maxLatenessNs());
        }
    }
}
