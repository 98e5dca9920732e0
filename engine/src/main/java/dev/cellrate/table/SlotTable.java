package dev.cellrate.table;

import static dev.cellrate.check.Bounds.requireRange;
import static dev.cellrate.table.TableLayout.CAS_RETRIES_OFFSET;
import static dev.cellrate.table.TableLayout.EMPTY_KEY;
import static dev.cellrate.table.TableLayout.EMPTY_KEY_CELL_OFFSET;
import static dev.cellrate.table.TableLayout.EVICTIONS_OFFSET;
import static dev.cellrate.table.TableLayout.FRESH_SLOT_TAT_NS;
import static dev.cellrate.table.TableLayout.LIVE_KEYS_OFFSET;
import static dev.cellrate.table.TableLayout.OVERFLOW_CELL_OFFSET;
import static dev.cellrate.table.TableLayout.RECLAIM_FLOOR_OFFSET;
import static dev.cellrate.table.TableLayout.SHARD_SHIFT;
import static dev.cellrate.table.TableLayout.SLOT_LENGTH;
import static dev.cellrate.table.TableLayout.TABLE_FULL_OFFSET;
import static dev.cellrate.table.TableLayout.TAT_OFFSET;
import static dev.cellrate.table.TableLayout.TOMBSTONE_KEY_CELL_OFFSET;

import java.security.SecureRandom;

import dev.cellrate.gcra.AtomicGcra;
import dev.cellrate.gcra.Gcra;
import dev.cellrate.layout.CellArray;
import dev.cellrate.layout.CellLayout;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;

/**
 * A fixed-capacity, sharded, off-heap table of one-word cells keyed by 64-bit key words, with TTL eviction
 * of idle cells. Layout: {@link TableLayout} (a slot's offset is its key word's: {@link TableLayout#KEY_OFFSET}
 * is 0). The keyed fronts ({@code KeyedRateLimiter}, {@code KeyedShaper}, {@code KeyedCompositeRateLimiter})
 * decide on it through one loop, {@link SlotLoop}, and lower a word only
 * through {@link SlotLoop#refund}; this class takes no raw offset from any caller and hands out no buffer.
 * <p>
 * <b>Algorithm.</b> Shard = bits {@link TableLayout#SHARD_SHIFT}.. of the key word, home slot = the first slot
 * of a bucket (one cache line, {@link #BUCKET_SLOTS} slots), the bucket a multiply-shift reduction of the word's
 * low 32 bits onto the shard's buckets ({@link TableLayout#homeIndex}: any count, so the table follows the
 * expected key count instead of the next power of two);
 * an insert takes the first free slot of the home line from the key's preferred slot on (bits 32-33 of the key
 * word, {@link TableGeometry#turn}), then probes linearly inside the shard up to the probe bound. Slots never
 * return to EMPTY (swept ones become tombstones), so a probe that reaches EMPTY, once the whole home line is read,
 * proves the key absent, whatever order placed the key in its home line (a mapped table file's layout version
 * names the insert order all the same: {@code TableFileLayout}). The two reserved key words have
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
 * <b>ABA.</b> A slot's word, ignoring {@link TableLayout#RECLAIMING}, is raised by every decision and lowered
 * only by a refund, which first records the value it lowers from in the slot's high-water mark
 * ({@link ShardWriter}). So every value a slot ever held is at most max(current word, mark). A slot is idle
 * only when both are &le; now - grace, and a reclaim restarts the word at now - grace + 1 (at least), above
 * both: no value a paused decider of an earlier key can hold ever comes back, so its CAS fails. A refund never
 * lowers a word below a value its key held since its cell was claimed, so a key's word stays above every
 * value of the slot's earlier keys. The whole argument: {@code docs/keyed-table.md}, "ABA".
 * <p>
 * <b>Classes.</b> A classed front ({@code ClassedKeyedRateLimiter}) gives each key one of a few limits, chosen
 * at insert. The class is stored in the key's own slot word, in its shard bits (bits {@link
 * TableLayout#SHARD_SHIFT}.. of width log2(shardCount)), which every key of a shard shares and so carry no
 * information in a slot: the stored word is the key word with those bits set to {@code class + 1}, a value in
 * [1, shardCount - 2], so a stored word is never EMPTY (0) or TOMBSTONE (-1) and no key word needs a dedicated
 * cell. Lookups compare the other bits ({@link SlotIndex}). The slot stays 16 bytes and a decision reads
 * the class from the word it validates its TAT against ({@link SlotIndex#storedWordAt} then
 * {@link SlotIndex#loadTat} with that word), so a TAT is only ever decided under the class stored with it: a reclaimed slot carries its new key's
 * word, hence its new class, and a paused decider's validated load of the old word fails (the ABA argument
 * below covers its CAS). A table is used plain or classed, never both.
 * <p>
 * <b>Eviction.</b> A cell is idle when its TAT (and its high-water mark) are &le; E - grace, where the
 * eviction time E = min(caller's now, the table's clock): no caller's time, however far ahead, can evict
 * a key that is active by the clock. Idle slots are reused lazily by inserts on their probe path and turned
 * into tombstones by an amortised sweep (a few slots per insert) or by {@link #sweep}. The grace must cover
 * the skew between the {@code nowNs} values of concurrent callers, and callers' {@code nowNs} must be on the
 * table's clock (or behind it), or eviction never happens and the table fills.
 * <p>
 * Memory: one direct buffer, plus 8 bytes per slot of high-water marks from the first refund on; owned by
 * this object, freed only by the GC; no {@code close()}. Publish the table to other threads safely (a final
 * field, a volatile write, a queue).
 */
