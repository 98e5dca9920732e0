package dev.cellrate.translate;

import dev.cellrate.check.Bounds;
import dev.cellrate.Limit;

import java.util.concurrent.TimeUnit;

/**
 * Construction-time validation shared by the translators: the message names the field and its allowed
 * range, in the shape of {@code dev.cellrate.Limit}'s checks.
 */
final class Range
{
    private Range()
    {
    }

    static long require(final String field, final long value, final long min, final long max)
    {
        return Bounds.requireRange(field, value, min, max);
    }

    static void requireNonNull(final String field, final Object value)
    {
        Bounds.requireNonNull(field, value);
    }

    /**
     * A token bucket of capacity b that refills {@code tokens} per {@code period} continuously, as
     * GCRA(T, (b - 1) T) with {@code T = ceil(period_ns / tokens)} (Bucket4j's greedy bandwidth, Envoy's token
     * bucket), each field checked under the peer's own name.
     *
     * @param capacityField the peer's name of the capacity.
     * @param capacity      the capacity b, in [1, MAX_CEILING_NS / T].
     * @param tokensField   the peer's name of the tokens per period.
     * @param tokens        tokens per period, in [1, period in ns].
     * @param periodField   the peer's name of the period.
     * @param period        the period, &ge; 1 ns once converted, at most {@link Limit#MAX_CEILING_NS}.
     * @param unit          unit of {@code period}.
     * @return GCRA(T, (capacity - 1) T).
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    static Limit tokenBucket(
        final String capacityField,
        final long capacity,
        final String tokensField,
        final long tokens,
        final String periodField,
        final long period,
        final TimeUnit unit)
    {
        requireNonNull("unit", unit);
        require(periodField, period, 1, Long.MAX_VALUE);
        final long periodNs = require(periodField + " (in ns)", unit.toNanos(period), 1, Limit.MAX_CEILING_NS);
        require(tokensField, tokens, 1, periodNs);
        final long emissionIntervalNs = ceilDiv(periodNs, tokens);
        require(capacityField, capacity, 1, Limit.MAX_CEILING_NS / emissionIntervalNs);
        return Limit.ofGcra(emissionIntervalNs, (capacity - 1) * emissionIntervalNs);
    }

    /**
     * @param dividend &ge; 0.
     * @param divisor  &ge; 1.
     * @return {@code ceil(dividend / divisor)}.
     */
    static long ceilDiv(final long dividend, final long divisor)
    {
        final long quotient = dividend / divisor;
        return dividend % divisor != 0 ? quotient + 1 : quotient;
    }
}
