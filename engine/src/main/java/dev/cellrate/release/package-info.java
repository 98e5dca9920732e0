/**
 * The release runtime: producers hand their own objects to one agent ({@link dev.cellrate.release.ReleaseAgent},
 * run by a {@link dev.cellrate.release.ReleaseRunner} or the caller's own duty cycle) through a preallocated MPSC
 * queue (JCTools' atomic variants); the agent keeps due items in a preallocated heap and calls a
 * {@link dev.cellrate.release.ReleaseHandler} at their release time. It reserves on any shaper front.
 * <p>
 * Memory ordering: the engine convention of {@link dev.cellrate} (package documentation).
 */
package dev.cellrate.release;
