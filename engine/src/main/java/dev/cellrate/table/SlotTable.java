package dev.cellrate.table;

import static dev.cellrate.Bounds.requireRange;

import static dev.cellrate.table.TableLayout.CAS_RETRIES_OFFSET;
import static dev.cellrate.table.TableLayout.CELL_TAT_OFFSET;
import static dev.cellrate.table.TableLayout.EMPTY_KEY;
import static dev.cellrate.table.TableLayout.EMPTY_KEY_CELL_OFFSET;
import static dev.cellrate.table.TableLayout.EVICTIONS_OFFSET;
import static dev.cellrate.table.TableLayout.FRESH_TAT_NS;
import static dev.cellrate.table.TableLayout.KEY_OFFSET;
import static dev.cellrate.table.TableLayout.LIVE_KEYS_OFFSET;
import static dev.cellrate.table.TableLayout.LOCK_OFFSET;
import static dev.cellrate.table.TableLayout.OVERFLOW_CELL_OFFSET;
import static dev.cellrate.table.TableLayout.RECLAIMING;
import static dev.cellrate.table.TableLayout.SHARD_SHIFT;
import static dev.cellrate.table.TableLayout.SLOT_LENGTH;
import static dev.cellrate.table.TableLayout.TABLE_FULL_OFFSET;
import static dev.cellrate.table.TableLayout.TAT_OFFSET;
import static dev.cellrate.table.TableLayout.TOMBSTONE_KEY;
import static dev.cellrate.table.TableLayout.TOMBSTONE_KEY_CELL_OFFSET;

