package dev.cellrate.translate;

import dev.cellrate.Limit;
import dev.cellrate.ShaperMode;

/**
 * Translator for NGINX {@code limit_req_zone ... rate=R r/s|r/m} plus {@code limit_req burst=B
 * [delay=N|nodelay]}.
 * <p>
 * NGINX (1.26, {@code ngx_http_limit_req_lookup}) keeps per key an {@code excess} in thousandths of a
 * request and the last time in ms; a request is rejected iff
 * {@code max(excess - rate*ms/1000 + 1000, 0) > B*1000}. With {@code TAT = last + (excess/1000 + 1)*T} that
 * is exactly GCRA(T, B&middot;T): the TAT after each admission is {@code max(TAT, t) + T} and the test is
 * {@code lag <= B*T}. So NGINX's burst B admits B + 1 requests at once from idle.
 * <p>
 * Rounding: {@code rate} is converted as NGINX does, {@code rateMilli = R * 1000 / scale} (integer division;
 * scale 1 for r/s, 60 for r/m), and {@code T = ceil(10^12 / rateMilli)} ns. Decisions are identical to NGINX on
 * a millisecond clock when {@code rateMilli} is a multiple of 1000 (every r/s rate, r/m rates that are
 * multiples of 60) and {@code 10^12 / rateMilli} is an integer. Otherwise NGINX's per-request truncation of
 * {@code rate*ms/1000} makes NGINX slightly stricter than the translated limit (documented in
 * {@code docs/translations.md}).
 */
public final class Nginx
{
    /** Largest accepted {@code rate=} value. */
    public static final long MAX_RATE = 1_000_000_000L;

    /** NGINX's rate units. */
    public enum RateUnit
    {
        /** {@code r/s}. */
        PER_SECOND(1),
        /** {@code r/m}. */
        PER_MINUTE(60);

        private final long scaleSeconds;

        RateUnit(final long scaleSeconds)
        {
            this.scaleSeconds = scaleSeconds;
        }

        /**
         * @return seconds per unit (NGINX's {@code scale}).
         */
        long scaleSeconds()
        {
            return scaleSeconds;
        }
    }

    private Nginx()
    {
    }

    /**
     * {@code rate=R r/s|r/m burst=B} in the default (shaping, {@code delay=0}) mode.
     *
     * @param rate  R, in [1, {@link #MAX_RATE}].
     * @param unit  per second or per minute.
     * @param burst B, &ge; 0 (the limit's burst is B + 1).
     * @return the translation.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public static NginxLimitReq limitReq(final long rate, final RateUnit unit, final long burst)
    {
        return limitReq(rate, unit, burst, ShaperMode.delay());
    }

    /**
     * {@code rate=R r/s|r/m burst=B} with a delay mode.
     *
     * @param rate  R, in [1, {@link #MAX_RATE}].
     * @param unit  per second or per minute.
     * @param burst B, in [0, 2<sup>62</sup> / T - 1].
     * @param mode  {@code delay} ({@link ShaperMode#delay()}), {@code delay=N} or {@code nodelay}.
     * @return the translation.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public static NginxLimitReq limitReq(
        final long rate, final RateUnit unit, final long burst, final ShaperMode mode)
    {
        Range.requireNonNull("unit", unit);
        Range.requireNonNull("mode", mode);
        Range.require("rate", rate, 1, MAX_RATE);
        final long rateMilli = rate * 1000 / unit.scaleSeconds();
        final long emissionIntervalNs = Range.ceilDiv(1_000_000_000_000L, rateMilli);
        Range.require("burst", burst, 0, Limit.MAX_CEILING_NS / emissionIntervalNs - 1);
        final Limit limit = Limit.ofGcra(emissionIntervalNs, burst * emissionIntervalNs);
        return new NginxLimitReq(limit, mode, rateMilli, burst);
    }

    /**
     * Parse the parameters of one {@code limit_req_zone}/{@code limit_req} pair written on one line, e.g.
     * {@code "rate=10r/s burst=5 nodelay"} or {@code "rate=30r/m burst=20 delay=8"}: space-separated,
     * {@code rate=} required, {@code burst=} default 0, at most one of {@code nodelay}/{@code delay=N};
     * other words (zone names, keys) are rejected. Configuration time only.
     *
     * @param parameters the parameters.
     * @return the translation.
     * @throws IllegalArgumentException naming the bad parameter.
     */
    public static NginxLimitReq parse(final CharSequence parameters)
    {
        Range.requireNonNull("parameters", parameters);
        long rate = -1;
        RateUnit unit = RateUnit.PER_SECOND;
        long burst = 0;
        ShaperMode delay = null;
        for (final String word : parameters.toString().trim().split("\\s+"))
        {
            if (word.startsWith("rate="))
            {
                final String value = word.substring("rate=".length());
                if (value.endsWith("r/s"))
                {
                    unit = RateUnit.PER_SECOND;
                }
                else if (value.endsWith("r/m"))
                {
                    unit = RateUnit.PER_MINUTE;
                }
                else
                {
                    throw new IllegalArgumentException("rate must end in r/s or r/m but was " + value);
                }
                rate = number("rate", value.substring(0, value.length() - 3));
            }
            else if (word.startsWith("burst="))
            {
                burst = number("burst", word.substring("burst=".length()));
            }
            else if ("nodelay".equals(word) || word.startsWith("delay="))
            {
                if (null != delay)
                {
                    throw new IllegalArgumentException("at most one of nodelay and delay=N may be given");
                }
                delay = "nodelay".equals(word) ?
                    ShaperMode.nodelay() : ShaperMode.delay(number("delay", word.substring("delay=".length())));
            }
            else
            {
                throw new IllegalArgumentException("unknown limit_req parameter: " + word);
            }
        }
        if (rate < 0)
        {
            throw new IllegalArgumentException("rate must be given, e.g. rate=10r/s");
        }
        return limitReq(rate, unit, burst, null == delay ? ShaperMode.delay() : delay);
    }

    private static long number(final String field, final String digits)
    {
        try
        {
            final long value = Long.parseLong(digits);
            if (value >= 0)
            {
                return value;
            }
        }
        catch (final NumberFormatException ex)
        {
            // reported below, with the field name
        }
        throw new IllegalArgumentException(field + " must be a non-negative integer but was " + digits);
    }
}
