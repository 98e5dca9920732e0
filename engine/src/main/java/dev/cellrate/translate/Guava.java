package dev.cellrate.translate;

import dev.cellrate.Limit;

import java.math.BigInteger;
import java.util.concurrent.TimeUnit;

/**
 * Translator for Guava's {@code RateLimiter.create(permitsPerSecond)} ({@code SmoothBursty}, 33.x).
 * <p>
 * With {@code T = 1/r}, {@code M = r} stored permits at most (one second's worth) and
 * {@code TAT = nextFreeTicket + (M - storedPermits) T}, Guava's state machine is GCRA(T, M&middot;T): from a
 * full store it admits M + 1 single permits at once (so {@code create(10)} lets 11 through). See
 * {@link GuavaBursty} for its empty start and pay-later rule, and {@code dev.cellrate.warmup} for
 * {@code create(r, warmup)}.
 * <p>
 * Rounding: Guava works in microseconds with a floating-point interval. {@code T = ceil(period_ns / permits)};
 * it is exact (and decisions match Guava's) when permits divides the period in ns, e.g. integer rates that
 * divide 10<sup>9</sup>; otherwise T is up to 1 ns slower and &tau; = {@code ceil(M * T)} keeps M + 1 at once.
 * Fractional rates are given as a ratio: {@code create(1, 2, SECONDS)} is Guava's {@code create(0.5)}.
 */
public final class Guava
{
    private static final BigInteger NANOS_PER_SECOND = BigInteger.valueOf(1_000_000_000L);

    private Guava()
    {
    }

    /**
     * {@code RateLimiter.create(permitsPerSecond)}.
     *
     * @param permitsPerSecond r, in [1, 10<sup>9</sup>].
     * @return the translation.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public static GuavaBursty create(final long permitsPerSecond)
    {
        Range.require("permitsPerSecond", permitsPerSecond, 1, 1_000_000_000L);
        return create(permitsPerSecond, 1, TimeUnit.SECONDS);
    }

    /**
     * {@code RateLimiter.create(permits / period)} for a rational rate.
     *
     * @param permits permits per period, in [1, period in ns].
     * @param period  the period, &ge; 1 ns once converted, at most 2<sup>61</sup> ns.
     * @param unit    unit of {@code period}.
     * @return the translation.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public static GuavaBursty create(final long permits, final long period, final TimeUnit unit)
    {
        Range.requireNonNull("unit", unit);
        Range.require("period", period, 1, Long.MAX_VALUE);
        final long periodNs = Range.require("period (in ns)", unit.toNanos(period), 1, Limit.MAX_CEILING_NS / 2);
        Range.require("permits", permits, 1, periodNs);
        final long emissionIntervalNs = Range.ceilDiv(periodNs, permits);
        // tau = M * T with M = permits * 1 s / period, rounded up so M + 1 permits still pass from idle.
        final BigInteger[] quotient = BigInteger.valueOf(permits)
            .multiply(NANOS_PER_SECOND)
            .multiply(BigInteger.valueOf(emissionIntervalNs))
            .divideAndRemainder(BigInteger.valueOf(periodNs));
        // tau + T always fits: n * T < P + n <= 2P, so tau <= 2 * 10^9, and T <= P <= 2^61.
        final BigInteger toleranceNs = quotient[1].signum() != 0 ? quotient[0].add(BigInteger.ONE) : quotient[0];
        return new GuavaBursty(Limit.ofGcra(emissionIntervalNs, toleranceNs.longValueExact()));
    }
}
