/**
 * Guava's warm-up limiter (front {@link dev.cellrate.warmup.WarmingUpRateLimiter}, decision {@link
 * dev.cellrate.warmup.WarmupMath}); two words under a version lock.
 * <p>
 * Memory ordering: the engine convention of {@link dev.cellrate} (package documentation).
 */
package dev.cellrate.warmup;