public final class SlotTable extends TableReads
{
    /** {@link #claimSlot} result: no present, free or idle slot within the probe bound. */
    static final int FULL = -2;

    /**
     * {@link #tatNs} result: the key has no cell (internally, {@link #loadTat}: the slot left the key, or is
     * mid-reclaim). A returned value, never a stored one (a slot stores {@link TableLayout#RECLAIMING} or a TAT
     * of at least {@link TableLayout#FRESH_SLOT_TAT_NS}); it is {@link CellArray#FRESH_TAT_NS}, so a peek that
     * reads it as a TAT sees what a new key would: a full bucket.
     */
    public static final long STALE = CellArray.FRESH_TAT_NS;

    /** Most limit classes a classed table holds (see {@link #classCapacity}). */
    public static final int MAX_CLASSES = 16;

    private static final int SWEEP_CHUNK = 64;

    /** Slots per bucket: one cache line (see {@link TableGeometry#BUCKET_SLOTS}). */
    static final int BUCKET_SLOTS = TableGeometry.BUCKET_SLOTS;

    private final NanoClock evictionClock;
    private final ShardWriter writer;
    /** Whether the buffer is shared with other processes ({@link SharedTable}): then it is never initialised here. */
    private final boolean shared;
    /** The initial fill of new keys ({@link #fillNewKeys}); 0: they start full. */
    private volatile long newKeyLagNs;
    private int nextSweepShard;

