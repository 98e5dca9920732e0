package dev.cellrate.translate;

import dev.cellrate.Limit;

import java.util.concurrent.TimeUnit;

/**
 * Translator for Envoy's {@code token_bucket {max_tokens, tokens_per_fill, fill_interval}} as used by
 * {@code envoy.filters.http.local_ratelimit} with the default {@code AtomicTokenBucketImpl} (v1.32).
 * <p>
 * That bucket stores one time stamp {@code time} and derives the tokens as
 * {@code min(M, (now - time) * r)} with {@code r = tokens_per_fill / fill_interval}; taking n tokens sets
 * {@code time = now - (tokens - n) / r}. With {@code TAT = time + M/r} this is GCRA(1/r, (M-1)/r): the
 * {@code max_tokens} M is the burst b itself (no off-by-one), and the bucket starts full.
 * <p>
 * Rounding: {@code T = ceil(fill_interval_ns / tokens_per_fill)}; decisions are identical to Envoy's exact
 * (rational) semantics when {@code tokens_per_fill} divides the interval in ns. Envoy's own floating-point
 * state can differ at exact boundaries (see {@code docs/translations.md}). The older timer-based bucket
 * (runtime guard off) refills in steps and is not a GCRA.
 */
public final class Envoy
{
    private Envoy()
    {
    }

    /**
     * @param maxTokens     {@code max_tokens}, &ge; 1 (the burst b).
     * @param tokensPerFill {@code tokens_per_fill}, in [1, fill interval in ns].
     * @param fillInterval  {@code fill_interval}, &ge; 1 ns once converted, at most 2<sup>62</sup> ns.
     * @param unit          unit of {@code fillInterval}.
     * @return GCRA(T, (max_tokens - 1) T).
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public static Limit tokenBucket(
        final long maxTokens, final long tokensPerFill, final long fillInterval, final TimeUnit unit)
    {
        return Range.tokenBucket("max_tokens", maxTokens, "tokens_per_fill", tokensPerFill, "fill_interval",
            fillInterval, unit);
    }
}
