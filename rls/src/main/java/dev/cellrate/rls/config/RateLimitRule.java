package dev.cellrate.rls.config;

import java.util.List;
import java.util.Objects;

/**
 * One {@code rate_limit} block of the configuration, as loaded (immutable).
 * <p>
 * {@code fullKey} names the rule in statistics and identifies it across reloads:
 * {@code domain.key_value.key...}, the path of the configuration entries that lead to it.
 * {@code requestsPerUnit} per {@code units} x {@code unit}, with a bucket of {@code burst} permits
 * ({@code burst} and {@code units} are extensions; they default to {@code requestsPerUnit} and 1).
 */
public final class RateLimitRule
{
    private final String domain;
    private final String fullKey;
    private final String name;
    private final List<String> replaces;
    private final Unit unit;
    private final long units;
    private final long requestsPerUnit;
    private final long burst;
    private final boolean unlimited;
    private final boolean shadowMode;
    private final boolean detailedMetric;
    private final String source;
    private final boolean oneDescriptor;

    /**
     * @param domain          the domain.
     * @param fullKey         the rule's path, {@code domain.key_value.key}.
     * @param name            the rule's name, or null.
     * @param replaces        the names this rule replaces.
     * @param unit            the unit (null when unlimited).
     * @param units           the window in units, &ge; 1.
     * @param requestsPerUnit requests per window, &ge; 0.
     * @param burst           the bucket's capacity, &ge; 1 (or 0 with 0 requests).
     * @param unlimited       no limit: always OK, never counted against.
     * @param shadowMode      decided and counted, answered OK.
     * @param detailedMetric  statistics per descriptor value.
     * @param source          {@code file:line} of the block, for messages.
     * @param oneDescriptor   true if every entry on the rule's path has an explicit value without {@code *},
     *                        so exactly one descriptor can ever match it.
     */
    public RateLimitRule(
        final String domain, final String fullKey, final String name, final List<String> replaces, final Unit unit,
        final long units, final long requestsPerUnit, final long burst, final boolean unlimited,
        final boolean shadowMode, final boolean detailedMetric, final String source, final boolean oneDescriptor)
    {
        this.oneDescriptor = oneDescriptor;
        this.domain = domain;
        this.fullKey = fullKey;
        this.name = name;
        this.replaces = List.copyOf(replaces);
        this.unit = unit;
        this.units = units;
        this.requestsPerUnit = requestsPerUnit;
        this.burst = burst;
        this.unlimited = unlimited;
        this.shadowMode = shadowMode;
        this.detailedMetric = detailedMetric;
        this.source = source;
    }

    public String domain()
    {
        return domain;
    }

    public String fullKey()
    {
        return fullKey;
    }

    /**
     * @return the rule's name, or null.
     */
    public String name()
    {
        return name;
    }

    public List<String> replaces()
    {
        return replaces;
    }

    public Unit unit()
    {
        return unit;
    }

    public long units()
    {
        return units;
    }

    public long requestsPerUnit()
    {
        return requestsPerUnit;
    }

    public long burst()
    {
        return burst;
    }

    public boolean unlimited()
    {
        return unlimited;
    }

    public boolean shadowMode()
    {
        return shadowMode;
    }

    public boolean detailedMetric()
    {
        return detailedMetric;
    }

    public String source()
    {
        return source;
    }

    /**
     * @return true if exactly one descriptor can match the rule (every entry on its path has an explicit value
     * without {@code *}), so its state is one cell.
     */
    public boolean oneDescriptor()
    {
        return oneDescriptor;
    }

    /**
     * @return the window's length in seconds: {@code units * unit}.
     */
    public long windowSeconds()
    {
        return units * unit.seconds();
    }

    /**
     * @param other another rule.
     * @return true if both decide identically on the same state (same identity, rate, window and burst), so a
     * reload may keep the state of one for the other.
     */
    public boolean sameLimit(final RateLimitRule other)
    {
        return null != other && fullKey.equals(other.fullKey) && unlimited == other.unlimited &&
            unit == other.unit && units == other.units && requestsPerUnit == other.requestsPerUnit &&
            burst == other.burst;
    }

    public String toString()
    {
        return fullKey + (unlimited ? " unlimited" :
            " " + requestsPerUnit + "/" + (units == 1 ? "" : units + " ") + Objects.toString(unit) + " burst " + burst) +
            (null == name ? "" : " name " + name) + (replaces.isEmpty() ? "" : " replaces " + replaces) +
            (shadowMode ? " shadow_mode" : "") + (detailedMetric ? " detailed_metric" : "");
    }
}
