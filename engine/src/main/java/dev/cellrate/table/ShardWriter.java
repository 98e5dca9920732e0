package dev.cellrate.table;

import static dev.cellrate.table.TableLayout.EMPTY_KEY;
import static dev.cellrate.table.TableLayout.EVICTIONS_OFFSET;
import static dev.cellrate.table.TableLayout.LIVE_KEYS_OFFSET;
import static dev.cellrate.table.TableLayout.RECLAIMING;
import static dev.cellrate.table.TableLayout.RECLAIM_FLOOR_OFFSET;
import static dev.cellrate.table.TableLayout.SWEEP_CURSOR_OFFSET;
import static dev.cellrate.table.TableLayout.TABLE_FULL_OFFSET;
import static dev.cellrate.table.TableLayout.TAT_OFFSET;
import static dev.cellrate.table.TableLayout.TOMBSTONE_KEY;

import dev.cellrate.layout.CellArray;
import dev.cellrate.layout.CellLayout;
import org.agrona.concurrent.AtomicBuffer;

/**
 * Everything that changes a slot's key word in a {@link SlotTable}: insert, reclaim of an idle slot, sweep
 * to a tombstone. All of it runs under the shard's insert lock (a spin-lock word in the shard header, see
 * {@link TableLayout}), so per shard there is one key writer at a time; decisions never take the lock.
 * <p>
 * Ordering: under the lock, key words are read plain (only lock holders write them; the lock's CAS and
 * release order them) and TAT words with volatile reads (deciders CAS them). A claimed EMPTY or TOMBSTONE
 * slot gets its TAT raised (release) before its key (release); a reclaimed idle slot goes TAT X to
 * {@link TableLayout#RECLAIMING} (CAS), then its high-water mark is checked (volatile), then key (release),
 * TAT max(now - grace + 1, the initial fill) (release), which is above X and the mark (both &le; now - grace:
 * the slot was idle); a reclaim also raises its shard's reclaim floor
 * ({@link TableLayout#RECLAIM_FLOOR_OFFSET}) to its idle-before time before the key. See the ABA argument in
 * {@link SlotTable}.
 * <p>
 * Addresses: a slot's offset is its key word's and a shard header's offset its lock word's ({@link
 * TableLayout#KEY_OFFSET} and {@link TableLayout#LOCK_OFFSET} are 0).
 * <p>
 * High-water marks: one word per slot, in a second buffer allocated at the first refund of the table (tables
 * nobody refunds on never pay for it); for a table shared by processes, in memory they all map
 * ({@link SharedMarks}), read by a reclaim of any process once any process created them. {@link #recordLowering} raises a slot's mark to the value a refund is
 * about to lower the word from, before that CAS; a slot whose mark is above {@code now - grace} is not idle,
 * whatever its TAT. The mark is never reset: every value it holds was held by the slot, and a reclaim starts
 * the word above it, so an old mark is always below the current key's word.
 */
final class ShardWriter
{
    private static final int SWEEP_PER_INSERT = 2;

    /** {@link #insert}'s candidate before one is found (a slot offset is never negative). */
    private static final int NO_CANDIDATE = -1;

    private final AtomicBuffer buffer;
    private final TableGeometry geometry;
    private volatile AtomicBuffer highWaterMarks;
    /** The lock of a table shared by processes, or null: then the lock word is this spin-lock's 0 / 1. */
    private final ShardLock sharedLock;
    /** The marks of a table shared by processes (null with a null lock: then they are this table's own). */
    private final SharedMarks sharedMarks;

    /**
     * @param index       the table's lock-free side: its buffer and geometry are this writer's.
     * @param sharedLock  the lock other processes share ({@link SharedTable}), or null for the table's own spin-lock.
     * @param sharedMarks the high-water marks other processes share, or null: of its own if the lock is null,
     *                    none (no refund gives anything back) otherwise.
     */
    ShardWriter(final SlotIndex index, final ShardLock sharedLock, final SharedMarks sharedMarks)
    {
        this.buffer = index.buffer;
        this.geometry = index.geometry;
        this.sharedLock = sharedLock;
        this.sharedMarks = sharedMarks;
    }

    /**
     * Sweep {@code visit} slots of one shard from its cursor, under its lock.
     *
     * @return idle keys turned into tombstones.
     */
    int sweep(final int shard, final int visit, final long nowNs)
    {
        final int header = TableLayout.shardHeaderOffset(shard);
        lock(header);
        try
        {
            return sweepShard(shard, header, visit, idleBeforeNs(nowNs));
        }
        finally
        {
            unlock(header);
        }
    }

