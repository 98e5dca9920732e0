package dev.cellrate.stat;

import dev.cellrate.TableCounters;
import dev.cellrate.check.Bounds;
import dev.cellrate.gcra.Gcra;
import dev.cellrate.release.ReleaseAgent;
import dev.cellrate.Shaper;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.NanoClock;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * An Agrona {@link Agent} that copies the statistics a table, shaper or release agent already keeps into
 * their limiter's counters every {@code intervalNs}: live keys, evictions, table-full events and CAS retries
 * of a keyed front's table ({@link KeyedRateLimiter}, {@link ClassedKeyedRateLimiter},
 * {@link ReconfigurableKeyedRateLimiter}, {@link KeyedShaper}); the backlog of a {@link Shaper}; outstanding, released and the largest lateness of
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
        Bounds.requireNonNull("clock", clock);
        dev.cellrate.check.Bounds.requireRange("intervalNs", intervalNs, 0, 3_600_000_000_000L);
        this.clock = clock;
        this.intervalNs = intervalNs;
    }

    /**
     * Sample a keyed front's table counters (every keyed front: plain, classed, reconfigurable, shaper).
     *
     * @param keyed the keyed front.
     * @param stats its counters.
     * @return this.
     */
    public synchronized StatSampler add(final TableCounters keyed, final LimiterStats stats)
    {
        Bounds.requireNonNull("keyed", keyed);
        return add(new TableSource(keyed, stats));
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

    /** A sampled source: the gauges it sets, registered once in {@code kinds} order. */
    private abstract static class Source
    {
        private final LimiterStats stats;
        private final int[] gauges;

        Source(final LimiterStats stats, final StatKind... kinds)
        {
            this.stats = stats;
            gauges = new int[kinds.length];
            for (int i = 0; i < kinds.length; i++)
            {
                gauges[i] = stats.gauge(kinds[i]);
            }
        }

        final void set(final int gauge, final long value)
        {
            stats.set(gauges[gauge], value);
        }

        abstract void sample(long nowNs);
    }

    private static final class TableSource extends Source
    {
        private final TableCounters table;

        TableSource(final TableCounters table, final LimiterStats stats)
        {
            super(stats, StatKind.LIVE_KEYS, StatKind.EVICTIONS, StatKind.TABLE_FULL_EVENTS, StatKind.CAS_RETRIES);
            this.table = table;
        }

        void sample(final long nowNs)
        {
            set(0, table.liveKeys());
            set(1, table.evictions());
            set(2, table.tableFullEvents());
            set(3, table.casRetries());
        }
    }

    private static final class ShaperSource extends Source
    {
        /**
         * The shaper's cell word, read through its package-private reader: a lookup inside the engine's own module
         * (the TAT is never part of the API).
         */
        private static final MethodHandle TAT_NS = tatReader();

        private final Shaper shaper;
        private final long emissionIntervalNs;

        ShaperSource(final Shaper shaper, final LimiterStats stats)
        {
            super(stats, StatKind.QUEUE_DEPTH);
            this.shaper = shaper;
            this.emissionIntervalNs = shaper.limit().emissionIntervalNs();
        }

        void sample(final long nowNs)
        {
            set(0, Gcra.resetAfterNs(tatNs(shaper), nowNs) / emissionIntervalNs);
        }

        private static long tatNs(final Shaper shaper)
        {
            try
            {
                return (long)TAT_NS.invokeExact(shaper);
            }
            catch (final RuntimeException | Error ex)
            {
                throw ex;
            }
            catch (final Throwable ex)
            {
                throw new IllegalStateException(ex);
            }
        }

        private static MethodHandle tatReader()
        {
            try
            {
                return MethodHandles.privateLookupIn(Shaper.class, MethodHandles.lookup())
                    .findVirtual(Shaper.class, "tatNs", MethodType.methodType(long.class));
            }
            catch (final ReflectiveOperationException ex)
            {
                throw new ExceptionInInitializerError(ex);
            }
        }
    }

    private static final class AgentSource extends Source
    {
        private final ReleaseAgent<?> agent;

        AgentSource(final ReleaseAgent<?> agent, final LimiterStats stats)
        {
            super(stats, StatKind.RELEASE_OUTSTANDING, StatKind.RELEASED, StatKind.MAX_LATENESS_NS);
            this.agent = agent;
        }

        void sample(final long nowNs)
        {
            set(0, agent.outstanding());
            set(1, agent.releasedCount());
            set(2, agent.maxLatenessNs());
        }
    }
}
