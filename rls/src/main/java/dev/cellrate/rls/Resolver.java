package dev.cellrate.rls;

import dev.cellrate.rls.config.RateLimitRule;
import dev.cellrate.rls.config.RlsConfig;
import dev.cellrate.rls.config.Unit;
import dev.cellrate.stat.StatFile;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Turns a request into a {@link Plan}: checks its bounds, reads each descriptor's hits and refund flag, finds its
 * rule (a {@code limit} override, else the configuration's match), drops the rules another matched rule
 * {@code replaces}, and gives each limited descriptor its counter identity and statistics key.
 * <p>
 * Override limits: one rule per distinct (requests_per_unit, unit), up to {@link RlsService#MAX_OVERRIDES}; past
 * it a new override refuses (0 requests per unit, never held). Statistics keys: up to
 * {@link RlsService#MAX_STATS_KEYS}, then one overflow key.
 * <p>
 * Threading: any thread; a plan is filled by one thread at a time.
 */
final class Resolver
{
    private final Decider decider;
    private final boolean hashKeys;
    private final boolean textKeys;
    private final DescriptorKey descriptorKey = new DescriptorKey();
    private final Map<String, RuleStats> stats = new ConcurrentHashMap<>();
    private final StatFile statFile;
    private final RuleStats overflowStats;

    Resolver(final Decider decider, final StatFile statFile)
    {
        this.decider = decider;
        this.hashKeys = decider.hashedKeys();
        this.textKeys = decider.textKeys();
        this.statFile = statFile;
        this.overflowStats = new RuleStats("", "_overflow", statFile);
    }

    /**
     * @param request a request.
     * @return why it cannot be decided (its domain, descriptor count or entry count out of bounds), or null.
     */
    static String validate(final RateLimitRequest request)
    {
        if (request.getDomain().isEmpty())
        {
            return "domain must not be empty";
        }
        final int count = request.getDescriptorsCount();
        if (count < 1 || count > RlsService.MAX_DESCRIPTORS)
        {
            return "descriptors must hold 1 to " + RlsService.MAX_DESCRIPTORS + " descriptors but held " + count;
        }
        for (int i = 0; i < count; i++)
        {
            final int entries = request.getDescriptors(i).getEntriesCount();
            if (entries > RlsService.MAX_ENTRIES)
            {
                return "descriptors[" + i + "].entries must hold at most " + RlsService.MAX_ENTRIES + " entries but held " +
                    entries;
            }
        }
        return null;
    }

    /**
     * Fill the plan's rules, states, hits, refunds, statistics and counter identities under a snapshot.
     *
     * @param s    the snapshot the request is decided under.
     * @param plan the plan, reset for the request.
     * @return why the request cannot be decided (a bad override unit), or null.
     */
    String resolve(final Snapshot s, final Plan plan)
    {
        final RateLimitRequest request = plan.request;
        final String domain = request.getDomain();
        final long requestHits = Math.max(1, Integer.toUnsignedLong(request.getHitsAddend()));
        final RlsConfig.Match match = plan.match;
        Set<String> replaced = null;
        final String[] statsKeys = plan.statsKeys;
        final String[][] shared = plan.shared;
        for (int i = 0; i < plan.count; i++)
        {
            final RateLimitDescriptor descriptor = request.getDescriptors(i);
            if (descriptor.hasHitsAddend())
            {
                final long hits = descriptor.getHitsAddend().getValue();
                plan.hits[i] = hits < 0 ? Long.MAX_VALUE : hits; // a uint64 above 2^63 - 1
            }
            else
            {
                plan.hits[i] = requestHits;
            }
            plan.refund[i] = isNegativeHits(descriptor);
            if (descriptor.hasLimit())
            {
                final Unit unit = Unit.of(descriptor.getLimit().getUnit());
                if (null == unit)
                {
                    return "descriptors[" + i + "].limit.unit must be one of SECOND, MINUTE, HOUR, DAY, WEEK, " +
                        "MONTH, YEAR but was " + descriptor.getLimit().getUnit();
                }
                final long requestsPerUnit = Integer.toUnsignedLong(descriptor.getLimit().getRequestsPerUnit());
                final RuleState state = override(s, domain, unit, requestsPerUnit);
                plan.rules[i] = state.rule;
                plan.states[i] = state;
                statsKeys[i] = overrideStatsKey(domain, descriptor);
                continue;
            }
            final RateLimitRule rule = s.config.match(domain, descriptor, match);
            if (null == rule)
            {
                continue;
            }
            plan.rules[i] = rule;
            plan.states[i] = s.states.get(rule.fullKey());
            plan.unlimited[i] = rule.unlimited();
            statsKeys[i] = match.statsKey;
            shared[i] = match.sharedValues;
            if (!rule.replaces().isEmpty())
            {
                if (null == replaced)
                {
                    replaced = new HashSet<>();
                }
                replaced.addAll(rule.replaces());
            }
        }
        for (int i = 0; i < plan.count; i++)
        {
            final RateLimitRule rule = plan.rules[i];
            if (null == rule)
            {
                continue;
            }
            if (null != replaced && null != rule.name() && !rule.unlimited() && replaced.contains(rule.name()))
            {
                plan.rules[i] = null;
                plan.states[i] = null;
                plan.unlimited[i] = false;
                continue;
            }
            plan.stats[i] = stats(domain, statsKeys[i]);
            if (plan.limited(i))
            {
                final RateLimitDescriptor descriptor = request.getDescriptors(i);
                if (hashKeys)
                {
                    plan.keys[i] = descriptorKey.hash(domain, descriptor, shared[i], plan.sip);
                }
                if (textKeys)
                {
                    plan.keyTexts[i] = DescriptorKey.text(domain, descriptor, shared[i]);
                }
            }
        }
        return null;
    }

    /**
     * Envoy's {@code RateLimitDescriptor.is_negative_hits} (a bool, field {@value RlsService#IS_NEGATIVE_HITS_FIELD}), which
     * the generated classes in use predate: protobuf keeps it among the descriptor's unknown fields. A varint that
     * is not 0 (the last one, as protobuf reads a repeated scalar) means true; any other wire type means false.
     *
     * @param descriptor a descriptor.
     * @return true if its hits are a refund.
     */
    static boolean isNegativeHits(final RateLimitDescriptor descriptor)
    {
        final com.google.protobuf.UnknownFieldSet unknown = descriptor.getUnknownFields();
        if (!unknown.hasField(RlsService.IS_NEGATIVE_HITS_FIELD))
        {
            return false;
        }
        final List<Long> varints = unknown.getField(RlsService.IS_NEGATIVE_HITS_FIELD).getVarintList();
        return !varints.isEmpty() && 0 != varints.get(varints.size() - 1);
    }

    private RuleState override(final Snapshot s, final String domain, final Unit unit, final long requestsPerUnit)
    {
        final String id = requestsPerUnit + "/" + unit;
        final RuleState existing = s.overrides.get(id);
        if (null != existing)
        {
            return existing;
        }
        final boolean room = s.overrides.size() < RlsService.MAX_OVERRIDES;
        final RateLimitRule rule = new RateLimitRule(domain, RlsService.OVERRIDE_PREFIX + id, null, List.of(), unit, 1,
            room ? requestsPerUnit : 0, Math.max(1, requestsPerUnit), false, false, false, "request:0", false);
        if (!room)
        {
            return decider.state(rule, null); // refuses: 0 requests per unit, never held
        }
        return s.overrides.computeIfAbsent(id, k -> decider.state(rule, null));
    }

    private static String overrideStatsKey(final String domain, final RateLimitDescriptor descriptor)
    {
        final StringBuilder b = new StringBuilder(domain).append('.');
        for (int i = 0; i < descriptor.getEntriesCount(); i++)
        {
            final RateLimitDescriptor.Entry entry = descriptor.getEntries(i);
            if (i > 0)
            {
                b.append('.');
            }
            b.append(entry.getKey());
            if (!entry.getValue().isEmpty())
            {
                b.append('_').append(entry.getValue());
            }
        }
        return b.toString();
    }

    private RuleStats stats(final String domain, final String key)
    {
        final RuleStats existing = stats.get(key);
        if (null != existing)
        {
            return existing;
        }
        if (stats.size() >= RlsService.MAX_STATS_KEYS)
        {
            return overflowStats;
        }
        try
        {
            return stats.computeIfAbsent(key, k -> new RuleStats(domain, k, statFile));
        }
        catch (final IllegalStateException full)
        {
            return overflowStats; // the stat file has no room left (keys added concurrently past the bound)
        }
    }

    /**
     * @return every statistics key's counters (a copy of the map, for readers).
     */
    Map<String, RuleStats> stats()
    {
        final Map<String, RuleStats> copy = new java.util.TreeMap<>(stats);
        if (overflowStats.totalHits.sum() > 0)
        {
            copy.put(overflowStats.key, overflowStats);
        }
        return copy;
    }
}
