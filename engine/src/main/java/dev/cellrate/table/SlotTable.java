package dev.cellrate.table;

import dev.cellrate.layout.CellArray;
import static dev.cellrate.check.Bounds.requireRange;

import static dev.cellrate.table.TableLayout.CAS_RETRIES_OFFSET;
import static dev.cellrate.table.TableLayout.EMPTY_KEY;
import static dev.cellrate.table.TableLayout.EMPTY_KEY_CELL_OFFSET;
import static dev.cellrate.table.TableLayout.EVICTIONS_OFFSET;
import static dev.cellrate.table.TableLayout.FRESH_SLOT_TAT_NS;
import static dev.cellrate.table.TableLayout.LIVE_KEYS_OFFSET;
import static dev.cellrate.table.TableLayout.OVERFLOW_CELL_OFFSET;
import static dev.cellrate.table.TableLayout.RECLAIMING;
import static dev.cellrate.table.TableLayout.SHARD_SHIFT;
import static dev.cellrate.table.TableLayout.SLOT_LENGTH;
import static dev.cellrate.table.TableLayout.TABLE_FULL_OFFSET;
import static dev.cellrate.table.TableLayout.TAT_OFFSET;
import static dev.cellrate.table.TableLayout.TOMBSTONE_KEY;
import static dev.cellrate.table.TableLayout.TOMBSTONE_KEY_CELL_OFFSET;

import java.security.SecureRandom;

