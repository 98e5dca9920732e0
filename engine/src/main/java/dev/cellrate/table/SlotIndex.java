package dev.cellrate.table;

import static dev.cellrate.table.TableLayout.CAS_RETRIES_OFFSET;
import static dev.cellrate.table.TableLayout.EMPTY_KEY;
import static dev.cellrate.table.TableLayout.EMPTY_KEY_CELL_OFFSET;
import static dev.cellrate.table.TableLayout.RECLAIMING;
import static dev.cellrate.table.TableLayout.SHARD_SHIFT;
import static dev.cellrate.table.TableLayout.SLOT_LENGTH;
import static dev.cellrate.table.TableLayout.TAT_OFFSET;
import static dev.cellrate.table.TableLayout.TOMBSTONE_KEY;
import static dev.cellrate.table.TableLayout.TOMBSTONE_KEY_CELL_OFFSET;

import java.nio.ByteBuffer;

import dev.cellrate.layout.CellLayout;
import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The lock-free side of a {@link SlotTable}: finding a key's cell (plain or classed words), the validated load
 * of its TAT, the CAS, and the counters in the shard headers. Nothing here changes a key word (that is
 * {@link ShardWriter}'s, under the shard lock).
 * <p>
 * The decision path reads and CASes raw addresses ({@link #address} is byte 0 of the buffer): every offset it
 * uses comes from this class's own arithmetic, so it skips the buffer's bounds checks, its interface type check
 * and the reload of its fields after every acquire load.
 * <p>
 * Matching a key: a plain table's slot matches when its word equals the key word. A classed table's stored word
 * carries the class in the shard bits ({@link SlotTable}, "Classes"), so its slot matches when the words agree
 * outside those bits ({@link #matchMask} {@code false}) and the stored word is neither EMPTY nor TOMBSTONE.
 */
final class SlotIndex
{
    /** log2 of a bucket's bytes ({@link TableGeometry#BUCKET_SLOTS} slots of {@link TableLayout#SLOT_LENGTH}: 64). */
    private static final int BUCKET_SHIFT = Integer.numberOfTrailingZeros(TableGeometry.BUCKET_SLOTS * SLOT_LENGTH);

    /** A bucket's bytes: one cache line. */
    private static final long LINE_LENGTH = 1L << BUCKET_SHIFT;

    /**
     * The shift that brings a key word's preferred-slot bits ({@link TableGeometry#PREFERRED_SHIFT}) to a byte
     * offset of a slot in its line (a slot is {@link TableLayout#SLOT_LENGTH} bytes).
     */
    private static final int PREFERRED_TO_BYTES =
        TableGeometry.PREFERRED_SHIFT - Integer.numberOfTrailingZeros(SLOT_LENGTH);

    /** The memory of {@link #NO_SLOT}: one slot, kept for the life of the class, never written after this. */
    private static final ByteBuffer NO_SLOT_MEMORY = BufferUtil.allocateDirectAligned(SLOT_LENGTH, SLOT_LENGTH);

    /**
     * What a line scan answers when neither line holds the key: the address of a slot outside every table whose
     * key word is {@link TableLayout#EMPTY_KEY} and whose TAT is {@link TableLayout#RECLAIMING}, never written. A
     * decision on it fails its validation (the TAT test for a plain word, the stored word's for a classed one)
     * and goes the general way, so the decision path needs no test of its own on whether the scan found a slot.
     */
    static final long NO_SLOT;

    static
    {
        final UnsafeBuffer slot = new UnsafeBuffer(NO_SLOT_MEMORY);
        slot.putLong(0, EMPTY_KEY);
        slot.putLongVolatile(TAT_OFFSET, RECLAIMING);
        NO_SLOT = slot.addressOffset();
    }

    /** {@link #find} result: the key has no cell. */
    static final int NO_CELL = -1;

    /** {@link #loadTat} result: the slot left the key or is mid-reclaim ({@link SlotTable#STALE}). */
    static final long STALE = SlotTable.STALE;

    final AtomicBuffer buffer;
    final long address;
    final TableGeometry geometry;
    private final int shardMask;
    private final long classFieldMask;
    private final int slotsPerShard;
    private final int probeBound;
    private final boolean bucketScan;
    private final int slotsOffset;
    /** The address of shard 0's slot 0. */
    private final long slotsAddress;
    /** Bytes from one shard's slots to the next's. */
    private final long shardStrideBytes;
    /** {@link #shardMask} as a long, for the home-line arithmetic. */
    private final long shardMaskLong;
    /** Buckets per shard ({@link TableGeometry#buckets}), as a long. */
    private final long bucketsLong;
    /**
     * The bits of {@code keyWord >>> PREFERRED_TO_BYTES} that give the byte offset of the key's preferred slot
     * in its home line ({@link TableGeometry#turn}), or 0 where probes do not start there.
     */
    private final long preferredBytesMask;

    SlotIndex(final AtomicBuffer buffer, final TableGeometry geometry)
    {
        this.buffer = buffer;
        this.address = buffer.addressOffset();
        this.geometry = geometry;
        this.shardMask = geometry.shardMask;
        this.classFieldMask = geometry.classFieldMask;
        this.slotsPerShard = geometry.slotsPerShard;
        this.probeBound = geometry.probeBound;
        this.bucketScan = geometry.bucketScan;
        this.slotsOffset = geometry.slotsOffset;
        this.slotsAddress = address + geometry.slotsOffset;
        this.shardStrideBytes = (long)geometry.slotsPerShard * SLOT_LENGTH;
        this.shardMaskLong = geometry.shardMask;
        this.bucketsLong = geometry.buckets;
        this.preferredBytesMask = geometry.preferredSlots ? LINE_LENGTH - SLOT_LENGTH : 0;
    }

    /**
     * @param classed whether the table stores classed words.
     * @return the bits a stored word must share with the key word to be the key's: all of them, or all but the
     * shard bits (where a classed word keeps its class).
     */
    long matchMask(final boolean classed)
    {
        return classed ? ~classFieldMask : -1L;
    }

    /**
     * Find the key's cell without inserting (lock-free). A plain key word EMPTY or TOMBSTONE has a dedicated cell
     * in the table header; a classed stored word is never either, so a classed lookup ({@code matchMask != -1})
     * always probes.
     *
     * @param keyWord   the key word.
     * @param matchMask {@link #matchMask} of the table's kind.
     * @return the offset of the cell's TAT word, or {@link #NO_CELL}.
     */
    int find(final long keyWord, final long matchMask)
    {
        if (-1L == matchMask && (keyWord + 1 >>> 1) == 0)
        {
            return (EMPTY_KEY == keyWord ? EMPTY_KEY_CELL_OFFSET : TOMBSTONE_KEY_CELL_OFFSET) + CellLayout.TAT_OFFSET;
        }
        final TableGeometry geometry = this.geometry;
        final int shard = geometry.shardOf(keyWord);
        final int home = geometry.home(keyWord);
        // The home line in slot order, whole (TableGeometry.chainEnds); the decision path's scans try the
        // preferred slot first.
        boolean empty = false;
        for (int probe = 0; probe != probeBound; probe++)
        {
            final int slot = geometry.probeSlot(shard, home, probe);
            final long key = UnsafeApi.getLongAcquire(null, address + slot);
            if (EMPTY_KEY == key)
            {
                empty = true;
            }
            else if (((key ^ keyWord) & matchMask) == 0 && TOMBSTONE_KEY != key)
            {
                return slot + TAT_OFFSET;
            }
            if (TableGeometry.chainEnds(empty, probe))
            {
                return NO_CELL;
            }
        }
        return NO_CELL;
    }

    /**
     * The stored word of the classed cell at {@code tatOffset} (acquire), if it is still the key's under
     * {@code matchMask}: the word with its class. The TAT must then be loaded with {@link #loadTat} against this
     * word, which validates key and class together. Only a classed lookup's cell comes here, never a reserved
     * word's own cell (a classed lookup has none: {@link #find}).
     *
     * @return the stored word, or {@link TableLayout#EMPTY_KEY} if the slot no longer holds the key.
     */
    long storedWordAt(final int tatOffset, final long keyWord, final long matchMask)
    {
        final long key = UnsafeApi.getLongAcquire(null, address + tatOffset - TAT_OFFSET);
        return TOMBSTONE_KEY != key && ((key ^ keyWord) & matchMask) == 0 ? key : EMPTY_KEY;
    }

    /**
     * @param storedWord a classed word returned by {@link #storedWordAt}.
     * @return its class.
     */
    int classOfStoredWord(final long storedWord)
    {
        return (int)((storedWord >>> SHARD_SHIFT) & shardMask) - 1;
    }

    /**
     * @return the address of the key's home slot: the first slot of its bucket, one cache line. The same slot as
     * {@link TableGeometry#shardOf} and {@link TableGeometry#home} give, in long arithmetic from precomputed
     * strides (fewer instructions on the decision path; no int product can overflow, as the table is at most
     * {@link TableLayout#MAX_SLOTS} slots).
     */
    long homeLine(final long keyWord)
    {
        return lineOf(keyWord, homeBucket(keyWord));
    }

    /** @return the key's home bucket in its shard, in [0, buckets). */
    private long homeBucket(final long keyWord)
    {
        return ((keyWord & 0xFFFF_FFFFL) * bucketsLong) >>> 32;
    }

    /** @return the address of bucket {@code bucket} of the key's shard. */
    private long lineOf(final long keyWord, final long bucket)
    {
        return slotsAddress + ((keyWord >>> SHARD_SHIFT) & shardMaskLong) * shardStrideBytes + (bucket << BUCKET_SHIFT);
    }

    /**
     * The decision path's lookup of a present key: the address of the key's slot if it is in its home bucket
     * (the one cache line a decision touches) or in the bucket after it in the shard (where a key goes when its
     * home bucket was full at its insert: most keys past their home line), else {@link #NO_SLOT}, and then the
     * caller goes the general way ({@link #find}: a reserved word, a key further on, an absent key, a shard
     * smaller than a bucket). The four key words of a line are read plain and compared under {@code matchMask},
     * one predicted branch each: the home line's from the key's preferred slot on ({@link TableGeometry#turn}), the
     * order in which inserts fill it, so the first compare's address depends on the key alone; the next line's in
     * slot order, read only if the home line holds no match. A hit is only a
     * candidate until the caller's validated load confirms it; a key word is in at most one slot, and both lines
     * are in the key's shard, so a hit on either line is the key's slot.
     *
     * @param keyWord   the key word.
     * @param matchMask {@link #matchMask} of the table's kind.
     * @return the slot's address (its key word; the TAT is at {@code + TAT_OFFSET}), or {@link #NO_SLOT}.
     */
    long slotIn(final long keyWord, final long matchMask)
    {
        if (!bucketScan || EMPTY_KEY == keyWord || TOMBSTONE_KEY == keyWord)
        {
            return NO_SLOT; // a shard smaller than a bucket, or EMPTY_KEY / TOMBSTONE_KEY (their own cells if plain)
        }
        // One branch per slot: the core predicts which slot holds the key and goes on (into this decision's
        // CAS and the next decision's miss) before the line arrives. Selecting the slot without a branch (an OR
        // of masked addresses) makes every later step wait for all four words; on a table larger than the
        // caches it measured slower in CPU time per decision (tools/lab BucketScanCpuTime, KeyedCpuTime).
        // The home line is compared from the key's preferred slot on, in the order inserts fill it: the first
        // compare's address, and the CAS's for the keys that sit there, come from the key word alone.
        final long bucket = homeBucket(keyWord);
        final long line = lineOf(keyWord, bucket);
        final long slot = slotInLine(line, (keyWord >>> PREFERRED_TO_BYTES) & preferredBytesMask, keyWord, matchMask);
        return NO_SLOT != slot || bucket + 1 == bucketsLong ?
            slot : slotInLine(line + LINE_LENGTH, 0, keyWord, matchMask);
    }

    /**
     * @param turnBytes the first slot compared, as a byte offset in the line; the others follow it, wrapping
     *                  inside the line.
     */
    private static long slotInLine(final long line, final long turnBytes, final long keyWord, final long matchMask)
    {
        final long first = line + turnBytes;
        if (matches(UnsafeApi.getLong(null, first), keyWord, matchMask))
        {
            return first;
        }
        final long second = line + ((turnBytes + SLOT_LENGTH) & (LINE_LENGTH - 1));
        if (matches(UnsafeApi.getLong(null, second), keyWord, matchMask))
        {
            return second;
        }
        final long third = line + ((turnBytes + 2 * SLOT_LENGTH) & (LINE_LENGTH - 1));
        if (matches(UnsafeApi.getLong(null, third), keyWord, matchMask))
        {
            return third;
        }
        final long fourth = line + ((turnBytes + 3 * SLOT_LENGTH) & (LINE_LENGTH - 1));
        if (matches(UnsafeApi.getLong(null, fourth), keyWord, matchMask))
        {
            return fourth;
        }
        return NO_SLOT;
    }

    /**
     * {@link #slotIn} without a branch on which slot of a line matched: the four key words are compared under
     * {@code matchMask} and the matching slot's address is an OR of masked addresses, in the home line only (the
     * line a batch touches first; a key in the next line goes the general way). For a key whose home line is
     * already in cache (a batch) or whose key word took many instructions to compute (a hashed key): there a
     * mispredicted slot branch has no miss to hide behind, and its flush also throws away the loads the core has
     * started for the next key. (For a long key decided alone on a table larger than the caches the predicted
     * branch of {@link #slotIn} is cheaper: it lets the core run on into the CAS before the line arrives.)
     *
     * @param keyWord   the key word.
     * @param matchMask {@link #matchMask} of the table's kind.
     * @return the slot's address, or {@link #NO_SLOT} (as {@link #slotIn}).
     */
    long slotSelected(final long keyWord, final long matchMask)
    {
        if (!bucketScan || EMPTY_KEY == keyWord || TOMBSTONE_KEY == keyWord)
        {
            return NO_SLOT;
        }
        return slotSelectedInLine(homeLine(keyWord), keyWord, matchMask);
    }

    private static long slotSelectedInLine(final long line, final long keyWord, final long matchMask)
    {
        final long slot = (line & matchBits(UnsafeApi.getLong(null, line), keyWord, matchMask)) |
            ((line + SLOT_LENGTH) & matchBits(UnsafeApi.getLong(null, line + SLOT_LENGTH), keyWord, matchMask)) |
            ((line + 2 * SLOT_LENGTH) & matchBits(UnsafeApi.getLong(null, line + 2 * SLOT_LENGTH), keyWord, matchMask)) |
            ((line + 3 * SLOT_LENGTH) & matchBits(UnsafeApi.getLong(null, line + 3 * SLOT_LENGTH), keyWord, matchMask));
        // One slot holds the key at a time, but the four plain reads are no snapshot: a key swept and inserted again
        // between them (or EMPTY words under a classed mask) can match twice, and an OR of two addresses may be no
        // slot of this line. Only an address of this line is returned; the validated load then decides whether it
        // is the key's. No match at all is an OR of nothing, 0, which is no address of the line either.
        return ((slot - line) & ~(3L * SLOT_LENGTH)) == 0 ? slot : NO_SLOT;
    }

    /**
     * @return all ones if {@code word} and {@code keyWord} agree on {@code matchMask}, else 0, without a branch:
     * with x = (word ^ keyWord) &amp; matchMask, {@code (x - 1) & ~x} has its sign bit set iff x == 0.
     */
    private static long matchBits(final long word, final long keyWord, final long matchMask)
    {
        final long x = (word ^ keyWord) & matchMask;
        return ((x - 1) & ~x) >> 63;
    }

    /**
     * @return whether a slot's word is the key's under {@code matchMask}: for a plain table ({@code -1}, a constant
     * once inlined) a plain comparison, one instruction with the load.
     */
    private static boolean matches(final long word, final long keyWord, final long matchMask)
    {
        return -1L == matchMask ? word == keyWord : ((word ^ keyWord) & matchMask) == 0;
    }

    /**
     * Validated load: the TAT (acquire), then the key again (acquire).
     *
     * @param tatOffset  from {@link #find} or an insert.
     * @param storedWord the word the slot must still hold (for a plain table, the key word).
     * @return the TAT, or {@link #STALE} if the slot no longer holds {@code storedWord} or is mid-reclaim.
     */
    long loadTat(final int tatOffset, final long storedWord)
    {
        final long tatAddress = address + tatOffset;
        final long tatNs = UnsafeApi.getLongAcquire(null, tatAddress);
        if (isDedicatedCell(tatOffset))
        {
            return tatNs;
        }
        if (RECLAIMING == tatNs || UnsafeApi.getLongAcquire(null, tatAddress - TAT_OFFSET) != storedWord)
        {
            return STALE;
        }
        return tatNs;
    }

    /**
     * CAS the TAT word (volatile); a failure is counted as a CAS retry in the slot's shard.
     *
     * @param tatOffset  from {@link #find} or an insert.
     * @param expectedNs a value returned by {@link #loadTat}.
     * @param nextNs     the new value.
     * @return the witness: {@code expectedNs} iff the word was swapped.
     */
    long compareAndExchangeTat(final int tatOffset, final long expectedNs, final long nextNs)
    {
        final long witnessNs = UnsafeApi.compareAndExchangeLong(null, address + tatOffset, expectedNs, nextNs);
        if (witnessNs != expectedNs)
        {
            buffer.getAndAddLong(headerOf(tatOffset) + CAS_RETRIES_OFFSET, 1);
        }
        return witnessNs;
    }

    /**
     * Count a CAS a decision lost on the key's slot from {@link #slotIn} as a retry of the slot's shard, which
     * is the key's (the home line is in the key's shard).
     */
    void countCasRetry(final long keyWord)
    {
        buffer.getAndAddLong(TableLayout.shardHeaderOffset(geometry.shardOf(keyWord)) + CAS_RETRIES_OFFSET, 1);
    }

    /**
     * Whether a TAT offset (from {@link #find}) is one of the two dedicated cells' rather than a slot's: a
     * dedicated cell's TAT is at offset 0 of a cell-aligned cell ({@link CellLayout#TAT_OFFSET}), a slot's at
     * {@link TableLayout#TAT_OFFSET} (8) of a 16-byte slot in a 16-aligned array, so bit 3 tells them apart.
     */
    static boolean isDedicatedCell(final int tatOffset)
    {
        return 0 == (tatOffset & TAT_OFFSET);
    }

    /**
     * @return the slot index of a TAT offset from {@link #find} in [0, slotCount), or -2 for a dedicated cell.
     */
    int slotIndexOf(final int tatOffset)
    {
        return isDedicatedCell(tatOffset) ? -2 : geometry.slotIndex(tatOffset - TAT_OFFSET);
    }

    /** @return a counter of the shard headers, summed over shards (volatile reads). */
    long sumHeaders(final int fieldOffset)
    {
        long sum = 0;
        for (int shard = 0; shard <= shardMask; shard++)
        {
            sum += buffer.getLongVolatile(TableLayout.shardHeaderOffset(shard) + fieldOffset);
        }
        return sum;
    }

    /** @return how many slots hold exactly this word (racy). */
    int countSlots(final long keyWord)
    {
        int count = 0;
        final int end = geometry.length();
        for (int offset = slotsOffset; offset < end; offset += SLOT_LENGTH)
        {
            if (buffer.getLongAcquire(offset) == keyWord)
            {
                count++;
            }
        }
        return count;
    }

    private int headerOf(final int tatOffset)
    {
        final int shard = isDedicatedCell(tatOffset) ? 0 : geometry.slotIndex(tatOffset - TAT_OFFSET) / slotsPerShard;
        return TableLayout.shardHeaderOffset(shard);
    }
}
