/**
 * Fronts whose limit can be replaced at run time without a stop ({@code ReconfigurableRateLimiter},
 * {@code ReconfigurablePayLaterRateLimiter}, {@code ReconfigurableShaper}; the keyed one, for every key of a
 * table at once, is {@link dev.cellrate.ReconfigurableKeyedRateLimiter}); each implements the front contract of {@link dev.cellrate} and keeps
 * its cells' TATs across a change (see {@code docs/operating.md}). Per-class limits of a keyed table:
 * {@link dev.cellrate.ClassedKeyedRateLimiter#setLimit(int, dev.cellrate.Limit)}.
 * <p>
 * Memory ordering: the engine convention of {@link dev.cellrate} (package documentation); the settings are one
 * immutable object published by a volatile store and read once per decision.
 */
package dev.cellrate.reconfigure;