import dev.cellrate.gcra.AtomicGcra;
import dev.cellrate.layout.CellLayout;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
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
 * cell. Lookups compare the other bits ({@link #findClassedSlot}). The slot stays 16 bytes and a decision reads
 * the class from the word it validates its TAT against ({@link #classedWordAt} then {@link #loadTat} with that
 * word), so a TAT is only ever decided under the class stored with it: a reclaimed slot carries its new key's
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
public final class SlotTable
{
    /** {@link #claimSlot} result: no present, free or idle slot within the probe bound. */
    static final int FULL = -2;

    /** {@link #findSlot} and {@link #findClassedSlot} result: the key has no cell. */
    static final int NO_CELL = -1;

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

    /**
     * Slots per bucket: one 64-byte cache line of four 16-byte slots. A key's home is the first slot of a
     * bucket (a multiply-shift of its low 32 bits onto the shard's buckets), and inserts take the first free
     * slot from there, so a present key is in its home line unless that line was full when it arrived
     * (at the designed 75% load about 13% of keys; linear probing from any slot put 22% across a line).
     */
    static final int BUCKET_SLOTS = 4;

    private final AtomicBuffer buffer;
    /**
     * Address of byte 0 of the buffer: the decision path (find, validated load, CAS) reads and CASes raw
     * addresses. Every offset it uses comes from this table's own arithmetic (package-private methods), so it
     * skips the buffer's bounds checks, its interface type check and the reload of its fields after every
     * acquire load (what the generated code showed, see docs/benchmarks.md, "Where the time goes").
     */
    private final long address;
    private final int shardMask;
    /** The shard bits of a key word: in a classed table's stored words they hold the class (see "Classes"). */
    private final long classFieldMask;
    private final int slotsPerShard;
    private final int probeBound;
    /** Buckets per shard ({@code slotsPerShard / BUCKET_SLOTS}, at least 1): the range of the home reduction. */
    private final int buckets;
    /** Whether a home bucket lies inside its shard (slotsPerShard &ge; 4): the one-line scan of {@link #slotIn}. */
    private final boolean bucketScan;
    private final int slotsOffset;
    private final long idleGraceNs;
    private final long secret0;
    private final long secret1;
    private final long seed;
    private final NanoClock evictionClock;
    private final ShardWriter writer;
    /** Whether the buffer is shared with other processes ({@link SharedTable}): then no word is ever lowered. */
    private final boolean shared;
    /** The initial fill of new keys ({@link #fillNewKeys}); 0: they start full. */
    private volatile long newKeyLagNs;
    private int nextSweepShard;

    /**
     * A table keyed with a fresh 128-bit secret from {@link SecureRandom} (the production choice), whose
     * eviction clock is {@link SystemNanoClock}.
     *
     * @param shardCount    shards, a power of two in [1, 2<sup>16</sup>].
     * @param slotsPerShard slots per shard, any count &ge; 1; total slots at most {@link TableLayout#MAX_SLOTS}
     *                      (133,693,407: 100 M keys at 75% load).
     * @param probeBound    most slots probed per lookup or insert, in [1, slotsPerShard].
     * @param idleGraceNs   a cell with TAT &le; now - idleGraceNs is idle, in [1, 2<sup>62</sup>].
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public SlotTable(final int shardCount, final int slotsPerShard, final int probeBound, final long idleGraceNs)
    {
        this(shardCount, slotsPerShard, probeBound, idleGraceNs, SystemNanoClock.INSTANCE);
    }

    /**
     * A table keyed with a fresh 128-bit secret from {@link SecureRandom} (the production choice).
     *
     * @param shardCount    shards, a power of two in [1, 2<sup>16</sup>].
     * @param slotsPerShard slots per shard, a power of two; total slots at most 2<sup>26</sup>.
     * @param probeBound    most slots probed per lookup or insert, in [1, slotsPerShard].
     * @param idleGraceNs   a cell with TAT &le; now - idleGraceNs is idle, in [1, 2<sup>62</sup>].
     * @param evictionClock bounds the time eviction uses (see {@link #SlotTable(int, int, int, long, long, long,
     *                      NanoClock)}).
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
     * {@link #SlotTable(int, int, int, long)}.
     *
     * @param shardCount    shards, a power of two in [1, 2<sup>16</sup>].
     * @param slotsPerShard slots per shard, a power of two; total slots at most 2<sup>26</sup>.
     * @param probeBound    most slots probed per lookup or insert, in [1, slotsPerShard].
     * @param idleGraceNs   a cell with TAT &le; now - idleGraceNs is idle, in [1, 2<sup>62</sup>].
     * @param seed          the fixed seed.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public SlotTable(
        final int shardCount, final int slotsPerShard, final int probeBound, final long idleGraceNs, final long seed)
    {
        this(shardCount, slotsPerShard, probeBound, idleGraceNs, seed, seed, SystemNanoClock.INSTANCE);
    }

    /**
     * A table with a <b>fixed 64-bit</b> seed (tests; the secret is {@code (seed, seed)}, see
     * {@link #SlotTable(int, int, int, long, long)}).
     *
     * @param shardCount    shards, a power of two in [1, 2<sup>16</sup>].
     * @param slotsPerShard slots per shard, any count &ge; 1; total slots at most {@link TableLayout#MAX_SLOTS}
     *                      (133,693,407: 100 M keys at 75% load).
     * @param probeBound    most slots probed per lookup or insert, in [1, slotsPerShard].
     * @param idleGraceNs   a cell with TAT &le; now - idleGraceNs is idle, in [1, 2<sup>62</sup>].
     * @param seed          the fixed seed.
     * @param evictionClock bounds the time eviction uses.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public SlotTable(
        final int shardCount,
        final int slotsPerShard,
        final int probeBound,
        final long idleGraceNs,
        final long seed,
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
     * @param slotsPerShard slots per shard, a power of two; total slots at most 2<sup>26</sup>.
     * @param probeBound    most slots probed per lookup or insert, in [1, slotsPerShard].
     * @param idleGraceNs   a cell with TAT &le; now - idleGraceNs is idle, in [1, 2<sup>62</sup>].
     * @param secret0       the secret's first word.
     * @param secret1       the secret's second word.
     * @param evictionClock bounds the time eviction uses: min(caller's now, this clock); read on inserts and
     *                      sweeps only. Callers' times must be on this clock.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public SlotTable(
        final int shardCount,
        final int slotsPerShard,
        final int probeBound,
        final long idleGraceNs,
        final long secret0,
        final long secret1,
        final NanoClock evictionClock)
    {
        this(shardCount, slotsPerShard, probeBound, idleGraceNs, secret0, secret1, evictionClock, null, null);
    }

    /**
     * A table over a buffer other processes share ({@link SharedTable#over}), or (both null) over a buffer of its
     * own.
     */
    SlotTable(
        final int shardCount,
        final int slotsPerShard,
        final int probeBound,
        final long idleGraceNs,
        final long secret0,
        final long secret1,
        final NanoClock evictionClock,
        final AtomicBuffer sharedBuffer,
        final ShardLock sharedLock)
    {
        if (null == evictionClock)
        {
            throw new IllegalArgumentException("evictionClock must not be null");
        }
        this.evictionClock = evictionClock;
        requirePowerOfTwo("shardCount", shardCount, TableLayout.MAX_SHARDS);
        requireRange("slotsPerShard", slotsPerShard, 1, TableLayout.MAX_SLOTS / shardCount);
        requireRange("probeBound", probeBound, 1, slotsPerShard);
        requireRange("idleGraceNs", idleGraceNs, 1, 1L << 62);
        this.shardMask = shardCount - 1;
        this.classFieldMask = (long)shardMask << SHARD_SHIFT;
        this.slotsPerShard = slotsPerShard;
        this.probeBound = probeBound;
        this.buckets = Math.max(1, slotsPerShard / BUCKET_SLOTS);
        this.bucketScan = slotsPerShard >= BUCKET_SLOTS;
        this.idleGraceNs = idleGraceNs;
        this.secret0 = secret0;
        this.secret1 = secret1;
        this.seed = KeyHash.longKeySeed(secret0, secret1);
        this.slotsOffset = TableLayout.slotsOffset(shardCount);
        final int length = TableLayout.length(shardCount, shardCount * slotsPerShard);
        this.shared = null != sharedBuffer;
        if (shared)
        {
            buffer = sharedBuffer; // a table already: its words are other processes' too
            buffer.verifyAlignment();
        }
        else
        {
            buffer = CellArray.allocateBuffer(length, CellLayout.CELL_ALIGNMENT); // verifies its alignment
            buffer.putLong(EMPTY_KEY_CELL_OFFSET + CellLayout.TAT_OFFSET, FRESH_SLOT_TAT_NS);
            buffer.putLong(TOMBSTONE_KEY_CELL_OFFSET + CellLayout.TAT_OFFSET, FRESH_SLOT_TAT_NS);
            buffer.putLong(OVERFLOW_CELL_OFFSET + CellLayout.TAT_OFFSET, FRESH_SLOT_TAT_NS);
            for (int slot = slotsOffset; slot < length; slot += SLOT_LENGTH)
            {
                buffer.putLong(slot + TAT_OFFSET, FRESH_SLOT_TAT_NS);
            }
        }
        address = buffer.addressOffset();
        writer = new ShardWriter(buffer, slotsOffset, slotsPerShard, probeBound, idleGraceNs,
            shardCount * slotsPerShard, sharedLock);
        if (!shared)
        {
            buffer.putLongVolatile(TableLayout.shardHeaderOffset(0), 0); // the first shard's lock word
        }
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
     * @return its key word (SipHash-2-4 under the table secret, see {@link KeyHash#hashCharSequence}).
     */
    public long keyWord(final CharSequence key)
    {
        return KeyHash.hashCharSequence(key, secret0, secret1);
    }

    /**
     * @param key    bytes.
     * @param offset first byte.
     * @param length byte count.
     * @return its key word (SipHash-2-4 under the table secret, see {@link KeyHash#hashBytes}).
     * @throws IndexOutOfBoundsException if the range is not inside the array (a negative length included).
     */
    public long keyWord(final byte[] key, final int offset, final int length)
    {
        return KeyHash.hashBytes(key, offset, length, secret0, secret1);
    }

    /**
     * @param key    buffer.
     * @param offset first byte.
     * @param length byte count.
     * @return its key word (SipHash-2-4 under the table secret, see {@link KeyHash#hashBuffer}).
     * @throws IndexOutOfBoundsException if the range is not inside the buffer (a negative length included).
     */
    public long keyWord(final DirectBuffer key, final int offset, final int length)
    {
        return KeyHash.hashBuffer(key, offset, length, secret0, secret1);
    }

    /**
     * The key words of a batch of byte keys held in one array: key i is
     * {@code keys[offsets[i] .. offsets[i] + lengths[i])}; every range is checked before it is read.
     *
     * @param keys     the array.
     * @param offsets  first byte of each key.
     * @param lengths  byte count of each key.
     * @param count    how many keys (the caller checked it fits {@code offsets}, {@code lengths}, {@code wordsOut}).
     * @param wordsOut receives {@link #keyWord(byte[], int, int)} of key i at index i.
     * @throws IndexOutOfBoundsException if a key's range is not inside the array.
     */
    public void keyWords(
        final byte[] keys, final int[] offsets, final int[] lengths, final int count, final long[] wordsOut)
    {
        keyWords(keys, BufferUtil.ARRAY_BASE_OFFSET, keys.length, offsets, lengths, count, wordsOut);
    }

    /**
     * As {@link #keyWords(byte[], int[], int[], int, long[])} for keys in a buffer.
     *
     * @param keys     the buffer.
     * @param offsets  first byte of each key.
     * @param lengths  byte count of each key.
     * @param count    how many keys (the caller checked it fits {@code offsets}, {@code lengths}, {@code wordsOut}).
     * @param wordsOut receives {@link #keyWord(DirectBuffer, int, int)} of key i at index i.
     * @throws IndexOutOfBoundsException if a key's range is not inside {@code [0, capacity)}.
     */
    public void keyWords(
        final DirectBuffer keys, final int[] offsets, final int[] lengths, final int count, final long[] wordsOut)
    {
        keyWords(keys.byteArray(), keys.addressOffset(), keys.capacity(), offsets, lengths, count, wordsOut);
    }

    private void keyWords(
        final Object base, final long address, final int capacity, final int[] offsets, final int[] lengths,
        final int count, final long[] wordsOut)
    {
        for (int i = 0; i < count; i++)
        {
            wordsOut[i] = KeyHash.hashRange(base, address, capacity, offsets[i], lengths[i], secret0, secret1);
        }
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
     * {@link #claimSlot} for a key word {@link #findSlot} just missed (a reserved word is always found).
     */
    int insertSlot(final long keyWord, final long nowNs)
    {
        final long lagNs = newKeyLagNs;
        final long firstTatNs = 0 == lagNs ? FRESH_SLOT_TAT_NS : filledTatNs(nowNs, lagNs);
        return writer.insert(keyWord, shardOf(keyWord), home(keyWord), evictionNs(nowNs), firstTatNs);
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
     * word is always safe for the table's ABA rules (only {@link SlotLoop#refund} lowers one). Keys whose word
     * is {@link TableLayout#EMPTY_KEY} or {@link TableLayout#TOMBSTONE_KEY} live in dedicated cells, never
     * inserted, and start full.
     *
     * @param lagNs the lag of a new key, in [0, {@link dev.cellrate.Limit#MAX_CEILING_NS}]; 0 = full (default).
     */
    public void fillNewKeys(final long lagNs)
    {
        newKeyLagNs = requireRange("lagNs", lagNs, 0, dev.cellrate.Limit.MAX_CEILING_NS);
    }

    /**
     * Find the key's cell without inserting (lock-free).
     *
     * @param keyWord the key word.
     * @return the offset of the cell's TAT word, or -1 if the key has no cell.
     */
    int findSlot(final long keyWord)
    {
        if (EMPTY_KEY == keyWord)
        {
            return EMPTY_KEY_CELL_OFFSET + CellLayout.TAT_OFFSET;
        }
        if (TOMBSTONE_KEY == keyWord)
        {
            return TOMBSTONE_KEY_CELL_OFFSET + CellLayout.TAT_OFFSET;
        }
        return find(keyWord, shardOf(keyWord), home(keyWord));
    }

    /**
     * @return how many limit classes a classed front may use on this table: shardCount - 2 (the class is
     * stored as {@code class + 1} in the shard bits, avoiding all-zero and all-one), at most
     * {@link #MAX_CLASSES}; 0 below 4 shards.
     */
    public int classCapacity()
    {
        return Math.max(0, Math.min(MAX_CLASSES, shardMask - 1));
    }

    /**
     * Classed tables: find the key's cell, whatever its class (lock-free). A slot matches when its word equals
     * the key word outside the shard bits and is neither EMPTY nor TOMBSTONE.
     *
     * @param keyWord the key word.
     * @return the offset of the cell's TAT word, or -1 if the key has no cell.
     */
    int findClassedSlot(final long keyWord)
    {
        final int shard = shardOf(keyWord);
        final int home = home(keyWord);
        final long matchMask = ~classFieldMask;
        for (int probe = 0; probe != probeBound; probe++)
        {
            final int slot = probeSlot(shard, home, probe);
            final long key = UnsafeApi.getLongAcquire(null, address + slot);
            if (EMPTY_KEY == key)
            {
                return NO_CELL;
            }
            if (TOMBSTONE_KEY != key && ((key ^ keyWord) & matchMask) == 0)
            {
                return slot + TAT_OFFSET;
            }
        }
        return NO_CELL;
    }

    /**
     * Classed tables: the stored word of the cell at {@code tatOffset} (acquire), if it still belongs to the
     * key; the class is {@link #classOfStoredWord} of it, and the TAT must be loaded with {@link #loadTat}
     * against this word, which validates key and class together.
     *
     * @param tatOffset from {@link #findClassedSlot} or {@link #insertClassedSlot}.
     * @param keyWord   the key word.
     * @return the stored word, or {@link TableLayout#EMPTY_KEY} if the slot no longer holds the key.
     */
    long classedWordAt(final int tatOffset, final long keyWord)
    {
        final long key = UnsafeApi.getLongAcquire(null, address + tatOffset - TAT_OFFSET);
        return TOMBSTONE_KEY != key && ((key ^ keyWord) & ~classFieldMask) == 0 ? key : EMPTY_KEY;
    }

    /**
     * Classed tables: {@link #claimSlot} for a key word {@link #findClassedSlot} just missed, storing the key
     * with its class.
     *
     * @param keyWord    the key word.
     * @param classIndex the class, in [0, {@link #classCapacity()}).
     * @param nowNs      the caller's time.
     * @return the offset of the cell's TAT word (of the key's cell if another thread inserted it first, with
     * the class that thread stored), or {@link #FULL} (counted).
     */
    int insertClassedSlot(final long keyWord, final int classIndex, final long nowNs)
    {
        final int shard = shardOf(keyWord);
        final int home = home(keyWord);
        final long storedWord = (keyWord & ~classFieldMask) | ((long)(classIndex + 1) << SHARD_SHIFT);
        return writer.insert(storedWord, ~classFieldMask, shard, home, evictionNs(nowNs), FRESH_SLOT_TAT_NS);
    }

    /**
     * @param storedWord a word returned by {@link #classedWordAt}.
     * @return its class.
     */
    int classOfStoredWord(final long storedWord)
    {
        return (int)((storedWord >>> SHARD_SHIFT) & shardMask) - 1;
    }

    /**
     * Classed tables, read-only (tests, diagnostics).
     *
     * @param keyWord the key word.
     * @return the class stored with the key's cell, or -1 if the key has no cell.
     */
    public int classOf(final long keyWord)
    {
        final int tatOffset = findClassedSlot(keyWord);
        if (NO_CELL == tatOffset)
        {
            return -1;
        }
        // A slot that left the key meanwhile reads EMPTY_KEY, whose class field gives -1.
        return classOfStoredWord(classedWordAt(tatOffset, keyWord));
    }

    /**
     * Classed tables, read-only (tests, diagnostics).
     *
     * @param keyWord the key word.
     * @return the TAT of the key's cell, or {@link #STALE} if it has none.
     */
    public long classedTatNs(final long keyWord)
    {
        final int tatOffset = findClassedSlot(keyWord);
        if (NO_CELL == tatOffset)
        {
            return STALE;
        }
        // A slot that left the key meanwhile reads EMPTY_KEY, which no slot's key word is again: STALE.
        return loadTat(tatOffset, classedWordAt(tatOffset, keyWord));
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
        return UnsafeApi.getLong(null, homeLine(keyWord));
    }

    /** @return the address of the key's home slot: the first slot of its bucket, one cache line. */
    long homeLine(final long keyWord)
    {
        return address + slotOffset(shardOf(keyWord), home(keyWord));
    }

    /**
     * The decision path's lookup of a present key: the address of the key's slot if it is in its home bucket
     * (the one cache line a decision touches), else 0, and then the caller goes the general way
     * ({@link #findSlot}: a reserved word, a key that spilled past its home line, an absent key, a shard
     * smaller than a bucket). The four key words are read plain and compared without any branch;
     * the hit is only a candidate until the caller's validated load (the TAT, acquire, then the key again,
     * acquire) confirms it, as after {@link #findSlot}. A key word is in at most one slot, so a hit anywhere
     * in the line is the key's slot.
     *
     * @param keyWord the key word.
     * @return the slot's address (its key word; the TAT is at {@code + TAT_OFFSET}), or 0.
     */
    long slotIn(final long keyWord)
    {
        if (!bucketScan || (keyWord + 1 >>> 1) == 0)
        {
            return 0; // a shard smaller than a bucket, or EMPTY_KEY / TOMBSTONE_KEY (their own cells)
        }
        final long line = homeLine(keyWord);
        final long k0 = UnsafeApi.getLong(null, line);
        final long k1 = UnsafeApi.getLong(null, line + SLOT_LENGTH);
        final long k2 = UnsafeApi.getLong(null, line + 2 * SLOT_LENGTH);
        final long k3 = UnsafeApi.getLong(null, line + 3 * SLOT_LENGTH);
        // No branch on which slot matched: a branch that depends on the line that just missed is mispredicted
        // about every other decision (the match is at any of the four slots), and the flush also throws away
        // the next decision's load that the core had already started, so misses stop overlapping (the
        // random-CAS baseline has no such branch). At most one slot matches: the OR is that slot, or 0.
        return (line & matches(k0, keyWord)) | ((line + SLOT_LENGTH) & matches(k1, keyWord)) |
            ((line + 2 * SLOT_LENGTH) & matches(k2, keyWord)) | ((line + 3 * SLOT_LENGTH) & matches(k3, keyWord));
    }

    /**
     * @return all ones if {@code a == b}, else 0, without a branch: with x = a ^ b, {@code (x - 1) & ~x} has its
     * sign bit set iff x == 0.
     */
    private static long matches(final long a, final long b)
    {
        final long x = a ^ b;
        return ((x - 1) & ~x) >> 63;
    }

    /**
     * Count a CAS a decision lost on the key's slot from {@link #slotIn} as a retry of the slot's shard, which
     * is the key's (the home line is in the key's shard).
     */
    void countCasRetry(final long keyWord)
    {
        buffer.getAndAddLong(TableLayout.shardHeaderOffset(shardOf(keyWord)) + CAS_RETRIES_OFFSET, 1);
    }

    /**
     * Validated load: the TAT (acquire), then the key again (acquire).
     *
     * @param tatOffset from {@link #claimSlot}.
     * @param keyWord   the key word it was claimed for.
     * @return the TAT, or {@link #STALE} if the slot no longer belongs to the key or is mid-reclaim.
     */
    long loadTat(final int tatOffset, final long keyWord)
    {
        final long tatAddress = address + tatOffset;
        final long tatNs = UnsafeApi.getLongAcquire(null, tatAddress);
        if (isDedicatedCell(tatOffset))
        {
            return tatNs;
        }
        if (RECLAIMING == tatNs || UnsafeApi.getLongAcquire(null, tatAddress - TAT_OFFSET) != keyWord)
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
            final int visit = Math.min(remaining, Math.min(SWEEP_CHUNK, slotsPerShard));
            reclaimed += writer.sweep(nextSweepShard++ & shardMask, visit, evictionNs);
            remaining -= visit;
        }
        return reclaimed;
    }

    /**
     * The key's TAT, read-only (tests, diagnostics).
     *
     * @param keyWord the key word.
     * @return the TAT of the key's cell, or {@link #STALE} if the key has no cell (or it is mid-reclaim).
     */
    public long tatNs(final long keyWord)
    {
        final int tatOffset = findSlot(keyWord);
        return NO_CELL == tatOffset ? STALE : loadTat(tatOffset, keyWord);
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
        if (NO_CELL == tatOffset)
        {
            return -1;
        }
        return isDedicatedCell(tatOffset) ? -2 : (tatOffset - TAT_OFFSET - slotsOffset) / SLOT_LENGTH;
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
     * @return the TAT of the shared overflow cell.
     */
    public long overflowTatNs()
    {
        return buffer.getLongAcquire(OVERFLOW_CELL_OFFSET + CellLayout.TAT_OFFSET);
    }

    /**
     * The one place a word is lowered (see {@link SlotLoop#refund}): validated load, high-water mark, CAS.
     */
    boolean refund(final long keyWord, final long chargedNs, final long restoredNs)
    {
        final long lowNs = Math.max(restoredNs, FRESH_SLOT_TAT_NS);
        if (lowNs >= chargedNs || shared)
        {
            return false;
        }
        final int tatOffset = findSlot(keyWord);
        if (NO_CELL == tatOffset || loadTat(tatOffset, keyWord) != chargedNs)
        {
            return false;
        }
        if (!isDedicatedCell(tatOffset))
        {
            writer.recordLowering(tatOffset - TAT_OFFSET, chargedNs);
        }
        return buffer.compareAndSetLong(tatOffset, chargedNs, lowNs);
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
     * @return the buffer holding the table (package only: offsets into it are never taken from callers).
     */
    AtomicBuffer buffer()
    {
        return buffer;
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
     * @return the seed of the long-key mixer ({@link KeyHash#longKeySeed} of the secret: it reveals nothing of
     * the secret that keys the byte hash, which has no getter).
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
        for (int offset = slotsOffset; offset < end; offset += SLOT_LENGTH)
        {
            if (buffer.getLongAcquire(offset) == keyWord)
            {
                count++;
            }
        }
        return count;
    }

    private long evictionNs(final long nowNs)
    {
        return Math.min(nowNs, evictionClock.nanoTime());
    }

    private int find(final long keyWord, final int shard, final int home)
    {
        for (int probe = 0; probe != probeBound; probe++)
        {
            final int slot = probeSlot(shard, home, probe);
            final long key = UnsafeApi.getLongAcquire(null, address + slot);
            if (key == keyWord)
            {
                return slot + TAT_OFFSET;
            }
            if (EMPTY_KEY == key)
            {
                return NO_CELL;
            }
        }
        return NO_CELL;
    }

    private int shardOf(final long keyWord)
    {
        return (int)(keyWord >>> SHARD_SHIFT) & shardMask;
    }

    /** The key's home slot in its shard: the first slot of its bucket (see {@link #BUCKET_SLOTS}). */
    private int home(final long keyWord)
    {
        return TableLayout.homeIndex(keyWord, buckets) * BUCKET_SLOTS;
    }

    private int slotOffset(final int shard, final int index)
    {
        return TableLayout.slotOffset(slotsOffset, slotsPerShard, shard, index);
    }

    /**
     * The probe sequence of {@link #find} and {@link #findClassedSlot}, written once: linear from the home slot,
     * wrapping inside the shard. A few bytecodes of a private method: inlined into both loops.
     */
    private int probeSlot(final int shard, final int home, final int probe)
    {
        int index = home + probe;
        if (index >= slotsPerShard)
        {
            index -= slotsPerShard;
        }
        return slotOffset(shard, index);
    }

    /**
     * Whether a TAT offset (from {@link #findSlot}) is one of the two dedicated cells' rather than a slot's: a
     * dedicated cell's TAT is at offset 0 of a cell-aligned cell ({@link CellLayout#TAT_OFFSET}), a slot's at
     * {@link TableLayout#TAT_OFFSET} (8) of a 16-byte slot in a 16-aligned array, so bit 3 tells them apart.
     */
    private static boolean isDedicatedCell(final int tatOffset)
    {
        return 0 == (tatOffset & TAT_OFFSET);
    }

    private int headerOf(final int tatOffset)
    {
        final int shard = isDedicatedCell(tatOffset) ? 0 : ((tatOffset - slotsOffset) / SLOT_LENGTH) / slotsPerShard;
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
