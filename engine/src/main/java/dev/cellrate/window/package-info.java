/**
 * Window limiters: fixed window, sliding counter, sliding log (fronts {@code *Limiter}, layer front; decisions
 * {@code FixedWindow}, {@code SlidingCounter}, {@code SlidingLog}, layer decision, package-private). One CAS
 * word each, the log under a seqlock. Every front is a {@link dev.cellrate.DebitLimiter}.
 * <p>
 * Memory ordering: the engine convention of {@link dev.cellrate} (package documentation).
 */
package dev.cellrate.window;
