/**
 * Guava's warm-up limiter (front {@link dev.cellrate.warmup.WarmingUpRateLimiter}, decision {@link
 * dev.cellrate.warmup.WarmupMath}, package-private); two state words and the rate under the engine's
 * {@code lock.SeqLock}.
 * <p>
 * Memory ordering: the engine convention of {@link dev.cellrate} (package documentation).
 */
package dev.cellrate.warmup;
