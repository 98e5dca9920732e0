/**
 * Statistics: per-limiter outcome counters ({@code LimiterStats}), the top-keys sketch ({@code TopKeys}), the
 * sampler of gauges ({@code StatSampler}), and the statistics file they publish ({@code StatLayout} draws it,
 * {@code StatFile} writes it, {@code StatReader} reads it and checks every descriptor it reads). The wrappers
 * that count a front's outcomes are {@link dev.cellrate.observe}.
 * <p>
 * Memory ordering: the engine convention of {@link dev.cellrate} (package documentation); the file's header is
 * published by writing its version last (release) and read first (acquire), as {@code StatLayout} says.
 */
package dev.cellrate.stat;
