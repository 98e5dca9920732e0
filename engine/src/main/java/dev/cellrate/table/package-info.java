/**
 * The keyed layout: a fixed-capacity, sharded, off-heap table of one-word cells ({@link
 * dev.cellrate.table.TableLayout} draws it, {@link dev.cellrate.table.SlotTable} runs it) and the seeded key
 * words that index it ({@link dev.cellrate.table.KeyHash}).
 * <p>
 * Memory ordering: the engine convention of {@link dev.cellrate}; here, slot words are read with
 * {@code getLongAcquire} and written either by a volatile CAS ({@code compareAndExchangeLong} /
 * {@code compareAndSetLong}) or, by the holder of a shard's insert lock, by {@code putLongRelease}. A release
 * write is paired with the acquire read of the same word by a decider; the order "key released before TAT"
 * on reclaim, "TAT released before key" on a fresh claim, is what lets a decider's
 * TAT-then-key re-read detect that a slot changed owner. Counters in shard headers: {@code putLongRelease}
 * under the lock or {@code getAndAddLong}, read with {@code getLongVolatile}.
 */
package dev.cellrate.table;