    /**
     * Under the shard lock: the slot whose stored word matches {@code keyWord} on the bits of
     * {@code matchMask} if present, else the first EMPTY, swept or idle slot of the key's probe sequence
     * ({@link TableGeometry#probeSlot}: its home line from its preferred slot on, so a key whose preferred slot is
     * free takes it), claimed and given
     * {@code keyWord} (the word to store). A plain table passes its key word and -1 (every bit); a classed table
     * ({@link SlotTable#insertClassedSlot}) the key word with its class in the shard bits, and a mask without
     * them. EMPTY and TOMBSTONE are tested before the match, so a masked word never matches a free slot. A
     * claimed slot's word is raised to at least {@code firstTatNs} before the key is published (initial fill).
     *
     * @return the TAT offset, or {@link SlotTable#FULL} (counted).
     */
    int insert(
        final long keyWord,
        final long matchMask,
        final int shard,
        final int home,
        final long nowNs,
        final long firstTatNs)
    {
        final long idleBeforeNs = idleBeforeNs(nowNs);
        final int header = TableLayout.shardHeaderOffset(shard);
        lock(header);
        try
        {
            final int turn = geometry.turn(keyWord); // a classed stored word has its key word's bits there
            while (true)
            {
                int candidate = NO_CANDIDATE;
                boolean empty = false;
                for (int probe = 0; probe < geometry.probeBound; probe++)
                {
                    final int slot = geometry.probeSlot(shard, home, turn, probe);
                    final long key = buffer.getLong(slot);
                    if (EMPTY_KEY == key)
                    {
                        candidate = NO_CANDIDATE == candidate ? slot : candidate;
                        empty = true;
                    }
                    else if (TOMBSTONE_KEY != key && ((key ^ keyWord) & matchMask) == 0)
                    {
                        return slot + TAT_OFFSET;
                    }
                    else if (NO_CANDIDATE == candidate && (TOMBSTONE_KEY == key || isIdle(slot, idleBeforeNs)))
                    {
                        candidate = slot;
                    }
                    if (TableGeometry.chainEnds(empty, probe))
                    {
                        break;
                    }
                }
                if (NO_CANDIDATE == candidate)
                {
                    buffer.getAndAddLong(header + TABLE_FULL_OFFSET, 1);
                    return SlotTable.FULL;
                }
                if (take(candidate, keyWord, header, idleBeforeNs, firstTatNs))
                {
                    sweepShard(shard, header, SWEEP_PER_INSERT, idleBeforeNs);
                    return candidate + TAT_OFFSET;
                }
            }
        }
        finally
        {
            unlock(header);
        }
    }

    private boolean take(
        final int slot, final long keyWord, final int header, final long idleBeforeNs, final long firstTatNs)
    {
        final long oldKey = buffer.getLong(slot);
        final long tatNs = buffer.getLongVolatile(slot + TAT_OFFSET);
        if (EMPTY_KEY == oldKey || TOMBSTONE_KEY == oldKey)
        {
            // No decider can match this key word; stale ones expect a smaller TAT. TAT first, then key.
            buffer.putLongRelease(slot + TAT_OFFSET, Math.max(Math.max(tatNs, idleBeforeNs + 1), firstTatNs));
            buffer.putLongRelease(slot, keyWord);
            buffer.putLongRelease(header + LIVE_KEYS_OFFSET, buffer.getLong(header + LIVE_KEYS_OFFSET) + 1);
            return true;
        }
        if (!reclaim(slot, header, tatNs, keyWord, idleBeforeNs, firstTatNs))
        {
            return false;
        }
        buffer.putLongRelease(header + EVICTIONS_OFFSET, buffer.getLong(header + EVICTIONS_OFFSET) + 1);
        return true;
    }

    private boolean reclaim(
        final int slot, final int header, final long tatNs, final long newKey, final long idleBeforeNs,
        final long firstTatNs)
    {
        // tatNs was read under the shard lock, which every reclaim holds from its CAS to RECLAIMING to the word
        // it leaves: it is never RECLAIMING here.
        if (tatNs > idleBeforeNs || !buffer.compareAndSetLong(slot + TAT_OFFSET, tatNs, RECLAIMING))
        {
            return false;
        }
        // After the CAS: a refund that lowered the word to tatNs before it recorded its mark before its own
        // CAS, so the mark is visible here; a later refund fails (the word is RECLAIMING).
        if (highWaterNs(slot) > idleBeforeNs)
        {
            buffer.putLongRelease(slot + TAT_OFFSET, tatNs);
            return false;
        }
        if (buffer.getLong(header + RECLAIM_FLOOR_OFFSET) < idleBeforeNs)
        {
            // Before the key (release, as the key): a refund that finds the new key sees the floor.
            buffer.putLongRelease(header + RECLAIM_FLOOR_OFFSET, idleBeforeNs);
        }
        buffer.putLongRelease(slot, newKey);
        // Above the old word and the mark: both are <= idleBeforeNs here (checked above).
        buffer.putLongRelease(slot + TAT_OFFSET, Math.max(idleBeforeNs + 1, firstTatNs));
        return true;
    }

