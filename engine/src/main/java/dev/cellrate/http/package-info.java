/**
 * HTTP rate-limit field values ({@link dev.cellrate.http.RateLimitFields}: {@code Retry-After} rounded up,
 * the IETF {@code RateLimit-Policy} / {@code RateLimit} Structured-Field Lists, the legacy
 * {@code X-RateLimit-*}) written as ASCII into a caller's {@code byte[]} or Agrona buffer from a
 * {@link dev.cellrate.Decision} and a {@link dev.cellrate.Limit}, allocation-free; no HTTP framework types.
 * <p>
 * Immutable formatters; no shared mutable state.
 */
package dev.cellrate.http;
