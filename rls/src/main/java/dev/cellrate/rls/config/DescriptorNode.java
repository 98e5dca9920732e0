package dev.cellrate.rls.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One level of a domain's descriptor tree: its children by {@code key} or {@code key_value} (the map key the
 * reference service uses), the children whose value holds a {@code *} in the order they were declared, and the
 * rule of this entry, if any. Immutable once loaded.
 */
public final class DescriptorNode
{
    final Map<String, DescriptorNode> children = new LinkedHashMap<>();
    final List<Wildcard> wildcards = new ArrayList<>();
    RateLimitRule rule;
    boolean shareThreshold;
    boolean valueToMetric;

    /**
     * A child whose {@code key_value} holds one or more {@code *}: the literal parts between them.
     */
    static final class Wildcard
    {
        final String mapKey;
        final String[] parts;

        Wildcard(final String mapKey)
        {
            this.mapKey = mapKey;
            this.parts = mapKey.split("\\*", -1);
        }

        /**
         * @param keyValue a request entry's {@code key_value}.
         * @return true if every {@code *} can match zero or more characters so that the pattern spells it.
         */
        boolean matches(final String keyValue)
        {
            final String first = parts[0];
            final String last = parts[parts.length - 1];
            if (!keyValue.startsWith(first) || !keyValue.endsWith(last) ||
                keyValue.length() < first.length() + last.length())
            {
                return false;
            }
            int from = first.length();
            final int to = keyValue.length() - last.length();
            for (int i = 1; i < parts.length - 1; i++)
            {
                final int at = keyValue.indexOf(parts[i], from);
                if (at < 0 || at + parts[i].length() > to)
                {
                    return false;
                }
                from = at + parts[i].length();
            }
            return true;
        }
    }

    /**
     * @return the rule at this entry, or null.
     */
    public RateLimitRule rule()
    {
        return rule;
    }

    /**
     * @return the children by map key ({@code key} or {@code key_value}).
     */
    public Map<String, DescriptorNode> children()
    {
        return Collections.unmodifiableMap(children);
    }
}
