package dev.cellrate.table;

import dev.cellrate.layout.CellArray;
import dev.cellrate.layout.CellLayout;

import org.agrona.BitUtil;

import static org.agrona.BitUtil.SIZE_OF_LONG;

/**
 * Off-heap layout of a {@link SlotTable}: one direct buffer, three regions, every offset named here.
 * <pre>
 *  region            offset                                   length
 *  +--------------------------------------+  0
 *  | dedicated cells: EMPTY_KEY word,     |  RESERVED_CELLS_OFFSET    3 * CELL_LENGTH
 *  | TOMBSTONE_KEY word, overflow cell    |
 *  +--------------------------------------+  SHARD_HEADERS_OFFSET
 *  | shard header 0 .. shardCount-1       |                           shardCount * SHARD_HEADER_LENGTH
 *  +--------------------------------------+  slotsOffset(shardCount)
 *  | shard 0 slots | shard 1 slots | ...  |                           slotCount * SLOT_LENGTH
 *  +--------------------------------------+
 *
 *  dedicated cell: a TAT cell of CellLayout (CELL_LENGTH bytes, TAT alone on its cache-line pair), the
 *  buffer CELL_ALIGNMENT-aligned
 *
 *  shard header (SHARD_HEADER_LENGTH = CELL_LENGTH bytes; lock-guarded words on the first line, atomic
 *  counters on the second)
 *  +---------------------------------------------------------------+
 *  |                  insert lock (0 free, 1 held)                  |  LOCK_OFFSET
 *  +---------------------------------------------------------------+
 *  |                 live keys (slots holding a key)               |  LIVE_KEYS_OFFSET
 *  +---------------------------------------------------------------+
 *  |               evictions (idle keys reclaimed)                 |  EVICTIONS_OFFSET
 *  +---------------------------------------------------------------+
 *  |              sweep cursor (slot index in shard)               |  SWEEP_CURSOR_OFFSET
 *  +---------------------------------------------------------------+
 *  |   reclaim floor (newest idle-before a reclaim here used)      |  RECLAIM_FLOOR_OFFSET
 *  +---------------------------------------------------------------+
 *  |                  padding to byte 64                           |
 *  +---------------------------------------------------------------+
 *  |                  table-full events                            |  TABLE_FULL_OFFSET
 *  +---------------------------------------------------------------+
 *  |                  CAS retries                                  |  CAS_RETRIES_OFFSET
 *  +---------------------------------------------------------------+
 *  |                  padding to SHARD_HEADER_LENGTH                |
 *  +---------------------------------------------------------------+
 *
 *  slot (16 B, 16-aligned, so never split across cache lines)
 *  +---------------------------------------------------------------+
 *  |   key word: EMPTY_KEY, TOMBSTONE_KEY or a mixed/hashed key    |  KEY_OFFSET
 *  +---------------------------------------------------------------+
 *  |   TAT (ns): RECLAIMING, or a TAT >= FRESH_SLOT_TAT_NS          |  TAT_OFFSET
 *  +---------------------------------------------------------------+
 * </pre>
 * Slot {@code i} of shard {@code s} is at {@code slotsOffset(shardCount) + (s * slotsPerShard + i) * SLOT_LENGTH}.
 */
public final class TableLayout
{
    /** Offset of the dedicated cells region. */
    public static final int RESERVED_CELLS_OFFSET = 0;

    /** Cell of the one key whose word is {@link #EMPTY_KEY}. */
    public static final int EMPTY_KEY_CELL_OFFSET = RESERVED_CELLS_OFFSET;

    /** Cell of the one key whose word is {@link #TOMBSTONE_KEY}. */
    public static final int TOMBSTONE_KEY_CELL_OFFSET = EMPTY_KEY_CELL_OFFSET + CellLayout.CELL_LENGTH;

    /** The shared overflow cell (table-full policy {@code OVERFLOW}). */
    public static final int OVERFLOW_CELL_OFFSET = TOMBSTONE_KEY_CELL_OFFSET + CellLayout.CELL_LENGTH;

    /** Offset of the first shard header. */
    public static final int SHARD_HEADERS_OFFSET = OVERFLOW_CELL_OFFSET + CellLayout.CELL_LENGTH;

    /**
     * Offset of the insert lock in a shard header: 0, so the table's code addresses the lock word by the header's
     * offset itself (no {@code + LOCK_OFFSET}); a layout that moves it must change that code.
     */
    public static final int LOCK_OFFSET = 0;

    /** Offset of the live-key count (written under the lock). */
    public static final int LIVE_KEYS_OFFSET = LOCK_OFFSET + SIZE_OF_LONG;

    /** Offset of the eviction count (written under the lock). */
    public static final int EVICTIONS_OFFSET = LIVE_KEYS_OFFSET + SIZE_OF_LONG;

    /** Offset of the sweep cursor (written under the lock). */
    public static final int SWEEP_CURSOR_OFFSET = EVICTIONS_OFFSET + SIZE_OF_LONG;

    /**
     * Offset of the reclaim floor (under the lock): the newest idle-before time any reclaim of a slot of this
     * shard used, so every word an earlier key of any slot here held is at or below it
     * ({@link #NO_HIGH_WATER_NS} until the first reclaim). A bounded refund never lowers a word to it or below.
     */
    public static final int RECLAIM_FLOOR_OFFSET = SWEEP_CURSOR_OFFSET + SIZE_OF_LONG;

