package dev.cellrate.table;

import static dev.cellrate.table.TableLayout.CAS_RETRIES_OFFSET;
import static dev.cellrate.table.TableLayout.EVICTIONS_OFFSET;
import static dev.cellrate.table.TableLayout.LIVE_KEYS_OFFSET;
import static dev.cellrate.table.TableLayout.OVERFLOW_CELL_OFFSET;
import static dev.cellrate.table.TableLayout.TABLE_FULL_OFFSET;

import dev.cellrate.layout.CellLayout;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.AtomicBuffer;

/**
 * The read side of a {@link SlotTable}: lookups, validated loads, counters and geometry, all lock-free and
 * allocation-free, none of which changes a word (a decision's CAS goes through {@link SlotIndex}, a key's
 * change through {@link ShardWriter}).
 */
abstract class TableReads extends KeyWords
{
    /** {@link #findSlot} result: the key has no cell. */
    static final int NO_CELL = SlotIndex.NO_CELL;

    final TableGeometry geometry;
    /** The lock-free side: lookups, validated loads, CASes, counters. */
    final SlotIndex index;
    final AtomicBuffer buffer;

    TableReads(final long secret0, final long secret1, final TableGeometry geometry, final AtomicBuffer buffer)
    {
        super(secret0, secret1);
        this.geometry = geometry;
        this.buffer = buffer;
        this.index = new SlotIndex(buffer, geometry);
    }

    /**
     * @return the lock-free side of this table (package only: the slot loop reads and CASes through it).
     */
    SlotIndex index()
    {
        return index;
    }

    /**
     * Find the key's cell without inserting (lock-free).
     *
     * @param keyWord the key word.
     * @return the offset of the cell's TAT word, or {@link #NO_CELL} if the key has no cell.
     */
    int findSlot(final long keyWord)
    {
        return index.find(keyWord, -1L);
    }

    /** Classed tables: {@link #findSlot} whatever the key's class. */
    int findClassedSlot(final long keyWord)
    {
        return index.find(keyWord, index.matchMask(true));
    }

    /**
     * @return how many limit classes a classed front may use on this table: shardCount - 2 (the class is
     * stored as {@code class + 1} in the shard bits, avoiding all-zero and all-one), at most
     * {@link SlotTable#MAX_CLASSES}; 0 below 4 shards.
     */
    public int classCapacity()
    {
        return Math.max(0, Math.min(SlotTable.MAX_CLASSES, geometry.shardMask - 1));
    }

    /**
     * Classed tables, read-only (tests, diagnostics).
     *
     * @param keyWord the key word.
     * @return the class stored with the key's cell, or -1 if the key has no cell.
     */
    public int classOf(final long keyWord)
    {
        final long matchMask = index.matchMask(true);
        final int tatOffset = index.find(keyWord, matchMask);
        // A slot that left the key meanwhile reads EMPTY_KEY, whose class field gives -1.
        return NO_CELL == tatOffset ? -1 : index.classOfStoredWord(index.storedWordAt(tatOffset, keyWord, matchMask));
    }

    /**
     * Classed tables, read-only (tests, diagnostics).
     *
     * @param keyWord the key word.
     * @return the TAT of the key's cell, or {@link SlotTable#STALE} if it has none.
     */
    public long classedTatNs(final long keyWord)
    {
        final long matchMask = index.matchMask(true);
        final int tatOffset = index.find(keyWord, matchMask);
        // A slot that left the key meanwhile reads EMPTY_KEY, which no slot's key word is again: STALE.
        return NO_CELL == tatOffset ? SlotTable.STALE : index.loadTat(tatOffset, index.storedWordAt(tatOffset, keyWord, matchMask));
    }

    /**
     * Bring the key's home slot toward the core without deciding anything: one plain load of the home slot's
     * key word, whose value the caller must consume (fold it into something it keeps) so the compiler keeps
     * the load. Batch callers touch every key of a batch first so the cache misses overlap, then decide
     * (memory-level parallelism); the value read is only a hint and never trusted.
     *
     * @param keyWord the key word.
     * @return the key word held by the home slot (racy, unvalidated).
     */
    public long touch(final long keyWord)
    {
        return UnsafeApi.getLong(null, index.homeLine(keyWord));
    }

    /** @see SlotIndex#loadTat */
    long loadTat(final int tatOffset, final long keyWord)
    {
        return index.loadTat(tatOffset, keyWord);
    }

    /** @see SlotIndex#compareAndExchangeTat */
    long compareAndExchangeTat(final int tatOffset, final long expectedNs, final long nextNs)
    {
        return index.compareAndExchangeTat(tatOffset, expectedNs, nextNs);
    }

    /**
     * The key's TAT, read-only (tests, diagnostics).
     *
     * @param keyWord the key word.
     * @return the TAT of the key's cell, or {@link SlotTable#STALE} if the key has no cell (or it is mid-reclaim).
     */
    public long tatNs(final long keyWord)
    {
        final int tatOffset = findSlot(keyWord);
        return NO_CELL == tatOffset ? SlotTable.STALE : index.loadTat(tatOffset, keyWord);
    }

    /**
     * Placement, read-only (tests, diagnostics).
     *
     * @param keyWord the key word.
     * @return the index of the key's slot in [0, slotCount), -1 if the key has no slot, -2 for the two key
     * words that have dedicated cells.
     */
    public int slotIndexOf(final long keyWord)
    {
        final int tatOffset = findSlot(keyWord);
        return NO_CELL == tatOffset ? -1 : index.slotIndexOf(tatOffset);
    }

    /**
     * @return the TAT of the shared overflow cell.
     */
    public long overflowTatNs()
    {
        return buffer.getLongAcquire(OVERFLOW_CELL_OFFSET + CellLayout.TAT_OFFSET);
    }

    /**
     * @return slots holding a key, summed over shards; idle keys count until swept or reused. Approximate
     * while inserts run; allocation-free, any thread.
     */
    public long liveKeys()
    {
        return index.sumHeaders(LIVE_KEYS_OFFSET);
    }

    /**
     * @return idle keys reclaimed (by inserts or sweeps) since construction.
     */
    public long evictions()
    {
        return index.sumHeaders(EVICTIONS_OFFSET);
    }

    /**
     * @return {@link SlotTable#claimSlot} calls that returned {@link SlotTable#FULL}.
     */
    public long tableFullEvents()
    {
        return index.sumHeaders(TABLE_FULL_OFFSET);
    }

    /**
     * @return failed TAT CASes (contention).
     */
    public long casRetries()
    {
        return index.sumHeaders(CAS_RETRIES_OFFSET);
    }

    /**
     * @return the buffer holding the table (package only: offsets into it are never taken from callers).
     */
    AtomicBuffer buffer()
    {
        return buffer;
    }

    /** @return total slots. */
    public int slotCount()
    {
        return geometry.slotCount();
    }

    /** @return shards. */
    public int shardCount()
    {
        return geometry.shardCount();
    }

    /** @return the probe bound. */
    public int probeBound()
    {
        return geometry.probeBound;
    }

    /** @return the idle grace in ns. */
    public long idleGraceNs()
    {
        return geometry.idleGraceNs;
    }

    /**
     * Diagnostics and tests: how many slots hold this key word (must be 0 or 1). Reads racily.
     *
     * @param keyWord the key word.
     * @return the number of slots whose key word equals it.
     */
    public int countSlots(final long keyWord)
    {
        return index.countSlots(keyWord);
    }
}
