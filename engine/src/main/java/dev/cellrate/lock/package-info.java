/**
 * The seqlock over one stamp word ({@link dev.cellrate.lock.SeqLock}, layer: loop) used by every multi-word front.
 * Not exported by the module.
 * <p>
 * Memory ordering: the engine convention of {@link dev.cellrate} (package documentation).
 */
package dev.cellrate.lock;
