package dev.cellrate.spring;

import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code cellrate.*} properties: named limits, each with its rate, its key, the requests it applies to,
 * its mode, its headers and its backend. Checked when the application starts ({@link LimitRegistry}): a bad
 * value stops the start with a message naming the property and its allowed range.
 */
@ConfigurationProperties(prefix = "cellrate")
public class CellrateProperties
{
    /** Whether the starter configures anything at all. */
    private boolean enabled = true;

    /** Whether a rejection carries an RFC 9457 problem body (application/problem+json). */
    private boolean problemDetails = false;

    /** The order of the Servlet filter and of the WebFlux web filter. */
    private int filterOrder = -100;

    /** The named limits, decided in this order: a request takes the first limit that matches it. */
    private Map<String, LimitProperties> limits = new LinkedHashMap<>();

    /** The Redis server for limits with {@code backend: redis}. */
    private Redis redis = new Redis();

    public boolean isEnabled()
    {
        return enabled;
    }

    public void setEnabled(final boolean enabled)
    {
        this.enabled = enabled;
    }

    public boolean isProblemDetails()
    {
        return problemDetails;
    }

    public void setProblemDetails(final boolean problemDetails)
    {
        this.problemDetails = problemDetails;
    }

    public int getFilterOrder()
    {
        return filterOrder;
    }

    public void setFilterOrder(final int filterOrder)
    {
        this.filterOrder = filterOrder;
    }

    public Map<String, LimitProperties> getLimits()
    {
        return limits;
    }

    public void setLimits(final Map<String, LimitProperties> limits)
    {
        this.limits = limits;
    }

    public Redis getRedis()
    {
        return redis;
    }

    public void setRedis(final Redis redis)
    {
        this.redis = redis;
    }

    /** A rate: permits per period, with a burst. */
    public static class RateProperties
    {
        /** Permits per period, in [1, 1000000000]. */
        private long rate = 0;

        /** The period the rate is counted over, in [1ms, 1d]. */
        private Duration period = Duration.ofSeconds(1);

        /** Permits that may go at once, in [1, 1000000000]; defaults to the rate. */
        private long burst = 0;

        public long getRate()
        {
            return rate;
        }

        public void setRate(final long rate)
        {
            this.rate = rate;
        }

        public Duration getPeriod()
        {
            return period;
        }

        public void setPeriod(final Duration period)
        {
            this.period = period;
        }

        public long getBurst()
        {
            return burst;
        }

        public void setBurst(final long burst)
        {
            this.burst = burst;
        }
    }

    /** One named limit. */
    public static class LimitProperties extends RateProperties
    {
        /** How each request's key is found. */
        private KeyProperties key = new KeyProperties();

        /** Path patterns (Spring PathPattern syntax) this limit applies to; empty means every path. */
        private List<String> paths = new ArrayList<>();

        /** HTTP methods this limit applies to; empty means every method. */
        private List<String> methods = new ArrayList<>();

        /**
         * Whether the Servlet and WebFlux filters apply this limit; false for a limit used only by the gateway's
         * RequestRateLimiter or by {@code @RateLimited}.
         */
        private boolean filter = true;

        /**
         * Whether the limit's rate can be changed while the application runs (the actuator endpoint's write
         * operation), every key keeping its state. Mode enforce or dry-run, backend local.
         */
        private boolean reconfigurable = false;

        /**
         * Per-key classes: named groups of keys, each with a limit of its own (keys not listed get this limit).
         * Mode enforce or dry-run, backend local; at most 16 classes.
         */
        private Map<String, ClassProperties> classes = new LinkedHashMap<>();

        /** What the web filters do with the decision. */
        private LimitMode mode = LimitMode.ENFORCE;

        /** Which rate-limit header fields the responses carry. */
        private HeaderStyle headers = HeaderStyle.IETF;

        /** Whether admitted responses carry the rate-limit fields too (rejections always do). */
        private boolean headersOnAdmitted = true;

        /** The policy name in RateLimit-Policy and RateLimit; defaults to the limit's name. */
        private String policyName;