import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A fixed-capacity, sharded, off-heap table of one-word cells keyed by 64-bit key words, with TTL eviction
 * of idle cells. Layout: {@link TableLayout}. This is the low-level <b>slot API</b> on which
 * {@code dev.cellrate.KeyedRateLimiter} (and any algorithm whose per-key state is one monotone word, such as
 * the shaper) runs its own CAS loop.
 * <p>
 * <b>Slot API contract.</b> A caller holding a key word {@code k} (from {@link #keyWord}) runs:
 * <pre>
 *   int off = table.claimSlot(k, nowNs);              // FULL (&lt; 0): no cell, apply your policy
 *   long tat = table.loadTat(off, k);                 // STALE: the slot left k; claim again
 *   loop: decide on tat; next must be &gt; tat (the word only ever grows)
 *         witness = table.compareAndExchangeTat(off, tat, next);
 *         witness == tat: done; else tat = table.loadTat(off, k) and loop (STALE: claim again)
 * </pre>
 * Rules: (1) the next value must be strictly greater than the expected one and never {@link #STALE}
 * (a caller that lowers the word, e.g. a refund, gives up the ABA guarantee below for stale CASes that
 * expect a value above the lowered one: if the slot is then reclaimed and the new key's TAT passes through
 * exactly that value, such a CAS lands on the new key's cell; it needs a decider paused between its
 * validated read and its CAS for about the idle grace, see {@code docs/keyed-table.md});
 * (2) after a failed CAS, never reuse the witness without {@link #loadTat}, which re-validates the key;
 * (3) a word read through {@link #loadTat} may be older than the cell's current value but never larger:
 * a decision that <em>rejects</em> on it is also right for the current value; an admission happens only
 * through a successful CAS, which succeeds only on the key's current value.
 * <p>
 * <b>Algorithm.</b> Shard = bits {@link TableLayout#SHARD_SHIFT}.. of the key word, home slot = a
 * multiply-shift reduction of its low 32 bits onto the shard's slot count ({@link TableLayout#homeIndex}: any
 * count, so the table follows the expected key count instead of the next power of two);
 * linear probing inside the shard up to the probe bound. Slots never return to EMPTY (swept ones become
 * tombstones), so a probe that reaches EMPTY proves the key absent. The two reserved key words have
 * dedicated cells in the table header, so no key is ever stored under a reserved word.
 * <p>
 * <b>Concurrency.</b> Memory ordering convention: key and TAT words are read with {@code getLongAcquire},
 * written by CAS (volatile) or, under the shard lock, by {@code putLongRelease}. Decisions on present keys
 * are lock-free: probe the key words (acquire), read the TAT (acquire), re-read the key (acquire), CAS the
 * TAT. Every change of a slot's key (insert, reclaim, sweep) happens under the shard's insert lock: a
 * spin-lock word in the shard header, held for at most one probe chain. A lock, not a CAS on the key word,
 * because reclaiming an idle slot is a three-word transition (TAT to {@link #STALE}, key, TAT) and two
 * inserters of one key must agree on a single slot even when they could pick different idle slots; inserts
 * are rare next to decisions, and the lock is never touched by a decision on a present key.
 * <p>
 * <b>ABA.</b> Invariant: across a slot's whole life, whatever keys it holds, its TAT word, ignoring
 * {@link TableLayout#RECLAIMING}, only grows. Reclaiming idle word X for key B does CAS X to RECLAIMING
 * (fails if a decider charged the cell: then it is active and kept), release key := B, release
 * TAT := max(X + 1, now - grace + 1). A stale decider expects some value v &le; X; the word never returns
 * to v, so its CAS fails. A decider that reads the new TAT sees key B on its re-read (the key was released
 * first) and goes back to probing.
 * <p>
 * <b>Eviction.</b> A cell whose TAT &le; now - grace is idle: for every caller time t &ge; now - grace it is
 * a full bucket, exactly like an empty slot, so reclaiming it changes no decision. Idle slots are reused
 * lazily by inserts on their probe path and turned into tombstones by an amortised sweep (a few slots per
 * insert) or by {@link #sweep}. A cell whose TAT &gt; now - grace is never evicted. The grace must cover
 * the skew between the {@code nowNs} values of concurrent callers.
 * <p>
 * Memory: one direct buffer, owned by this object, freed only by the GC; no {@code close()}. Publish the
 * table to other threads safely (a final field, a volatile write, a queue).
 */
public final class SlotTable
{
    /** {@link #claimSlot} result: no present, free or idle slot within the probe bound. */
    public static final int FULL = -2;

    /** {@link #loadTat} result: the slot no longer belongs to the key (or is mid-reclaim). */
    public static final long STALE = RECLAIMING;

    private static final int SWEEP_CHUNK = 64;

    private final AtomicBuffer buffer;
    /** Address of byte 0 of the buffer: the lookup path reads and CASes raw addresses (no bounds checks). */
    private final long address;
    private final int lastWordOffset;
    private final int shardMask;
    private final int slotsPerShard;
    private final int probeBound;
    private final int slotsOffset;
    private final long idleGraceNs;
    private final long seed;
    private final ShardWriter writer;
    private int nextSweepShard;

    /**
     * @param shardCount    shards, a power of two in [1, 2<sup>16</sup>].
     * @param slotsPerShard slots per shard, any count &ge; 1; total slots at most {@link TableLayout#MAX_SLOTS}
     *                      (133,693,407: 100 M keys at 75% load).
     * @param probeBound    most slots probed per lookup or insert, in [1, slotsPerShard].
     * @param idleGraceNs   a cell with TAT &le; now - idleGraceNs is idle, in [1, 2<sup>62</sup>].
     * @param seed          seed of the key words.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public SlotTable(
        final int shardCount, final int slotsPerShard, final int probeBound, final long idleGraceNs, final long seed)
    {
        requirePowerOfTwo("shardCount", shardCount, TableLayout.MAX_SHARDS);
        requireRange("slotsPerShard", slotsPerShard, 1, TableLayout.MAX_SLOTS / shardCount);
        requireRange("probeBound", probeBound, 1, slotsPerShard);
        requireRange("idleGraceNs", idleGraceNs, 1, 1L << 62);
        this.shardMask = shardCount - 1;
        this.slotsPerShard = slotsPerShard;
        this.probeBound = probeBound;
        this.idleGraceNs = idleGraceNs;
        this.seed = seed;
        this.slotsOffset = TableLayout.slotsOffset(shardCount);
        final int length = TableLayout.length(shardCount, shardCount * slotsPerShard);
        buffer = new UnsafeBuffer(BufferUtil.allocateDirectAligned(length, TableLayout.ALIGNMENT));
        buffer.verifyAlignment();
        address = buffer.addressOffset();
        lastWordOffset = length - Long.BYTES;
        buffer.putLong(EMPTY_KEY_CELL_OFFSET + CELL_TAT_OFFSET, FRESH_TAT_NS);
        buffer.putLong(TOMBSTONE_KEY_CELL_OFFSET + CELL_TAT_OFFSET, FRESH_TAT_NS);
        buffer.putLong(OVERFLOW_CELL_OFFSET + CELL_TAT_OFFSET, FRESH_TAT_NS);
        for (int offset = slotsOffset + TAT_OFFSET; offset < length; offset += SLOT_LENGTH)
        {
            buffer.putLong(offset, FRESH_TAT_NS);
        }
        writer = new ShardWriter(buffer, slotsOffset, slotsPerShard, probeBound, idleGraceNs);
        buffer.putLongVolatile(TableLayout.shardHeaderOffset(0) + LOCK_OFFSET, 0);
    }

    /**
     * @param key a long key.
     * @return its key word (bijective, see {@link KeyHash#mixLong}).
     */
    public long keyWord(final long key)
    {
        return KeyHash.mixLong(key, seed);
    }

    /**
     * @param key characters, hashed as UTF-8.
     * @return its key word (see {@link KeyHash#hashCharSequence}).
     */
    public long keyWord(final CharSequence key)
    {
        return KeyHash.hashCharSequence(key, seed);
    }

    /**
     * @param key    bytes.
     * @param offset first byte.
     * @param length byte count.
     * @return its key word (see {@link KeyHash#hashBytes}).
     */
    public long keyWord(final byte[] key, final int offset, final int length)
    {
        return KeyHash.hashBytes(key, offset, length, seed);
    }

    /**
     * @param key    buffer.
     * @param offset first byte.
     * @param length byte count.
     * @return its key word (see {@link KeyHash#hashBuffer}).
     */
    public long keyWord(final DirectBuffer key, final int offset, final int length)
    {
        return KeyHash.hashBuffer(key, offset, length, seed);
    }

    /**
     * Find the key's cell, inserting the key if absent (reusing a free, swept or idle slot on its probe
     * path). Lock-free if the key is present; takes the shard lock to insert.
     *
     * @param keyWord the key word.
     * @param nowNs   the caller's time (decides which cells are idle).
     * @return the offset of the cell's TAT word in {@link #buffer()}, or {@link #FULL} (counted).
     */
    public int claimSlot(final long keyWord, final long nowNs)
    {
        if (EMPTY_KEY == keyWord)
        {
            return EMPTY_KEY_CELL_OFFSET + CELL_TAT_OFFSET;
        }
        if (TOMBSTONE_KEY == keyWord)
        {
            return TOMBSTONE_KEY_CELL_OFFSET + CELL_TAT_OFFSET;
        }
        final int shard = (int)(keyWord >>> SHARD_SHIFT) & shardMask;
        final int home = TableLayout.homeIndex(keyWord, slotsPerShard);
        final int found = find(keyWord, shard, home);
        return found >= 0 ? found : writer.insert(keyWord, shard, home, nowNs);
    }

    /**
     * Find the key's cell without inserting (lock-free).
     *
     * @param keyWord the key word.
     * @return the offset of the cell's TAT word, or -1 if the key has no cell.
     */
    public int findSlot(final long keyWord)
    {
        if (EMPTY_KEY == keyWord)
        {
            return EMPTY_KEY_CELL_OFFSET + CELL_TAT_OFFSET;
        }
        if (TOMBSTONE_KEY == keyWord)
        {
            return TOMBSTONE_KEY_CELL_OFFSET + CELL_TAT_OFFSET;
        }
        return find(keyWord, (int)(keyWord >>> SHARD_SHIFT) & shardMask, TableLayout.homeIndex(keyWord, slotsPerShard));
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
        return UnsafeApi.getLong(
            null, address + slotOffset((int)(keyWord >>> SHARD_SHIFT) & shardMask,
                TableLayout.homeIndex(keyWord, slotsPerShard)));
    }

    /**
     * Validated load: the TAT (acquire), then the key again (acquire).
     *
     * @param tatOffset from {@link #claimSlot}.
     * @param keyWord   the key word it was claimed for.
     * @return the TAT, or {@link #STALE} if the slot no longer belongs to the key or is mid-reclaim.
     */
    public long loadTat(final int tatOffset, final long keyWord)
    {
        final long tatAddress = address + checkTatOffset(tatOffset);
        final long tatNs = UnsafeApi.getLongAcquire(null, tatAddress);
        if (tatOffset < slotsOffset)
        {
            return tatNs;
        }
        if (RECLAIMING == tatNs || UnsafeApi.getLongAcquire(null, tatAddress - TAT_OFFSET + KEY_OFFSET) != keyWord)
        {
            return STALE;
        }
        return tatNs;
    }

    /**
     * CAS the TAT word (volatile); a failure is counted as a CAS retry in the slot's shard.
     *
     * @param tatOffset  from {@link #claimSlot}.
     * @param expectedNs a value returned by {@link #loadTat}.
     * @param nextNs     the new value, strictly greater than {@code expectedNs}.
     * @return the witness: {@code expectedNs} iff the word was swapped.
     */
    public long compareAndExchangeTat(final int tatOffset, final long expectedNs, final long nextNs)
    {
        final long witnessNs = UnsafeApi.compareAndExchangeLong(null, address + checkTatOffset(tatOffset), expectedNs, nextNs);
        if (witnessNs != expectedNs)
        {
            buffer.getAndAddLong(headerOf(tatOffset) + CAS_RETRIES_OFFSET, 1);
        }
        return witnessNs;
    }

    /**
     * Turn up to {@code maxSlots} idle slots into tombstones, round-robin over the shards, for users who run
     * their own timer. Takes each shard's lock for at most 64 slots at a time. Any thread.
     *
     * @param nowNs    the time (same clock as the decisions).
     * @param maxSlots slots to visit, &ge; 0.
     * @return the number of idle keys reclaimed.
     */
    public int sweep(final long nowNs, final int maxSlots)
    {
        int reclaimed = 0;
        int remaining = maxSlots;
        while (remaining > 0)
        {
            final int visit = Math.min(remaining, Math.min(SWEEP_CHUNK, slotsPerShard));
            reclaimed += writer.sweep(nextSweepShard++ & shardMask, visit, nowNs);
            remaining -= visit;
        }
        return reclaimed;
    }

    /**
     * @return the offset of the shared overflow cell's TAT word (table-full policy {@code OVERFLOW}).
     */
    public int overflowTatOffset()
    {
        return OVERFLOW_CELL_OFFSET + CELL_TAT_OFFSET;
    }

    /**
     * @return slots holding a key, summed over shards; idle keys count until swept or reused. Approximate
     * while inserts run; allocation-free, any thread.
     */
    public long liveKeys()
    {
        return sumHeaders(LIVE_KEYS_OFFSET);
    }

    /**
     * @return idle keys reclaimed (by inserts or sweeps) since construction.
     */
    public long evictions()
    {
        return sumHeaders(EVICTIONS_OFFSET);
    }

    /**
     * @return {@link #claimSlot} calls that returned {@link #FULL}.
     */
    public long tableFullEvents()
    {
        return sumHeaders(TABLE_FULL_OFFSET);
    }

    /**
     * @return failed TAT CASes (contention).
     */
    public long casRetries()
    {
        return sumHeaders(CAS_RETRIES_OFFSET);
    }

    /**
     * @return the buffer holding the table (never release it yourself).
     */
    public AtomicBuffer buffer()
    {
        return buffer;
    }

    /**
     * @return total slots.
     */
    public int slotCount()
    {
        return slotsPerShard * (shardMask + 1);
    }

    /**
     * @return shards.
     */
    public int shardCount()
    {
        return shardMask + 1;
    }

    /**
     * @return the probe bound.
     */
    public int probeBound()
    {
        return probeBound;
    }

    /**
     * @return the idle grace in ns.
     */
    public long idleGraceNs()
    {
        return idleGraceNs;
    }

    /**
     * @return the seed of the key words.
     */
    public long seed()
    {
        return seed;
    }

    /**
     * Diagnostics and tests: how many slots hold this key word (must be 0 or 1). Reads racily.
     *
     * @param keyWord the key word.
     * @return the number of slots whose key word equals it.
     */
    public int countSlots(final long keyWord)
    {
        int count = 0;
        final int end = TableLayout.length(shardCount(), slotCount());
        for (int offset = slotsOffset + KEY_OFFSET; offset < end; offset += SLOT_LENGTH)
        {
            if (buffer.getLongAcquire(offset) == keyWord)
            {
                count++;
            }
        }
        return count;
    }

    private int find(final long keyWord, final int shard, final int home)
    {
        final long address = this.address;
        for (int probe = 0; probe < probeBound; probe++)
        {
            int index = home + probe;
            if (index >= slotsPerShard)
            {
                index -= slotsPerShard;
            }
            final int slot = slotOffset(shard, index);
            final long key = UnsafeApi.getLongAcquire(null, address + slot + KEY_OFFSET);
            if (key == keyWord)
            {
                return slot + TAT_OFFSET;
            }
            if (EMPTY_KEY == key)
            {
                return -1;
            }
        }
        return -1;
    }

    private int slotOffset(final int shard, final int index)
    {
        return TableLayout.slotOffset(slotsOffset, slotsPerShard, shard, index);
    }

    /**
     * The one check left on the raw-address path: an offset handed in by a caller must be a word inside the
     * buffer (one unsigned compare against a final field; offsets from {@link #claimSlot} always pass).
     */
    private int checkTatOffset(final int tatOffset)
    {
        if (Integer.compareUnsigned(tatOffset, lastWordOffset) > 0)
        {
            throw new IndexOutOfBoundsException("tatOffset " + tatOffset + " is outside [0, " + lastWordOffset + "]");
        }
        return tatOffset;
    }

    private int headerOf(final int tatOffset)
    {
        final int shard = tatOffset < slotsOffset ? 0 : ((tatOffset - slotsOffset) / SLOT_LENGTH) / slotsPerShard;
        return TableLayout.shardHeaderOffset(shard);
    }

    private long sumHeaders(final int fieldOffset)
    {
        long sum = 0;
        for (int shard = 0; shard <= shardMask; shard++)
        {
            sum += buffer.getLongVolatile(TableLayout.shardHeaderOffset(shard) + fieldOffset);
        }
        return sum;
    }

    private static void requirePowerOfTwo(final String field, final int value, final int max)
    {
        requireRange(field, value, 1, max);
        if (Integer.bitCount(value) != 1)
        {
            throw new IllegalArgumentException(field + " must be a power of two in [1, " + max + "] but was " + value);
        }
    }

}
