package dev.cellrate.spring;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.ShaperMode;
import dev.cellrate.stat.StatFile;
import org.agrona.concurrent.NanoClock;
import org.springframework.expression.Expression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.http.server.PathContainer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The configured limits, built and checked from {@link CellrateProperties} when the application starts. A bad
 * value throws {@link IllegalArgumentException} naming the property ({@code cellrate.limits.<name>.<field>})
 * and its allowed range, which stops the start.
 * <p>
 * The counters of every limit live in one in-memory {@link StatFile}; {@link #statFile()} feeds the Micrometer
 * binder and the actuator endpoint.
 */
public final class LimitRegistry implements AutoCloseable
{
    /** Most permits per period, and most burst, a property may ask for. */
    public static final long MAX_RATE = 1_000_000_000L;
    /** Most keys a local table may be sized for. */
    public static final int MAX_EXPECTED_KEYS = 100_000_000;
    /** Longest key taken from a header or an expression; a longer one is replaced by the fallback key. */
    public static final int MAX_KEY_LENGTH = 256;

    private final Map<String, NamedLimit> byName;
    private final NamedLimit[] ordered;
    private final boolean anyPaths;
    private final StatFile statFile;
    private final RedisBackend redisBackend;
    private final boolean problemDetails;
    private final ThreadLocal<NamedLimit.Scratch> scratch = ThreadLocal.withInitial(NamedLimit.Scratch::new);

    /**
     * @param properties the {@code cellrate.*} properties.
     * @param clock      the clock of local decisions.
     * @throws IllegalArgumentException naming the bad property and its allowed range.
     */
    public LimitRegistry(final CellrateProperties properties, final NanoClock clock)
    {
        this.problemDetails = properties.isProblemDetails();
        this.statFile = StatFile.inMemory();
        final Map<String, NamedLimit> limits = new LinkedHashMap<>();
        RedisBackend redis = null;
        boolean paths = false;
        try
        {
            for (final Map.Entry<String, CellrateProperties.LimitProperties> e : properties.getLimits().entrySet())
            {
                final String prefix = "cellrate.limits." + e.getKey();
                final CellrateProperties.LimitProperties p = e.getValue();
                if (Backend.REDIS == p.getBackend() && null == redis)
                {
                    redis = new RedisBackend(properties.getRedis());
                }
                final NamedLimit limit = build(prefix, e.getKey(), p, clock, redis);
                paths |= limit.filter && limit.match.hasPaths();
                limits.put(e.getKey(), limit);
            }
        }
        catch (final RuntimeException ex)
        {
            if (null != redis)
            {
                redis.close();
            }
            statFile.close();
            throw ex;
        }
        this.redisBackend = redis;
        this.byName = Collections.unmodifiableMap(limits);
        this.ordered = limits.values().toArray(new NamedLimit[0]);
        this.anyPaths = paths;
    }

    /**
     * @param name a limit's name.
     * @return the limit, or null.
     */
    public NamedLimit get(final String name)
    {
        return byName.get(name);
    }

    /**
     * @return every limit by name, in configuration order.
     */
    public Map<String, NamedLimit> limits()
    {
        return byName;
    }

    /**
     * @return the counters of every limit.
     */
    public StatFile statFile()
    {
        return statFile;
    }

    /**
     * @return whether rejections carry an RFC 9457 problem body.
     */
    public boolean problemDetails()
    {
        return problemDetails;
    }

    NamedLimit.Scratch scratch()
    {
        return scratch.get();
    }

    boolean anyPaths()
    {
        return anyPaths;
    }

    /**
     * @param method the request method.
     * @param path   the request path (parsed only if some limit has path patterns), or null.
     * @return the first limit that matches, or null.
     */
    NamedLimit match(final String method, final PathContainer path)
    {
        for (final NamedLimit limit : ordered)
        {
            if (limit.filter && limit.match.matchesMethod(method) && (null == path || limit.match.matchesPath(path)))
            {
                return limit;
            }
        }
        return null;
    }

    public void close()
    {
        for (final NamedLimit limit : ordered)
        {
            if (null != limit.redis)
            {
                limit.redis.close();
            }
        }
        if (null != redisBackend)
        {
            redisBackend.close();
        }
        statFile.close();
    }

    private NamedLimit build(
        final String prefix, final String name, final CellrateProperties.LimitProperties p, final NanoClock clock,
        final RedisBackend redis)
    {
        final NamedLimit.Builder b = new NamedLimit.Builder();
        b.name = name;
        b.clock = clock;
        b.limit = limit(prefix, p);
        b.mode = requireNonNull(prefix + ".mode", p.getMode());
        b.filter = p.isFilter();
        b.headers = requireNonNull(prefix + ".headers", p.getHeaders());
        b.headersOnAdmitted = p.isHeadersOnAdmitted();
        b.policyName = null == p.getPolicyName() ? name : p.getPolicyName();
        if (b.policyName.isEmpty() || b.policyName.length() > 64 || !b.policyName.chars().allMatch(c -> c >= 0x20 && c <= 0x7E))
        {
            throw new IllegalArgumentException(prefix + (null == p.getPolicyName() ? " (the limit's name)" : ".policy-name") +
                " must be 1..64 printable ASCII characters but was '" + b.policyName + "'");
        }
        requireRange(prefix + ".expected-keys", p.getExpectedKeys(), 1, MAX_EXPECTED_KEYS);
        b.match = new RequestMatch(prefix, p.getPaths(), p.getMethods());
        keyOf(prefix + ".key", p.getKey(), b);
        b.maxDelayNs = requireDuration(prefix + ".max-delay", p.getMaxDelay(), Duration.ZERO, Duration.ofMinutes(1))
            .toNanos();
        b.chargeStatuses = new boolean[600];
        for (int i = 0; i < p.getChargeStatuses().size(); i++)
        {
            final Integer status = p.getChargeStatuses().get(i);
            requireRange(prefix + ".charge-statuses[" + i + "]", null == status ? -1 : status, 100, 599);
            b.chargeStatuses[status] = true;
        }
        b.costHeader = p.getCostHeader();
        if (LimitMode.CHARGE_AFTER == b.mode && p.getChargeStatuses().isEmpty() && null == b.costHeader)
        {
            throw new IllegalArgumentException(prefix + ".charge-statuses or " + prefix +
                ".cost-header must be set when " + prefix + ".mode is charge-after");
        }
        final Backend backend = requireNonNull(prefix + ".backend", p.getBackend());
        if (Backend.REDIS == backend)
        {
            if (p.isReconfigurable() || !p.getClasses().isEmpty())
            {
                throw new IllegalArgumentException(prefix + ".reconfigurable and " + prefix + ".classes need " +
                    prefix + ".backend local");
            }
            if (LimitMode.SHAPE == b.mode || LimitMode.CHARGE_AFTER == b.mode)
            {
                throw new IllegalArgumentException(prefix + ".mode must be enforce or dry-run when " + prefix +
                    ".backend is redis but was " + b.mode.name().toLowerCase(Locale.ROOT).replace('_', '-'));
            }
            b.redis = redis.limiter(b.limit, name);
        }
        else
        {
            final var builder = KeyedRateLimiter.builder(b.limit).expectedKeys(p.getExpectedKeys()).clock(clock);
            if (!p.getClasses().isEmpty())
            {
                if (LimitMode.ENFORCE != b.mode && LimitMode.DRY_RUN != b.mode || p.isReconfigurable())
                {
                    throw new IllegalArgumentException(prefix + ".classes need mode enforce or dry-run and " +
                        "reconfigurable false");
                }
                final KeyClasses classes = new KeyClasses(prefix + ".classes", p.getClasses(), b.keySource,
                    b.ipv6Prefix);
                b.decider = builder.buildClassed(classes, classes.limits());
            }
            else if (p.isReconfigurable())
            {
                if (LimitMode.ENFORCE != b.mode && LimitMode.DRY_RUN != b.mode)
                {
                    throw new IllegalArgumentException(prefix + ".mode must be enforce or dry-run when " + prefix +
                        ".reconfigurable is true but was " + b.mode.name().toLowerCase(Locale.ROOT).replace('_', '-'));
                }
                b.decider = builder.buildReconfigurable();
            }
            else if (LimitMode.SHAPE == b.mode)
            {
                b.shaper = builder.buildShaper(ShaperMode.delay());
            }
            else
            {
                b.local = builder.build();
            }
        }
        b.stats = statFile.limiter(name);
        return new NamedLimit(b);
    }

    private static void keyOf(final String prefix, final CellrateProperties.KeyProperties k, final NamedLimit.Builder b)
    {
        b.keySource = requireNonNull(prefix + ".source", k.getSource());
        b.ipv6Prefix = (int)requireRange(prefix + ".ipv6-prefix", k.getIpv6Prefix(), 1, 64);
        final String fallback = k.getFallback();
        if (null == fallback || fallback.isEmpty() || fallback.length() > MAX_KEY_LENGTH)
        {
            throw new IllegalArgumentException(prefix + ".fallback must be 1.." + MAX_KEY_LENGTH +
                " characters but was '" + fallback + "'");
        }
        b.fallback = fallback;
        switch (b.keySource)
        {
            case FORWARDED:
                b.trustedHops = (int)requireRange(prefix + ".trusted-hops", k.getTrustedHops(), 1, 64);
                b.keyHeader = null == k.getHeader() ? "X-Forwarded-For" : requireHeader(prefix + ".header", k.getHeader());
                break;
            case HEADER:
                b.keyHeader = requireHeader(prefix + ".header", k.getHeader());
                break;
            case PATH_VARIABLE:
                if (null == k.getVariable() || k.getVariable().isBlank())
                {
                    throw new IllegalArgumentException(prefix + ".variable must name a path variable when " + prefix +
                        ".source is path-variable");
                }
                if (!b.match.bindsVariable(k.getVariable()))
                {
                    throw new IllegalArgumentException(prefix + ".variable '" + k.getVariable() +
                        "' must be bound by one of the limit's paths");
                }
                b.variable = k.getVariable();
                break;
            case SPEL:
                b.expression = parse(prefix + ".expression", k.getExpression());
                break;
            default:
                break;
        }
    }

    static Expression parse(final String property, final String expression)
    {
        if (null == expression || expression.isBlank())
        {
            throw new IllegalArgumentException(property + " must be a SpEL expression but was empty");
        }
        try
        {
            return new SpelExpressionParser().parseExpression(expression);
        }
        catch (final RuntimeException ex)
        {
            throw new IllegalArgumentException(property + " must be a SpEL expression but '" + expression +
                "' does not parse: " + ex.getMessage(), ex);
        }
    }

    private static String requireHeader(final String property, final String header)
    {
        if (null == header || !header.matches("[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}"))
        {
            throw new IllegalArgumentException(property + " must be a header name (1..64 token characters) but was '" +
                header + "'");
        }
        return header;
    }

    /**
     * The limit of a rate's properties, each checked against its range.
     *
     * @throws IllegalArgumentException naming the property (under {@code prefix}) and its range.
     */
    static Limit limit(final String prefix, final CellrateProperties.RateProperties p)
    {
        requireRange(prefix + ".rate", p.getRate(), 1, MAX_RATE);
        final long burst = 0 == p.getBurst() ? p.getRate() : p.getBurst();
        requireRange(prefix + ".burst", burst, 1, MAX_RATE);
        final Duration period = requireDuration(prefix + ".period", p.getPeriod(), Duration.ofMillis(1),
            Duration.ofDays(1));
        try
        {
            return Limit.of(p.getRate(), period.toNanos(), TimeUnit.NANOSECONDS, burst);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException(prefix + ": rate, period and burst do not make a limit: " +
                ex.getMessage(), ex);
        }
    }

    static long requireRange(final String property, final long value, final long min, final long max)
    {
        if (value < min || value > max)
        {
            throw new IllegalArgumentException(property + " must be in [" + min + ", " + max + "] but was " + value);
        }
        return value;
    }

    static Duration requireDuration(final String property, final Duration value, final Duration min,
        final Duration max)
    {
        if (null == value || value.compareTo(min) < 0 || value.compareTo(max) > 0)
        {
            throw new IllegalArgumentException(property + " must be in [" + min + ", " + max + "] but was " + value);
        }
        return value;
    }

    private static <T> T requireNonNull(final String property, final T value)
    {
        if (null == value)
        {
            throw new IllegalArgumentException(property + " must be set");
        }
        return value;
    }

    /**
     * Change a reconfigurable limit's rate while the application runs; every key keeps its state (the engine's
     * reconfiguration: a key in debt stays in debt by the same time).
     *
     * @param name   the limit's name.
     * @param rate   permits per period, [1, 10^9].
     * @param period the period, [1 ms, 1 d].
     * @param burst  permits at once, [1, 10^9].
     * @return the new limit.
     * @throws IllegalArgumentException naming the bad value and its range, or a limit that cannot change.
     */
    public Limit reconfigure(final String name, final long rate, final Duration period, final long burst)
    {
        final NamedLimit limit = byName.get(name);
        if (null == limit)
        {
            throw new IllegalArgumentException("name must be one of cellrate.limits " + names() + " but was " + name);
        }
        requireRange("rate", rate, 1, MAX_RATE);
        requireRange("burst", burst, 1, MAX_RATE);
        requireDuration("period", period, Duration.ofMillis(1), Duration.ofDays(1));
        final Limit next;
        try
        {
            next = Limit.of(rate, period.toNanos(), TimeUnit.NANOSECONDS, burst);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException("rate, period and burst do not make a limit: " + ex.getMessage(), ex);
        }
        limit.setLimit(next);
        return next;
    }

    /**
     * @return the names of the limits, in order.
     */
    public List<String> names()
    {
        return new ArrayList<>(byName.keySet());
    }
}
