/**
 * GCRA itself: the decision ({@link dev.cellrate.gcra.Gcra}, pure functions), the one cell loop ({@link
 * dev.cellrate.gcra.AtomicGcra}), the shaping step after an admission ({@link dev.cellrate.gcra.ShaperMath},
 * decision) and the exact undo of a charge ({@link dev.cellrate.gcra.Refund}, loop). Not exported by the
 * module.
 * <p>
 * Memory ordering: the engine convention of {@link dev.cellrate} (package documentation).
 */
package dev.cellrate.gcra;
