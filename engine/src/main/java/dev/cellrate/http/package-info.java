/**
 * HTTP rate-limit field values written without allocation from a {@link dev.cellrate.Decision}
 * ({@code RateLimitFields}: {@code Retry-After}, {@code RateLimit-Policy}, {@code RateLimit}, the legacy
 * {@code X-RateLimit-*}). Layer: front helper; no shared mutable state.
 * <p>
 * Memory ordering: none needed (immutable after construction); the engine convention is in
 * {@link dev.cellrate}.
 */
package dev.cellrate.http;
