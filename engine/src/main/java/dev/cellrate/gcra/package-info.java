/**
 * GCRA itself: the decision ({@link dev.cellrate.gcra.Gcra}, pure functions) and the one cell loop ({@link
 * dev.cellrate.gcra.AtomicGcra}). Not exported by the module.
 * <p>
 * Memory ordering: the engine convention of {@link dev.cellrate} (package documentation).
 */
package dev.cellrate.gcra;
