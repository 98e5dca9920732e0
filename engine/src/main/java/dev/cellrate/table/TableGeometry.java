package dev.cellrate.table;

import static dev.cellrate.check.Bounds.requireRange;
import static dev.cellrate.table.TableLayout.SHARD_SHIFT;

/**
 * The shape of a {@link SlotTable}, checked once: shards, slots per shard, probe bound and idle grace, and the
 * slot arithmetic every part of the table shares (a key word's shard and home slot, a slot's offset, the probe
 * sequence). Immutable.
 */
final class TableGeometry
{
    /**
     * Slots per bucket: one 64-byte cache line of four 16-byte slots. A key's home is the first slot of a
     * bucket (a multiply-shift of its low 32 bits onto the shard's buckets), and inserts take the first free
     * slot of the line from the key's preferred slot on ({@link #turn}), so a present key is in its home line
     * unless that line was full when it arrived.
     */
    static final int BUCKET_SLOTS = 4;

    /**
     * The lowest of the key word's bits that name its preferred slot in its home line: bits 32 and 33, which
     * neither the home bucket (the low 32 bits) nor the shard (bits {@link TableLayout#SHARD_SHIFT}.., where a
     * classed word keeps its class) uses, so a classed stored word names the same slot as its key word.
     */
    static final int PREFERRED_SHIFT = 32;

    final int shardMask;
    /** The shard bits of a key word: in a classed table's stored words they hold the class. */
    final long classFieldMask;
    final int slotsPerShard;
    final int probeBound;
    /** Buckets per shard ({@code slotsPerShard / BUCKET_SLOTS}, at least 1): the range of the home reduction. */
    final int buckets;
    /** Whether a home bucket lies inside its shard (slotsPerShard &ge; 4): the line scan of a decision. */
    final boolean bucketScan;
    /**
     * Whether probes start at the key's preferred slot ({@link #turn}): the home line lies in the shard and every
     * probe chain covers it whole (probeBound &ge; 4).
     */
    final boolean preferredSlots;
    final int slotsOffset;
    final long idleGraceNs;

    /**
     * @param shardCount    shards, a power of two in [1, 2<sup>16</sup>].
     * @param slotsPerShard slots per shard, any count &ge; 1; total slots at most {@link TableLayout#MAX_SLOTS}.
     * @param probeBound    most slots probed per lookup or insert, in [1, slotsPerShard].
     * @param idleGraceNs   a cell with TAT &le; now - idleGraceNs is idle, in [1, 2<sup>62</sup>].
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    TableGeometry(final int shardCount, final int slotsPerShard, final int probeBound, final long idleGraceNs)
    {
        requireRange("shardCount", shardCount, 1, TableLayout.MAX_SHARDS);
        if (Integer.bitCount(shardCount) != 1)
        {
            throw new IllegalArgumentException(
                "shardCount must be a power of two in [1, " + TableLayout.MAX_SHARDS + "] but was " + shardCount);
        }
        requireRange("slotsPerShard", slotsPerShard, 1, TableLayout.MAX_SLOTS / shardCount);
        requireRange("probeBound", probeBound, 1, slotsPerShard);
        requireRange("idleGraceNs", idleGraceNs, 1, 1L << 62);
        this.shardMask = shardCount - 1;
        this.classFieldMask = (long)shardMask << SHARD_SHIFT;
        this.slotsPerShard = slotsPerShard;
        this.probeBound = probeBound;
        this.buckets = Math.max(1, slotsPerShard / BUCKET_SLOTS);
        this.bucketScan = slotsPerShard >= BUCKET_SLOTS;
        this.preferredSlots = bucketScan && probeBound >= BUCKET_SLOTS;
        this.slotsOffset = TableLayout.slotsOffset(shardCount);
        this.idleGraceNs = idleGraceNs;
    }

    int shardCount()
    {
        return shardMask + 1;
    }

    int slotCount()
    {
        return slotsPerShard * (shardMask + 1);
    }

    /** @return the table's buffer length in bytes ({@link TableLayout#length}). */
    int length()
    {
        return TableLayout.length(shardCount(), slotCount());
    }