    int sweepShard(final int shard, final int header, final int visit, final long idleBeforeNs)
    {
        int cursor = (int)buffer.getLong(header + SWEEP_CURSOR_OFFSET);
        int reclaimed = 0;
        for (int i = 0; i < visit; i++)
        {
            final int slot = geometry.slotOffset(shard, cursor);
            cursor = geometry.wrap(cursor + 1);
            final long key = buffer.getLong(slot);
            if (EMPTY_KEY != key && TOMBSTONE_KEY != key &&
                reclaim(slot, header, buffer.getLongVolatile(slot + TAT_OFFSET), TOMBSTONE_KEY, idleBeforeNs,
                    TableLayout.FRESH_SLOT_TAT_NS))
            {
                reclaimed++;
            }
        }
        buffer.putLong(header + SWEEP_CURSOR_OFFSET, cursor);
        // Unconditional (a sweep that reclaimed nothing writes back the values there): the header line is this
        // lock holder's already.
        buffer.putLongRelease(header + LIVE_KEYS_OFFSET, buffer.getLong(header + LIVE_KEYS_OFFSET) - reclaimed);
        buffer.putLongRelease(header + EVICTIONS_OFFSET, buffer.getLong(header + EVICTIONS_OFFSET) + reclaimed);
        return reclaimed;
    }

    private boolean isIdle(final int slot, final long idleBeforeNs)
    {
        final long tatNs = buffer.getLongVolatile(slot + TAT_OFFSET);
        return RECLAIMING != tatNs && tatNs <= idleBeforeNs && highWaterNs(slot) <= idleBeforeNs;
    }

    /**
     * Before a refund lowers the word of the slot at {@code slot} from {@code fromNs}: raise the slot's
     * high-water mark to {@code fromNs} (CAS loop, volatile).
     *
     * @return false if the table has no marks and cannot have them (then the word must not be lowered).
     */
    boolean recordLowering(final int slot, final long fromNs)
    {
        AtomicBuffer marks = highWaterMarks;
        if (null == marks)
        {
            marks = allocateMarks();
            if (null == marks)
            {
                return false;
            }
        }
        final int offset = markOffset(slot);
        long markNs = marks.getLongVolatile(offset);
        while (markNs < fromNs && !marks.compareAndSetLong(offset, markNs, fromNs))
        {
            markNs = marks.getLongVolatile(offset);
        }
        return true;
    }

    /**
     * @return the slot's high-water mark: the largest value a refund lowered its word from, or
     * {@link TableLayout#NO_HIGH_WATER_NS}.
     */
    long highWaterNs(final int slot)
    {
        AtomicBuffer marks = highWaterMarks;
        if (null == marks && null != sharedMarks)
        {
            try
            {
                marks = sharedMarks.ifCreated(); // non-null once any process created them
            }
            catch (final IllegalStateException ex)
            {
                return Long.MAX_VALUE; // marks that cannot be read: the slot is not idle (fail closed)
            }
            highWaterMarks = marks;
        }
        return null == marks ? TableLayout.NO_HIGH_WATER_NS : marks.getLongVolatile(markOffset(slot));
    }

    private synchronized AtomicBuffer allocateMarks()
    {
        AtomicBuffer marks = highWaterMarks;
        if (null == marks && null != sharedLock)
        {
            marks = null == sharedMarks ? null : sharedMarks.create();
            highWaterMarks = marks;
        }
        else if (null == marks)
        {
            final int length = geometry.slotCount() * Long.BYTES;
            marks = CellArray.allocateBuffer(length, CellLayout.CELL_ALIGNMENT);
            for (int offset = 0; offset < length; offset += Long.BYTES)
            {
                marks.putLong(offset, TableLayout.NO_HIGH_WATER_NS);
            }
            highWaterMarks = marks;
        }
        return marks;
    }

    private int markOffset(final int slot)
    {
        return geometry.slotIndex(slot) * Long.BYTES;
    }

    /**
     * @return bytes of the high-water marks (0 until the first refund).
     */
    int highWaterMarksLength()
    {
        final AtomicBuffer marks = highWaterMarks;
        return null == marks ? 0 : marks.capacity();
    }

    /** @see TableGeometry#idleBeforeNs */
    long idleBeforeNs(final long evictionNs)
    {
        return geometry.idleBeforeNs(evictionNs);
    }

    /** Take the insert lock of the shard whose header is at {@code header} (spin, see {@link #backOff}). */
    void lock(final int header)
    {
        if (null != sharedLock)
        {
            sharedLock.lock(header);
            return;
        }
        int spins = 0;
        while (!buffer.compareAndSetLong(header, 0, 1))
        {
            spins = backOff(spins);
        }
    }

    /** Release the insert lock of the shard whose header is at {@code header}. */
    void unlock(final int header)
    {
        if (null != sharedLock)
        {
            sharedLock.unlock(header);
            return;
        }
        buffer.putLongRelease(header, 0);
    }

    /**
     * Waiting for another thread (a shard lock holder, a slot mid-reclaim), once more: a spin hint, and every
     * 64th time a yield, so a waiter never starves the thread it waits for on a small machine.
     *
     * @param waits how many times this waiter has waited so far (0 the first time).
     * @return {@code waits + 1}, to pass to the next call.
     */
    static int backOff(final int waits)
    {
        final int spins = waits + 1;
        if ((spins & 63) == 0)
        {
            Thread.yield();
        }
        else
        {
            Thread.onSpinWait();
        }
        return spins;
    }
}
