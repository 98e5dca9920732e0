package dev.cellrate.rls.config;

import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * A loaded configuration: the descriptor tree of every domain, matched as envoyproxy/ratelimit matches it.
 * Immutable; a reload builds a new one and publishes it whole.
 * <p>
 * Matching a request's descriptor, entry by entry from the domain's top level: try the child
 * {@code key_value}, then the wildcard children in the order they were declared, then the bare {@code key}
 * (the default for any value). A rule applies only if it sits on the entry that matches the descriptor's last
 * entry (a descriptor deeper or shallower than the configuration matches nothing). The walk stops at the first
 * entry that matches nothing or has no children.
 * <p>
 * Statistics key: the rule's path; under {@code detailed_metric} the descriptor's own keys and values; under
 * {@code value_to_metric} on an entry, the request's value in place of that entry's configured one (a
 * {@code share_threshold} entry keeps its pattern).
 */
public final class RlsConfig
{
    private final Map<String, DescriptorNode> domains;
    private final List<RateLimitRule> rules;
    private final List<String> files;
    private final boolean valueToMetric;

    RlsConfig(final Map<String, DescriptorNode> domains, final List<RateLimitRule> rules, final List<String> files,
        final boolean valueToMetric)
    {
        this.valueToMetric = valueToMetric;
        this.domains = domains;
        this.rules = Collections.unmodifiableList(new ArrayList<>(rules));
        this.files = List.copyOf(files);
        for (final DescriptorNode root : domains.values())
        {
            root.seal();
        }
    }

    /**
     * The outcome of matching one descriptor (a fresh object per match; callers on a hot path keep one per
     * request).
     */
    public static final class Match
    {
        /** The rule, or null when nothing applies. */
        public RateLimitRule rule;
        /** The statistics key: the rule's full key, or the descriptor's own path under detailed_metric. */
        public String statsKey;
        /**
         * Per entry index, the wildcard value the counter is shared under ({@code share_threshold}), or null
         * when every entry counts under its own value.
         */
        public String[] sharedValues;
    }

    /**
     * @param domain the request's domain.
     * @return true if the configuration has the domain.
     */
    public boolean hasDomain(final String domain)
    {
        return domains.containsKey(domain);
    }

    /**
     * Match one descriptor of a request. Nothing is allocated, except the statistics key under
     * {@code detailed_metric} or {@code value_to_metric} and the shared values under {@code share_threshold}.
     *
     * @param domain     the request's domain.
     * @param descriptor the descriptor.
     * @param match      filled with the rule (null if none), its statistics key and shared values.
     * @return the rule, or null.
     */
    public RateLimitRule match(final String domain, final RateLimitDescriptor descriptor, final Match match)
    {
        match.rule = null;
        match.statsKey = null;
        match.sharedValues = null;
        final DescriptorNode root = domains.get(domain);
        if (null == root)
        {
            return null;
        }
        final int count = descriptor.getEntriesCount();
        final StringBuilder metricKeys = valueToMetric ? new StringBuilder(domain) : null;
        DescriptorNode level = root;
        RateLimitRule rule = null;
        String[] shared = null;
        for (int i = 0; i < count; i++)
        {
            final RateLimitDescriptor.Entry entry = descriptor.getEntries(i);
            final String key = entry.getKey();
            final String value = entry.getValue();
            DescriptorNode next = level.child(key, value); // key_value, found without joining the strings
            String metricValue = value; // the value the statistics key names under value_to_metric
            if (null == next)
            {
                final java.util.List<DescriptorNode.Wildcard> wildcards = level.wildcards;
                for (int w = 0, n = wildcards.size(); w < n; w++) // indexed: no iterator per descriptor
                {
                    final DescriptorNode.Wildcard wildcard = wildcards.get(w);
                    if (wildcard.matches(key, value))
                    {
                        next = wildcard.node;
                        if (null != next && next.shareThreshold)
                        {
                            if (null == shared)
                            {
                                shared = new String[count];
                            }
                            shared[i] = wildcard.valueAfter(key.length());
                        }
                        if (null != metricKeys)
                        {
                            metricValue = null != next && (next.valueToMetric && !next.shareThreshold) ?
                                value : wildcard.valueAfter(key.length());
                        }
                        break;
                    }
                }
            }
            if (null == next)
            {
                next = level.child(key);
                if (null != next && !next.valueToMetric)
                {
                    metricValue = "";
                }
            }
            if (null == next)
            {
                break;
            }
            if (null != metricKeys)
            {
                metricKeys.append('.').append(key);
                if (!metricValue.isEmpty())
                {
                    metricKeys.append('_').append(metricValue);
                }
            }
            if (null != next.rule && i == count - 1)
            {
                rule = next.rule;
            }
            if (next.children.isEmpty())
            {
                break;
            }
            level = next;
        }
        if (null == rule)
        {
            return null;
        }
        match.rule = rule;
        match.sharedValues = shared;
        match.statsKey = rule.detailedMetric() ? detailedKey(domain, descriptor, shared) :
            null != metricKeys ? metricKeys.toString() : rule.fullKey();
        return rule;
    }

    private static String detailedKey(final String domain, final RateLimitDescriptor descriptor, final String[] shared)
    {
        final StringBuilder b = new StringBuilder(domain);
        for (int i = 0; i < descriptor.getEntriesCount(); i++)
        {
            final RateLimitDescriptor.Entry entry = descriptor.getEntries(i);
            b.append('.').append(entry.getKey());
            final String value = null != shared && null != shared[i] ? shared[i] : entry.getValue();
            if (!value.isEmpty())
            {
                b.append('_').append(value);
            }
        }
        return b.toString();
    }

    /**
     * @return every rule, in load order.
     */
    public List<RateLimitRule> rules()
    {
        return rules;
    }

    /**
     * @return the domains.
     */
    public Map<String, DescriptorNode> domains()
    {
        return Collections.unmodifiableMap(domains);
    }

    /**
     * @return the files the configuration was read from.
     */
    public List<String> files()
    {
        return files;
    }

    /**
     * @return the configuration as text: one line per rule (what {@code /rlconfig} shows).
     */
    public String dump()
    {
        final StringBuilder b = new StringBuilder();
        for (final RateLimitRule rule : rules)
        {
            b.append(rule).append('\n');
        }
        return b.toString();
    }
}