    /**
     * A table keyed with a fresh 128-bit secret from {@link SecureRandom} (the production choice), whose
     * eviction clock is {@link SystemNanoClock}. Parameters as {@link #SlotTable(int, int, int, long, long, long,
     * NanoClock)}.
     *
     * @param shardCount    shards.
     * @param slotsPerShard slots per shard.
     * @param probeBound    most slots probed per lookup or insert.
     * @param idleGraceNs   the idle grace.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public SlotTable(final int shardCount, final int slotsPerShard, final int probeBound, final long idleGraceNs)
    {
        this(shardCount, slotsPerShard, probeBound, idleGraceNs, SystemNanoClock.INSTANCE);
    }

    /**
     * A table keyed with a fresh 128-bit secret from {@link SecureRandom} (the production choice). Parameters as
     * {@link #SlotTable(int, int, int, long, long, long, NanoClock)}.
     *
     * @param shardCount    shards.
     * @param slotsPerShard slots per shard.
     * @param probeBound    most slots probed per lookup or insert.
     * @param idleGraceNs   the idle grace.
     * @param evictionClock bounds the time eviction uses.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public SlotTable(
        final int shardCount, final int slotsPerShard, final int probeBound, final long idleGraceNs,
        final NanoClock evictionClock)
    {
        this(shardCount, slotsPerShard, probeBound, idleGraceNs, KeyHash.randomSecret(new SecureRandom()),
            evictionClock);
    }

    /**
     * A table with a <b>fixed 64-bit</b> seed, for tests and reproducible placement (the secret is
     * {@code (seed, seed)}), whose eviction clock is {@link SystemNanoClock}. Anyone who knows the seed can
     * choose keys that share a victim's cell or crowd one shard (see {@link KeyHash}); production tables use
     * {@link #SlotTable(int, int, int, long)}. Parameters as {@link #SlotTable(int, int, int, long, long, long,
     * NanoClock)}.
     *
     * @param shardCount    shards.
     * @param slotsPerShard slots per shard.
     * @param probeBound    most slots probed per lookup or insert.
     * @param idleGraceNs   the idle grace.
     * @param seed          the fixed seed.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public SlotTable(
        final int shardCount, final int slotsPerShard, final int probeBound, final long idleGraceNs, final long seed)
    {
        this(shardCount, slotsPerShard, probeBound, idleGraceNs, seed, SystemNanoClock.INSTANCE);
    }

    /**
     * A table with a <b>fixed 64-bit</b> seed (tests; the secret is {@code (seed, seed)}, see
     * {@link #SlotTable(int, int, int, long, long)}).
     *
     * @param shardCount    shards.
     * @param slotsPerShard slots per shard.
     * @param probeBound    most slots probed per lookup or insert.
     * @param idleGraceNs   the idle grace.
     * @param seed          the fixed seed.
     * @param evictionClock bounds the time eviction uses.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public SlotTable(
        final int shardCount, final int slotsPerShard, final int probeBound, final long idleGraceNs, final long seed,
        final NanoClock evictionClock)
    {
        this(shardCount, slotsPerShard, probeBound, idleGraceNs, seed, seed, evictionClock);
    }

    private SlotTable(
        final int shardCount, final int slotsPerShard, final int probeBound, final long idleGraceNs,
        final long[] secret, final NanoClock evictionClock)
    {
        this(shardCount, slotsPerShard, probeBound, idleGraceNs, secret[0], secret[1], evictionClock);
    }

    /**
     * A table with a <b>fixed</b> 128-bit key-hash secret {@code (secret0, secret1)} (SipHash's {@code k0, k1}).
     * Weakens the table against chosen keys unless the secret is itself random and kept secret (see
     * {@link KeyHash}).
     *
     * @param shardCount    shards, a power of two in [1, 2<sup>16</sup>].
     * @param slotsPerShard slots per shard, any count &ge; 1; total slots at most {@link TableLayout#MAX_SLOTS}
     *                      (133,693,407: 100 M keys at 75% load).
     * @param probeBound    most slots probed per lookup or insert, in [1, slotsPerShard].
     * @param idleGraceNs   a cell with TAT &le; now - idleGraceNs is idle, in [1, 2<sup>62</sup>].
     * @param secret0       the secret's first word.
     * @param secret1       the secret's second word.
     * @param evictionClock bounds the time eviction uses: min(caller's now, this clock); read on inserts and
     *                      sweeps only. Callers' times must be on this clock.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public SlotTable(
        final int shardCount, final int slotsPerShard, final int probeBound, final long idleGraceNs,
        final long secret0, final long secret1, final NanoClock evictionClock)
    {
        this(new TableGeometry(shardCount, slotsPerShard, probeBound, idleGraceNs), secret0, secret1, evictionClock,
            null, null, null);
    }

    /**
     * A table over a buffer other processes share ({@link SharedTable#over}), or (both null) over a buffer of its
     * own.
     */
    SlotTable(
        final TableGeometry geometry, final long secret0, final long secret1, final NanoClock evictionClock,
        final AtomicBuffer sharedBuffer, final ShardLock sharedLock, final SharedMarks sharedMarks)
    {
        super(secret0, secret1, geometry, null != sharedBuffer ? sharedBuffer : freshBuffer(geometry));
        if (null == evictionClock)
        {
            throw new IllegalArgumentException("evictionClock must not be null");
        }
        this.evictionClock = evictionClock;
        this.shared = null != sharedBuffer;
        if (shared)
        {
            buffer.verifyAlignment(); // a table already: its words are other processes' too
        }
        writer = new ShardWriter(index, sharedLock, sharedMarks);
        if (!shared)
        {
            buffer.putLongVolatile(TableLayout.shardHeaderOffset(0), 0); // the first shard's lock word
        }
    }

    /** @return a buffer of the geometry's length with every TAT word at {@link TableLayout#FRESH_SLOT_TAT_NS}. */
    private static AtomicBuffer freshBuffer(final TableGeometry geometry)
    {
        final int length = geometry.length();
        final AtomicBuffer buffer = CellArray.allocateBuffer(length, CellLayout.CELL_ALIGNMENT); // verifies alignment
        buffer.putLong(EMPTY_KEY_CELL_OFFSET + CellLayout.TAT_OFFSET, FRESH_SLOT_TAT_NS);
        buffer.putLong(TOMBSTONE_KEY_CELL_OFFSET + CellLayout.TAT_OFFSET, FRESH_SLOT_TAT_NS);
        buffer.putLong(OVERFLOW_CELL_OFFSET + CellLayout.TAT_OFFSET, FRESH_SLOT_TAT_NS);
        for (int shard = 0; shard < geometry.shardCount(); shard++)
        {
            buffer.putLong(TableLayout.shardHeaderOffset(shard) + RECLAIM_FLOOR_OFFSET, TableLayout.NO_HIGH_WATER_NS);
        }
        for (int slot = geometry.slotsOffset; slot < length; slot += SLOT_LENGTH)
        {
            buffer.putLong(slot + TAT_OFFSET, FRESH_SLOT_TAT_NS);
        }
        return buffer;
    }

