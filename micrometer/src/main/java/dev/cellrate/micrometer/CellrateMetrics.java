package dev.cellrate.micrometer;

import dev.cellrate.stat.StatKind;
import dev.cellrate.stat.StatReader;
import dev.cellrate.stat.TopKeys;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.util.ArrayList;
import java.util.List;

/**
 * Binds cellrate's counters ({@link StatReader}, from {@code StatFile.reader()} in this process or
 * {@code StatReader.open(dir, timeoutMs)} on another process's file) to a Micrometer registry, one meter per
 * limiter and statistic, the limiter's name as tag {@value #LIMITER_TAG}:
 * <ul>
 *     <li>{@value #DECISIONS} (function counter), tag {@value #OUTCOME_TAG} = the outcome's label
 *     (admitted, rejected, never-fit, table-full-rejected, table-full-admitted, other-rejected,
 *     would-reject);</li>
 *     <li>{@code cellrate.evictions}, {@code cellrate.table.full.events}, {@code cellrate.cas.retries},
 *     {@code cellrate.released} (function counters);</li>
 *     <li>{@code cellrate.live.keys}, {@code cellrate.queue.depth}, {@code cellrate.release.outstanding},
 *     {@code cellrate.max.lateness.ns} (gauges);</li>
 *     <li>{@value #TOP_REJECTED} (gauges), tag {@value #RANK_TAG} = 1..k: the estimated rejections of the
 *     rank-th most rejected key. The key itself is not a tag (tags are fixed per meter and keys would explode
 *     cardinality); read it with {@link #topRejected(String, int)}.</li>
 * </ul>
 * Each meter reads the counters when the registry polls it (summing stripes): nothing is added to the decision
 * path. The statistics registered when {@link #bindTo(MeterRegistry)} runs are bound; bind after registering
 * the limiters (and their samplers' sources). Micrometer holds a meter's state weakly: the binder holds it, so
 * keep the binder referenced as long as the meters are read (a Spring bean is).
 */
public final class CellrateMetrics implements MeterBinder
{
    public static final String LIMITER_TAG = "limiter";
    public static final String OUTCOME_TAG = "outcome";
    public static final String RANK_TAG = "rank";
    public static final String DECISIONS = "cellrate.decisions";
    public static final String TOP_REJECTED = "cellrate.top.rejected";

    private final StatReader reader;
    private final Tags extraTags;
    /** The meters' state objects: Micrometer holds them weakly, so the binder keeps them alive. */
    private final List<Object> bound = new java.util.concurrent.CopyOnWriteArrayList<>();

    /**
     * @param reader the counters to expose.
     */
    public CellrateMetrics(final StatReader reader)
    {
        this(reader, Tags.empty());
    }

    /**
     * @param reader    the counters to expose.
     * @param extraTags tags added to every meter.
     */
    public CellrateMetrics(final StatReader reader, final Iterable<io.micrometer.core.instrument.Tag> extraTags)
    {
        if (null == reader)
        {
            throw new IllegalArgumentException("reader must not be null");
        }
        this.reader = reader;
        this.extraTags = Tags.of(extraTags);
    }

    /**
     * @param kind a statistic.
     * @return its meter name.
     */
    public static String meterName(final StatKind kind)
    {
        return kind.isOutcome() ? DECISIONS : "cellrate." + kind.label().replace('-', '.');
    }

    public void bindTo(final MeterRegistry registry)
    {
        for (final StatReader.Stat stat : reader.stats())
        {
            final StatKind kind = stat.kind();
            Tags tags = extraTags.and(LIMITER_TAG, stat.limiter());
            if (kind.isOutcome())
            {
                tags = tags.and(OUTCOME_TAG, kind.label());
            }
            bound.add(stat);
            if (kind.isCumulative())
            {
                FunctionCounter.builder(meterName(kind), stat, reader::value)
                    .tags(tags).description(description(kind)).register(registry);
            }
            else
            {
                Gauge.builder(meterName(kind), stat, reader::value)
                    .tags(tags).description(description(kind)).register(registry);
            }
        }
        for (final StatReader.Sketch sketch : reader.sketches())
        {
            bound.add(sketch);
            for (int rank = 1; rank <= sketch.k(); rank++)
            {
                final int index = rank - 1;
                Gauge.builder(TOP_REJECTED, sketch, s ->
                    {
                        final TopKeys.Entry[] top = reader.top(s, index + 1);
                        return top.length > index ? top[index].count() : 0;
                    })
                    .tags(extraTags.and(LIMITER_TAG, sketch.limiter()).and(RANK_TAG, Integer.toString(rank)))
                    .description("estimated rejections of the rank-th most rejected key (Space-Saving)")
                    .register(registry);
            }
        }
    }

    /**
     * @param limiter    the limiter's name.
     * @param maxEntries most entries.
     * @return its most rejected keys (key word, estimated count, error bound), or an empty list.
     */
    public List<TopKeys.Entry> topRejected(final String limiter, final int maxEntries)
    {
        final List<TopKeys.Entry> entries = new ArrayList<>();
        for (final StatReader.Sketch sketch : reader.sketches())
        {
            if (sketch.limiter().equals(limiter))
            {
                entries.addAll(List.of(reader.top(sketch, maxEntries)));
            }
        }
        return entries;
    }

    private static String description(final StatKind kind)
    {
        return kind.isOutcome() ? "cellrate decisions by outcome" : "cellrate " + kind.label();
    }
}
