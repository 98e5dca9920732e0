/**
 * Observation wrappers: any front, enforced or in dry-run, with its outcomes counted in a
 * {@link dev.cellrate.stat.LimiterStats} ({@code ObservedLimiter}, {@code ObservedKeyedLimiter},
 * {@code ObservedReserver}, {@code ObservedKeyedReserver}, {@code ObservedConcurrencyLimiter},
 * {@code ObservedMarker}) and a candidate limit run beside the enforced one ({@code ShadowLimiter}). A dry-run
 * pass answers what a pass answers on that front. The counters and their file are {@link dev.cellrate.stat}.
 */
package dev.cellrate.observe;
