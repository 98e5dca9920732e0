/**
 * Observation: wrappers that count each front's outcomes by {@link dev.cellrate.Result} code
 * ({@code ObservedLimiter}, {@code ObservedKeyedLimiter}, {@code ShadowLimiter}), the statistics file they
 * publish ({@code StatLayout} draws it, {@code StatFile} writes it, {@code StatReader} reads it) and the
 * top-keys sketch.
 * <p>
 * Memory ordering: the engine convention of {@link dev.cellrate} (package documentation); the file's header is
 * published by writing its version last (release) and read first (acquire), as {@code StatLayout} says.
 */
package dev.cellrate.stat;
