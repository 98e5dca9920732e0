package dev.cellrate.spring;

import dev.cellrate.Limit;
import dev.cellrate.stat.StatKind;
import dev.cellrate.stat.TopKeys;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.lang.Nullable;

import java.time.Duration;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The actuator endpoint {@code cellrate}: each limit with its parameters, its live keys, its outcome counters
 * and its top rejected keys ({@code GET /actuator/cellrate}, {@code GET /actuator/cellrate/{name}}).
 * <p>
 * Top rejected keys come from the counters' sketch, which samples refusals (one in
 * {@code topKeysSampleEvery}, weighted), so counts are estimates with the error shown. Address keys are shown as
 * the address or /64 they stand for; string keys by their text (refused keys are remembered in
 * {@value NamedLimit#MAX_NAMED_KEYS} slots by hash), else {@code #} and the hash.
 */
@Endpoint(id = "cellrate")
public class CellrateEndpoint
{
    /** Most top rejected keys listed per limit. */
    public static final int TOP = 10;

    private final LimitRegistry registry;

    /**
     * @param registry the limits.
     */
    public CellrateEndpoint(final LimitRegistry registry)
    {
        this.registry = registry;
    }

    /**
     * @return every limit.
     */
    @ReadOperation
    public Map<String, Object> limits()
    {
        final Map<String, Object> all = new LinkedHashMap<>();
        for (final NamedLimit limit : registry.limits().values())
        {
            all.put(limit.name(), describe(limit));
        }
        return Map.of("limits", all);
    }

    /**
     * @param name a limit's name.
     * @return the limit, or null (404) if there is none.
     */
    @ReadOperation
    public Map<String, Object> limit(@Selector final String name)
    {
        final NamedLimit limit = registry.get(name);
        return null == limit ? null : describe(limit);
    }

    /**
     * Change a reconfigurable limit's rate; every key keeps its state ({@code POST /actuator/cellrate/{name}}
     * with a JSON body {@code {"rate": 20, "burst": 40, "period": "1s"}}; burst defaults to the rate, period to
     * one second).
     *
     * @param name   the limit.
     * @param rate   permits per period.
     * @param burst  permits at once, or null for the rate.
     * @param period the period (a Spring duration such as {@code 1s}, {@code 500ms}, {@code PT1M}), or null.
     * @return the limit as it now is.
     */
    @WriteOperation
    public Map<String, Object> reconfigure(
        @Selector final String name, final long rate, @Nullable final Long burst, @Nullable final String period)
    {
        try
        {
            registry.reconfigure(name, rate,
                null == period ? Duration.ofSeconds(1) : DurationStyle.detectAndParse(period),
                null == burst ? rate : burst);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new InvalidEndpointRequestException(ex.getMessage(), ex.getMessage());
        }
        return describe(registry.get(name));
    }

    static Map<String, Object> describe(final NamedLimit limit)
    {
        final Map<String, Object> m = new LinkedHashMap<>();
        final Limit l = limit.limit();
        m.put("emissionIntervalNs", l.emissionIntervalNs());
        m.put("toleranceNs", l.toleranceNs());
        m.put("burst", l.burst());
        m.put("policy", limit.policyValue());
        m.put("mode", limit.mode().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'));
        m.put("backend", null == limit.redis() ? "local" : "redis");
        m.put("key", limit.filter ? limit.keySource().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-') :
            "given by the caller (gateway KeyResolver, @RateLimited)");
        m.put("reconfigurable", limit.reconfigurable());
        if (limit.liveKeys() >= 0)
        {
            m.put("liveKeys", limit.liveKeys());
        }
        final Map<String, Long> outcomes = new LinkedHashMap<>();
        for (final StatKind kind : StatKind.values())
        {
            if (kind.isOutcome())
            {
                outcomes.put(kind.label(), limit.stats().outcome(kind));
            }
        }
        m.put("outcomes", outcomes);
        final List<Map<String, Object>> top = new ArrayList<>();
        final TopKeys sketch = limit.stats().topKeys();
        if (null != sketch)
        {
            for (final TopKeys.Entry e : sketch.top(TOP))
            {
                final Map<String, Object> entry = new LinkedHashMap<>();
                entry.put("key", limit.keyName(e.key()));
                entry.put("rejections", e.count());
                entry.put("error", e.error());
                top.add(entry);
            }
        }
        m.put("topRejectedKeys", top);
        return m;
    }
}