    /** Offset of the table-full count (atomic add), on the header's second cache line. */
    public static final int TABLE_FULL_OFFSET = BitUtil.CACHE_LINE_LENGTH;

    /** Offset of the CAS-retry count (atomic add). */
    public static final int CAS_RETRIES_OFFSET = TABLE_FULL_OFFSET + SIZE_OF_LONG;

    /** Bytes per shard header: one padded cell. */
    public static final int SHARD_HEADER_LENGTH = CellLayout.CELL_LENGTH;

    /**
     * Offset of the key word in a slot: 0, so the table's code addresses a slot's key word by the slot's offset
     * (or address) itself (no {@code + KEY_OFFSET}); a layout that moves it must change that code.
     */
    public static final int KEY_OFFSET = 0;

    /** Offset of the TAT word in a slot. */
    public static final int TAT_OFFSET = KEY_OFFSET + SIZE_OF_LONG;

    /** Bytes per slot. */
    public static final int SLOT_LENGTH = TAT_OFFSET + SIZE_OF_LONG;

    /** Key word of a never-used slot (memory starts zeroed). No real key is stored under it in a slot. */
    public static final long EMPTY_KEY = 0;

    /** Key word of a slot whose idle key was swept; lookups pass over it, inserts may take it. */
    public static final long TOMBSTONE_KEY = -1;

    /**
     * Slot TAT word while the slot is being reclaimed under the shard lock (a stored value); never a real TAT.
     * Loads that meet it answer {@code SlotTable.STALE}.
     */
    public static final long RECLAIMING = Long.MIN_VALUE;

    /**
     * TAT word of a never-used slot (and of a fresh dedicated key cell): the lowest value other than {@link #RECLAIMING}, a full bucket. Not
     * {@link CellArray#FRESH_TAT_NS} (which is {@code RECLAIMING}'s value): the slot loop reads it as
     * {@code CellArray.FRESH_TAT_NS} when that matters (a charge at {@code nowNs = Long.MIN_VALUE}).
     */
    public static final long FRESH_SLOT_TAT_NS = Long.MIN_VALUE + 1;

    /**
     * A slot's high-water mark (kept beside the table, 8 bytes a slot, from the first refund on) before any
     * refund lowered its word: below every TAT, so it never holds a reclaim back.
     */
    public static final long NO_HIGH_WATER_NS = Long.MIN_VALUE;

    /** Largest shard count. */
    public static final int MAX_SHARDS = 1 << 16;

    /**
     * Largest total slot count: the whole buffer (headers of {@link #MAX_SHARDS} shards, the slots and the
     * alignment slack) must be indexable by an {@code int}. 133,693,407 slots: 100 M keys at the designed 75%.
     */
    public static final int MAX_SLOTS =
        (Integer.MAX_VALUE - CellLayout.CELL_ALIGNMENT - (SHARD_HEADERS_OFFSET + MAX_SHARDS * SHARD_HEADER_LENGTH)) / SLOT_LENGTH;

    /**
     * The shard is taken from the key word's bits from here up; the home slot from its low 32 bits; the preferred
     * slot in the home line from bits 32-33 ({@code TableGeometry.PREFERRED_SHIFT}).
     */
    public static final int SHARD_SHIFT = 38;

    private TableLayout()
    {
    }

    /**
     * @param shard shard index.
     * @return offset of that shard's header.
     */
    public static int shardHeaderOffset(final int shard)
    {
        return SHARD_HEADERS_OFFSET + shard * SHARD_HEADER_LENGTH;
    }

    /**
     * @param slotsOffset       {@link #slotsOffset(int)} of the table.
     * @param slotsPerShard     slots per shard.
     * @param shard             shard index.
     * @param index             slot index inside the shard.
     * @return offset of that slot (its key word).
     */
    public static int slotOffset(final int slotsOffset, final int slotsPerShard, final int shard, final int index)
    {
        return slotsOffset + (shard * slotsPerShard + index) * SLOT_LENGTH;
    }

    /**
     * The home slot of a key word inside its shard: Lemire's multiply-shift range reduction of the word's low
     * 32 bits, {@code floor(low32 * slotsPerShard / 2^32)}, uniform for any slot count (not only powers of
     * two), so a table can be sized to the expected key count. The shard comes from bits {@link #SHARD_SHIFT}..,
     * disjoint from these.
     *
     * @param keyWord       the key word.
     * @param slotsPerShard slots per shard, in [1, 2<sup>31</sup>).
     * @return the home slot index, in [0, slotsPerShard).
     */
    public static int homeIndex(final long keyWord, final int slotsPerShard)
    {
        return (int)(((keyWord & 0xFFFF_FFFFL) * slotsPerShard) >>> 32);
    }

    /**
     * @param shardCount number of shards.
     * @return offset of the first slot.
     */
    public static int slotsOffset(final int shardCount)
    {
        return SHARD_HEADERS_OFFSET + shardCount * SHARD_HEADER_LENGTH;
    }

    /**
     * @param shardCount number of shards.
     * @param slotCount  total slots.
     * @return total buffer length in bytes.
     */
    public static int length(final int shardCount, final int slotCount)
    {
        return slotsOffset(shardCount) + slotCount * SLOT_LENGTH;
    }
}
