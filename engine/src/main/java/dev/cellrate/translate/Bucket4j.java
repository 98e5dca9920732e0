package dev.cellrate.translate;

import dev.cellrate.Limit;

import java.util.concurrent.TimeUnit;

/**
 * Translator for a Bucket4j bandwidth {@code capacity(b).refillGreedy(tokens, period)} (8.x) that starts
 * full (the default initial tokens).
 * <p>
 * Greedy refill adds tokens continuously ({@code tokens/period} per ns, carried exactly by Bucket4j's
 * remainder arithmetic) up to the capacity, and {@code tryConsume(n)} takes n tokens iff at least n are
 * there: a token bucket of capacity b, i.e. GCRA(T, (b-1)T) with {@code T = period / tokens}.
 * {@code refillIntervally} adds whole batches at period boundaries and is not a GCRA; it has no
 * translation here.
 * <p>
 * Rounding: {@code T = ceil(period_ns / tokens)}; identical decisions when {@code tokens} divides the
 * period in ns (otherwise the translated limit is slower by under 1 ns per permit).
 */
public final class Bucket4j
{
    private Bucket4j()
    {
    }

    /**
     * @param capacity     {@code capacity}, &ge; 1 (the burst b).
     * @param refillTokens tokens added per period, in [1, period in ns].
     * @param refillPeriod the period, &ge; 1 ns once converted, at most 2<sup>62</sup> ns.
     * @param unit         unit of {@code refillPeriod}.
     * @return GCRA(T, (capacity - 1) T).
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public static Limit greedy(
        final long capacity, final long refillTokens, final long refillPeriod, final TimeUnit unit)
    {
        return Range.tokenBucket("capacity", capacity, "refillTokens", refillTokens, "refillPeriod", refillPeriod,
            unit);
    }

    /**
     * The common {@code Bandwidth.simple(capacity, period)} shape: refill {@code capacity} tokens per period.
     *
     * @param capacity the capacity and the tokens per period, &ge; 1.
     * @param period   the period.
     * @param unit     unit of {@code period}.
     * @return GCRA(period / capacity, (capacity - 1) T).
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public static Limit simple(final long capacity, final long period, final TimeUnit unit)
    {
        return greedy(capacity, capacity, period, unit);
    }
}
