/**
 * Single-cell shapers: fronts that answer when a request may go ({@link dev.cellrate.shaper.Shaper}, the
 * reservation front {@link dev.cellrate.shaper.ReservingLimiter}), their loop ({@code AtomicShaper},
 * package-private; the decision is {@code gcra.ShaperMath}, not exported) and the release modes
 * ({@link dev.cellrate.ShaperMode}). The keyed shaper is {@link dev.cellrate.KeyedShaper}; the runtime that
 * releases items at their time is {@link dev.cellrate.release}.
 * <p>
 * Memory ordering: the engine convention of {@link dev.cellrate} (package documentation).
 */
package dev.cellrate.shaper;

import dev.cellrate.ShaperMode;