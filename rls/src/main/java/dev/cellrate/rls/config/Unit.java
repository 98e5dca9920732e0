package dev.cellrate.rls.config;

import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;

import java.util.Locale;

/**
 * The units of envoyproxy/ratelimit's {@code rate_limit.unit}, with the lengths that service counts them in:
 * a month is 30 days and a year 365 days.
 */
public enum Unit
{
    SECOND(1, RateLimitResponse.RateLimit.Unit.SECOND),
    MINUTE(60, RateLimitResponse.RateLimit.Unit.MINUTE),
    HOUR(3_600, RateLimitResponse.RateLimit.Unit.HOUR),
    DAY(86_400, RateLimitResponse.RateLimit.Unit.DAY),
    WEEK(7 * 86_400, RateLimitResponse.RateLimit.Unit.WEEK),
    MONTH(30 * 86_400, RateLimitResponse.RateLimit.Unit.MONTH),
    YEAR(365 * 86_400, RateLimitResponse.RateLimit.Unit.YEAR);

    private final long seconds;
    private final RateLimitResponse.RateLimit.Unit proto;

    Unit(final long seconds, final RateLimitResponse.RateLimit.Unit proto)
    {
        this.seconds = seconds;
        this.proto = proto;
    }

    /**
     * @return the unit's length in seconds.
     */
    public long seconds()
    {
        return seconds;
    }

    /**
     * @return the unit in Envoy's response.
     */
    public RateLimitResponse.RateLimit.Unit proto()
    {
        return proto;
    }

    /**
     * @param name a unit name in any case ({@code second}, {@code MINUTE}, ...).
     * @return the unit, or null if the name is not one.
     */
    public static Unit parse(final String name)
    {
        if (null == name)
        {
            return null;
        }
        for (final Unit unit : values())
        {
            if (unit.name().equals(name.toUpperCase(Locale.ROOT)))
            {
                return unit;
            }
        }
        return null;
    }

    /**
     * @param override a unit of a request's limit override.
     * @return the unit, or null for {@code UNKNOWN} and unrecognised values.
     */
    public static Unit of(final io.envoyproxy.envoy.type.v3.RateLimitUnit override)
    {
        return null == override ? null : parse(override.name());
    }

    /**
     * @param proto a unit of a response.
     * @return the unit, or null for {@code UNKNOWN} and unrecognised values.
     */
    public static Unit of(final RateLimitResponse.RateLimit.Unit proto)
    {
        for (final Unit unit : values())
        {
            if (unit.proto == proto)
            {
                return unit;
            }
        }
        return null;
    }
}
