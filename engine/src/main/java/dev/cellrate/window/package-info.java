/**
 * Window limiters: fixed window, sliding counter, sliding log (fronts {@code *Limiter}, decisions {@link
 * dev.cellrate.window.FixedWindow}, {@link dev.cellrate.window.SlidingCounter}, {@link
 * dev.cellrate.window.SlidingLog}). One CAS word each, the log under a seqlock.
 * <p>
 * Memory ordering: the engine convention of {@link dev.cellrate} (package documentation).
 */
package dev.cellrate.window;
