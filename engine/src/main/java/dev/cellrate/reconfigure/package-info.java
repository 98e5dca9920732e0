/**
 * Fronts whose limit can be replaced at run time without a stop ({@code ReconfigurableRateLimiter},
 * {@code ReconfigurablePayLaterRateLimiter}, {@code ReconfigurableShaper}); each implements the front contract
 * of {@link dev.cellrate} and keeps its cell's TAT across a change (see {@code docs/operating.md}).
 * <p>
 * Memory ordering: the engine convention of {@link dev.cellrate} (package documentation); the settings are one
 * immutable object published by a volatile store and read once per decision.
 */
package dev.cellrate.reconfigure;