        /** Keys the local table is sized for, in [1, 100000000]. */
        private int expectedKeys = 100_000;

        /** Where the limit's state lives. */
        private Backend backend = Backend.LOCAL;

        /** For mode shape: the longest a request is held before it is refused instead, in [0, 1m]. */
        private Duration maxDelay = Duration.ofSeconds(1);

        /** For mode charge-after: the response statuses that cost one permit (e.g. 401, 403). */
        private List<Integer> chargeStatuses = new ArrayList<>();

        /** For mode charge-after: a response header whose value is the cost (a non-negative integer). */
        private String costHeader;

        public KeyProperties getKey()
        {
            return key;
        }

        public void setKey(final KeyProperties key)
        {
            this.key = key;
        }

        public List<String> getPaths()
        {
            return paths;
        }

        public void setPaths(final List<String> paths)
        {
            this.paths = paths;
        }

        public List<String> getMethods()
        {
            return methods;
        }

        public void setMethods(final List<String> methods)
        {
            this.methods = methods;
        }

        public boolean isFilter()
        {
            return filter;
        }

        public void setFilter(final boolean filter)
        {
            this.filter = filter;
        }

        public Map<String, ClassProperties> getClasses()
        {
            return classes;
        }

        public void setClasses(final Map<String, ClassProperties> classes)
        {
            this.classes = classes;
        }

        public boolean isReconfigurable()
        {
            return reconfigurable;
        }

        public void setReconfigurable(final boolean reconfigurable)
        {
            this.reconfigurable = reconfigurable;
        }

        public LimitMode getMode()
        {
            return mode;
        }

        public void setMode(final LimitMode mode)
        {
            this.mode = mode;
        }

        public HeaderStyle getHeaders()
        {
            return headers;
        }

        public void setHeaders(final HeaderStyle headers)
        {
            this.headers = headers;
        }

        public boolean isHeadersOnAdmitted()
        {
            return headersOnAdmitted;
        }

        public void setHeadersOnAdmitted(final boolean headersOnAdmitted)
        {
            this.headersOnAdmitted = headersOnAdmitted;
        }

        public String getPolicyName()
        {
            return policyName;
        }

        public void setPolicyName(final String policyName)
        {
            this.policyName = policyName;
        }

        public int getExpectedKeys()
        {
            return expectedKeys;
        }

        public void setExpectedKeys(final int expectedKeys)
        {
            this.expectedKeys = expectedKeys;
        }

        public Backend getBackend()
        {
            return backend;
        }

        public void setBackend(final Backend backend)
        {
            this.backend = backend;
        }

        public Duration getMaxDelay()
        {
            return maxDelay;
        }

        public void setMaxDelay(final Duration maxDelay)
        {
            this.maxDelay = maxDelay;
        }

        public List<Integer> getChargeStatuses()
        {
            return chargeStatuses;
        }

        public void setChargeStatuses(final List<Integer> chargeStatuses)
        {
            this.chargeStatuses = chargeStatuses;
        }

        public String getCostHeader()
        {
            return costHeader;
        }

        public void setCostHeader(final String costHeader)
        {
            this.costHeader = costHeader;
        }
    }

    /** A class of keys with a limit of its own. */
    public static class ClassProperties extends RateProperties
    {
        /** The keys of this class (header values, principal names, addresses as text, ...). */
        private List<String> keys = new ArrayList<>();

        public List<String> getKeys()
        {
            return keys;
        }

        public void setKeys(final List<String> keys)
        {
            this.keys = keys;
        }
    }

    /**
     * How a request's key is found: {@code source}, {@code header}, {@code trusted-hops}, {@code ipv6-prefix},
     * {@code variable}, {@code expression} and {@code fallback}.
     */
    public static class KeyProperties extends KeySettings
    {
    }

    /**
     * The Redis server shared by the limits whose backend is redis: {@code uri}, {@code fail-policy},
     * {@code timeout} and {@code prefix}.
     */
    public static class Redis extends RedisSettings
    {
    }
}