    /**
     * Find the key's cell, inserting the key if absent (reusing a free, swept or idle slot on its probe
     * path). Lock-free if the key is present; takes the shard lock to insert.
     *
     * @param keyWord the key word.
     * @param nowNs   the caller's time (bounded by the clock, decides which cells are idle).
     * @return the offset of the cell's TAT word in {@link #buffer()}, or {@link #FULL} (counted).
     */
    int claimSlot(final long keyWord, final long nowNs)
    {
        final int found = findSlot(keyWord);
        return NO_CELL == found ? insertSlot(keyWord, nowNs) : found;
    }

    /**
     * {@link #claimSlot} for a key word {@link #findSlot} just missed (a reserved word is always found): the new
     * key starts at the initial fill ({@link #fillNewKeys}).
     */
    int insertSlot(final long keyWord, final long nowNs)
    {
        final long lagNs = newKeyLagNs;
        final long firstTatNs = 0 == lagNs ? FRESH_SLOT_TAT_NS : filledTatNs(nowNs, lagNs);
        return writer.insert(keyWord, -1L, geometry.shardOf(keyWord), geometry.home(keyWord), evictionNs(nowNs),
            firstTatNs);
    }

    /**
     * Classed tables: {@link #claimSlot} for a key word a classed lookup just missed, storing the key with its
     * class (the class field of the stored word is {@code classIndex + 1}); the new key starts full.
     *
     * @param keyWord    the key word.
     * @param classIndex the class, in [0, {@link #classCapacity()}).
     * @param nowNs      the caller's time.
     * @return the offset of the cell's TAT word (of the key's cell if another thread inserted it first, with
     * the class that thread stored), or {@link #FULL} (counted).
     */
    int insertClassedSlot(final long keyWord, final int classIndex, final long nowNs)
    {
        final long matchMask = index.matchMask(true);
        final long storedWord = (keyWord & matchMask) | ((long)(classIndex + 1) << SHARD_SHIFT);
        return writer.insert(storedWord, matchMask, geometry.shardOf(keyWord), geometry.home(keyWord),
            evictionNs(nowNs), FRESH_SLOT_TAT_NS);
    }

    private static long filledTatNs(final long nowNs, final long lagNs)
    {
        return Math.min(nowNs, Long.MAX_VALUE - lagNs) + lagNs; // saturates at Long.MAX_VALUE
    }

    /**
     * What a decision on the key at {@code nowNs} would start from, without inserting (lock-free): the TAT of
     * its cell, or, if it has none (or its slot is mid-reclaim), the word a new key would get at
     * {@code nowNs} under {@link #fillNewKeys} ({@link #STALE}, a full bucket, when new keys start full). A
     * peek reads this, so that it answers what an insert-and-charge at the same time would.
     *
     * @param keyWord the key word.
     * @param nowNs   the time of the peek.
     * @return the TAT to decide from.
     */
    public long peekTatNs(final long keyWord, final long nowNs)
    {
        final long tatNs = tatNs(keyWord);
        final long lagNs = newKeyLagNs;
        return STALE != tatNs || 0 == lagNs ? tatNs : filledTatNs(nowNs, lagNs);
    }

    /**
     * The initial fill of every key inserted from now on (construction time, before the table is published):
     * a new key's word starts at least at {@code nowNs + lagNs} of the request that inserts it, so that a
     * GCRA with ceiling {@code &tau; + T} has {@code (&tau; + T - lagNs) / T} permits left for it. Raising a
     * word is always safe for the table's ABA rules (only {@link #refund} lowers one). Keys whose word
     * is {@link TableLayout#EMPTY_KEY} or {@link TableLayout#TOMBSTONE_KEY} live in dedicated cells, never
     * inserted, and start full.
     *
     * @param lagNs the lag of a new key, in [0, {@link Gcra#MAX_CEILING_NS}]; 0 = full (default).
     */
    public void fillNewKeys(final long lagNs)
    {
        newKeyLagNs = requireRange("lagNs", lagNs, 0, Gcra.MAX_CEILING_NS);
    }

