/**
 * The API of cellrate: the front contracts ({@link dev.cellrate.Limiter}, {@link dev.cellrate.DebitLimiter},
 * {@link dev.cellrate.KeyedLimiter}, {@link dev.cellrate.Reserver}, {@link dev.cellrate.KeyedReserver},
 * {@link dev.cellrate.Marker}), the single-cell and keyed GCRA fronts, the values ({@link dev.cellrate.Limit},
 * {@link dev.cellrate.Decision}, {@link dev.cellrate.Result}) and the cell layout ({@link dev.cellrate.layout.CellArray}).
 * <p>
 * Layers, named the same way in every package: a <b>front</b> is what applications call ({@code XLimiter},
 * {@code XMarker}, {@code Shaper}); a <b>decision</b> class holds the pure arithmetic of one algorithm as static
 * functions over {@code long}s ({@code Gcra}, {@code FixedWindow}, {@code SlidingCounter}, {@code WarmupMath},
 * {@code SrTcmRules}, ...); a <b>loop</b> applies a decision to memory atomically ({@code AtomicGcra},
 * {@code AtomicShaper}, {@code SeqLock}); a <b>layout</b> names the offsets of an off-heap structure
 * ({@code CellLayout}, {@code TableLayout}; {@code CellArray} allocates cells in {@code CellLayout}'s layout). Only fronts, contracts and values are exported by the module.
 * <p>
 * <b>Memory-ordering convention</b> (the one convention of the engine; each package's documentation only
 * says which words it applies to): all shared state lives in Agrona {@code AtomicBuffer}s. A word that
 * decides is read with {@code getLongAcquire} (or {@code getLongVolatile}) and written only by a volatile CAS
 * ({@code compareAndExchangeLong} / {@code compareAndSetLong}) or, by the single holder of a lock, with
 * {@code putLongRelease}; the release half of each write pairs with the acquire read of the next reader of the
 * same word. Multi-word state is published under {@link dev.cellrate.lock.SeqLock}: an even stamp read with
 * acquire, data read, stamp re-validated; the writer CASes the stamp odd, writes with release, and releases
 * the next even stamp. Plain {@code getLong}/{@code putLong} appear only in single-threaded fronts. A
 * rejection never writes.
 */
package dev.cellrate;

import dev.cellrate.layout.CellArray;