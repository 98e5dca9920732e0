/**
 * Translators: a peer's configuration (Guava, Bucket4j, Envoy, nginx, redis-cell, x/time/rate) to a {@link
 * dev.cellrate.Limit} or a front. Construction only; no shared state.
 * <p>
 * Memory ordering: the engine convention of {@link dev.cellrate} (package documentation).
 */
package dev.cellrate.translate;