    int shardOf(final long keyWord)
    {
        return (int)(keyWord >>> SHARD_SHIFT) & shardMask;
    }

    /** The key's home slot in its shard: the first slot of its bucket (see {@link #BUCKET_SLOTS}). */
    int home(final long keyWord)
    {
        return TableLayout.homeIndex(keyWord, buckets) * BUCKET_SLOTS;
    }

    int slotOffset(final int shard, final int index)
    {
        return TableLayout.slotOffset(slotsOffset, slotsPerShard, shard, index);
    }

    /**
     * The probe sequence of a lookup: linear from the home slot, wrapping inside the shard. It differs from an
     * insert's ({@link #probeSlot(int, int, int, int)}) only in the order of the home line, which a lookup reads
     * whole.
     *
     * @param probe in [0, probeBound).
     * @return the offset of the probe-th slot from {@code home} in {@code shard}.
     */
    int probeSlot(final int shard, final int home, final int probe)
    {
        return slotOffset(shard, wrap(home + probe));
    }

    /**
     * The key's preferred slot in its home line, from two bits of its word that place nothing else
     * ({@link #PREFERRED_SHIFT}): the first slot every probe of the key looks at. Its address depends on the key
     * alone, so a decision's first compare and, for the keys that sit there, its CAS need nothing from memory
     * to be addressed. 0 (the line's first slot) where the home line is not probed whole.
     *
     * @return the preferred slot's position in the home line, in [0, {@link #BUCKET_SLOTS}).
     */
    int turn(final long keyWord)
    {
        return preferredSlots ? (int)(keyWord >>> PREFERRED_SHIFT) & (BUCKET_SLOTS - 1) : 0;
    }

    /**
     * The probe sequence of an insert: the home line's slots from the key's preferred one on ({@link #turn},
     * wrapping inside the line), then linear from the line after it, wrapping inside the shard. A lookup reads the
     * whole home line before it takes an EMPTY slot there as the end of the chain ({@link SlotIndex#find}), so a
     * key any order of the home line put there is found (an engine whose probe ends at the first EMPTY slot would
     * miss it: a mapped table file's layout version names this order).
     *
     * @param turn  {@link #turn} of the key.
     * @param probe in [0, probeBound).
     * @return the offset of the probe-th slot from {@code home} in {@code shard}.
     */
    int probeSlot(final int shard, final int home, final int turn, final int probe)
    {
        final int index = probe < BUCKET_SLOTS ? home + ((probe + turn) & (BUCKET_SLOTS - 1)) : home + probe;
        return slotOffset(shard, wrap(index));
    }

    /**
     * The end of a probe chain, for lookups and inserts alike: an EMPTY slot ends it only once the whole home line
     * is read, as a key sits anywhere in its home line, whatever order of the line placed it, and beyond the line
     * only if the line was full, hence held no EMPTY slot (slots never return to EMPTY), when it came.
     *
     * @param emptySeen whether the probes so far met an EMPTY slot.
     * @param probe     the probe just read, in [0, probeBound).
     * @return whether the key cannot be further on.
     */
    static boolean chainEnds(final boolean emptySeen, final int probe)
    {
        return emptySeen && probe >= BUCKET_SLOTS - 1;
    }

    /** @return a slot index in [0, 2 * slotsPerShard) (a cursor plus one) back into the shard. */
    int wrap(final int index)
    {
        return index >= slotsPerShard ? index - slotsPerShard : index;
    }

    /** @return the index in [0, slotCount) of the slot at {@code slot} (its key word's offset). */
    int slotIndex(final int slot)
    {
        return (slot - slotsOffset) / TableLayout.SLOT_LENGTH;
    }

    /**
     * @param evictionNs the time eviction may use (already bounded by the table's clock).
     * @return the newest TAT that counts as idle: {@code evictionNs - grace}, saturated.
     */
    long idleBeforeNs(final long evictionNs)
    {
        return Math.max(evictionNs, Long.MIN_VALUE + idleGraceNs) - idleGraceNs;
    }
}