    /**
     * Turn up to {@code maxSlots} idle slots into tombstones, round-robin over the shards, for users who run
     * their own timer. Takes each shard's lock for at most 64 slots at a time. Any thread.
     *
     * @param nowNs    the time (same clock as the decisions; bounded by the table's clock).
     * @param maxSlots slots to visit, &ge; 0.
     * @return the number of idle keys reclaimed.
     */
    public int sweep(final long nowNs, final int maxSlots)
    {
        final long evictionNs = evictionNs(nowNs);
        int reclaimed = 0;
        int remaining = maxSlots;
        while (remaining > 0)
        {
            final int visit = Math.min(remaining, Math.min(SWEEP_CHUNK, geometry.slotsPerShard));
            reclaimed += writer.sweep(nextSweepShard++ & geometry.shardMask, visit, evictionNs);
            remaining -= visit;
        }
        return reclaimed;
    }

    /**
     * One GCRA decision on the shared overflow cell (table-full policy {@code OVERFLOW}), see
     * {@link AtomicGcra#acquire}.
     *
     * @param incrementNs {@code n * T}.
     * @param ceilingNs   {@code &tau; + T}.
     * @param nowNs       the time of the request.
     * @return as {@link AtomicGcra#acquire}.
     */
    public long chargeOverflow(final long incrementNs, final long ceilingNs, final long nowNs)
    {
        return AtomicGcra.acquire(buffer, OVERFLOW_CELL_OFFSET + CellLayout.TAT_OFFSET, incrementNs, ceilingNs, nowNs);
    }

    /**
     * The one place a word is lowered (see {@link SlotLoop#refund}): validated load, high-water mark, CAS.
     */
    boolean refund(final long keyWord, final long chargedNs, final long restoredNs)
    {
        final long lowNs = Math.max(restoredNs, FRESH_SLOT_TAT_NS);
        if (lowNs >= chargedNs)
        {
            return false;
        }
        final int tatOffset = findSlot(keyWord);
        if (NO_CELL == tatOffset || index.loadTat(tatOffset, keyWord) != chargedNs)
        {
            return false;
        }
        if (!SlotIndex.isDedicatedCell(tatOffset) && !writer.recordLowering(tatOffset - TAT_OFFSET, chargedNs))
        {
            return false;
        }
        return buffer.compareAndSetLong(tatOffset, chargedNs, lowNs);
    }

    /**
     * The bounded refund (see {@link SlotLoop#refundAtMost}): lower the key's word by at most
     * {@code decrementNs}, never below the floor {@code max(nowNs, reclaim floor of its shard + 1)}; validated
     * load, high-water mark, CAS, again if a decision or another refund changed the word meanwhile.
     *
     * @return the ns given back, in [0, decrementNs].
     */
    long refundBounded(final long keyWord, final long decrementNs, final long nowNs)
    {
        final int tatOffset = findSlot(keyWord);
        if (NO_CELL == tatOffset || decrementNs < 1)
        {
            return 0;
        }
        final long reclaimFloorNs = buffer.getLongAcquire(
            TableLayout.shardHeaderOffset(geometry.shardOf(keyWord)) + RECLAIM_FLOOR_OFFSET);
        final long floorNs = Math.max(Math.max(nowNs, reclaimFloorNs + 1), FRESH_SLOT_TAT_NS);
        while (true)
        {
            final long tatNs = index.loadTat(tatOffset, keyWord);
            if (STALE == tatNs || tatNs <= floorNs)
            {
                return 0; // the slot left the key (absent: a full bucket), or nothing above the floor to give
            }
            final long roomNs = tatNs - floorNs; // negative iff the true difference overflowed: more than any cost
            final long givenNs = roomNs < 0 ? decrementNs : Math.min(decrementNs, roomNs);
            if (!SlotIndex.isDedicatedCell(tatOffset) && !writer.recordLowering(tatOffset - TAT_OFFSET, tatNs))
            {
                return 0; // a shared table whose marks cannot be made: nothing is lowered
            }
            if (buffer.compareAndSetLong(tatOffset, tatNs, tatNs - givenNs))
            {
                return givenNs;
            }
        }
    }

    /**
     * @return the writer of this table's keys (package only: its shard lock, for the table's tests).
     */
    ShardWriter writer()
    {
        return writer;
    }

    /**
     * @return bytes of off-heap memory held: the table, plus the high-water marks once anything was refunded.
     */
    public long capacityBytes()
    {
        return (long)buffer.capacity() + writer.highWaterMarksLength();
    }

    /**
     * @return the clock that bounds the time eviction uses.
     */
    public NanoClock evictionClock()
    {
        return evictionClock;
    }

    private long evictionNs(final long nowNs)
    {
        return Math.min(nowNs, evictionClock.nanoTime());
    }
}
