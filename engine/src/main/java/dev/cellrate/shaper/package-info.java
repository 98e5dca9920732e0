/**
 * Shapers: fronts that answer when a request may go ({@link dev.cellrate.shaper.Shaper}, {@link
 * dev.cellrate.shaper.KeyedShaper}), their loop ({@code AtomicShaper}, package-private; the decision is
 * {@link dev.cellrate.gcra.ShaperMath}, not exported), values ({@link dev.cellrate.shaper.ShaperMode}, {@link
 * dev.cellrate.shaper.Reservation}) and the release runtime ({@link dev.cellrate.shaper.ReleaseAgent}, {@link
 * dev.cellrate.shaper.ReleaseRunner}; its queues are JCTools' atomic variants).
 * <p>
 * Memory ordering: the engine convention of {@link dev.cellrate} (package documentation).
 */
package dev.cellrate.shaper;
