package dev.cellrate.table;

import dev.cellrate.CellArray;
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

import java.security.SecureRandom;

import dev.cellrate.gcra.AtomicGcra;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;

/**
 * A fixed-capacity, sharded, off-heap table of one-word cells keyed by 64-bit key words, with TTL eviction
 * of idle cells. Layout: {@link TableLayout}. The keyed fronts ({@code KeyedRateLimiter}, {@code KeyedShaper},
 * {@code KeyedCompositeRateLimiter}) decide on it through one loop, {@link SlotLoop}, and lower a word only
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
 * only when both are &le; now - grace, and a reclaim restarts the word at max(X + 1, now - grace + 1), above
 * both: no value a paused decider of an earlier key can hold ever comes back, so its CAS fails. A refund never
 * lowers a word below a value its key held since its cell was claimed, so a key's word stays above every
 * value of the slot's earlier keys. The whole argument: {@code docs/keyed-table.md}, "ABA".
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

    /** {@link #tatNs} result: the key has no cell (internally: the slot left the key, or is mid-reclaim). */
    public static final long STALE = RECLAIMING;

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
        buffer = CellArray.allocateBuffer(length, TableLayout.ALIGNMENT);
        buffer.verifyAlignment();
        address = buffer.addressOffset();
        buffer.putLong(EMPTY_KEY_CELL_OFFSET + CELL_TAT_OFFSET, FRESH_TAT_NS);
        buffer.putLong(TOMBSTONE_KEY_CELL_OFFSET + CELL_TAT_OFFSET, FRESH_TAT_NS);
        buffer.putLong(OVERFLOW_CELL_OFFSET + CELL_TAT_OFFSET, FRESH_TAT_NS);
        for (int offset = slotsOffset + TAT_OFFSET; offset < length; offset += SLOT_LENGTH)
        {
            buffer.putLong(offset, FRESH_TAT_NS);
        }
        writer = new ShardWriter(buffer, slotsOffset, slotsPerShard, probeBound, idleGraceNs,
            shardCount * slotsPerShard);
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
        return found >= 0 ? found : insertSlot(keyWord, nowNs);
    }

    /**
     * {@link #claimSlot} for a key word {@link #findSlot} just missed (a reserved word is always found).
     */
    int insertSlot(final long keyWord, final long nowNs)
    {
        return writer.insert(keyWord, shardOf(keyWord), home(keyWord), evictionNs(nowNs));
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
            return EMPTY_KEY_CELL_OFFSET + CELL_TAT_OFFSET;
        }
        if (TOMBSTONE_KEY == keyWord)
        {
            return TOMBSTONE_KEY_CELL_OFFSET + CELL_TAT_OFFSET;
        }
        return find(keyWord, shardOf(keyWord), home(keyWord));
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

    /**
     * The second touch of a batch, once the home lines have arrived: if the key is not in its home line (it
     * spilled past a full bucket, about 13% of keys at the designed load, or it is absent or reserved), load
     * the next line of its probe, so that those misses overlap too instead of following one another in the
     * decision pass. Same contract as {@link #touch}: the value is a hint, consume it.
     *
     * @param keyWord the key word.
     * @return a word of the next line, or 0 if the key is in its home line.
     */
    public long touchSpill(final long keyWord)
    {
        if (0 != slotIn(keyWord))
        {
            return 0;
        }
        int index = home(keyWord) + BUCKET_SLOTS;
        if (index >= slotsPerShard)
        {
            index -= slotsPerShard;
        }
        return UnsafeApi.getLong(null, address + slotOffset(shardOf(keyWord), Math.min(index, slotsPerShard - 1)));
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
        final long k0 = UnsafeApi.getLong(null, line + KEY_OFFSET);
        final long k1 = UnsafeApi.getLong(null, line + SLOT_LENGTH + KEY_OFFSET);
        final long k2 = UnsafeApi.getLong(null, line + 2 * SLOT_LENGTH + KEY_OFFSET);
        final long k3 = UnsafeApi.getLong(null, line + 3 * SLOT_LENGTH + KEY_OFFSET);
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
     * Count a CAS a decision lost on the slot at {@code slotAddress} (from {@link #slotIn}) as a retry of its
     * shard.
     */
    void countCasRetry(final long slotAddress)
    {
        buffer.getAndAddLong(headerOf((int)(slotAddress - address) + TAT_OFFSET) + CAS_RETRIES_OFFSET, 1);
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
        return tatOffset < 0 ? STALE : loadTat(tatOffset, keyWord);
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
        if (tatOffset < 0)
        {
            return -1;
        }
        return tatOffset < slotsOffset ? -2 : (tatOffset - TAT_OFFSET - slotsOffset) / SLOT_LENGTH;
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
        return AtomicGcra.acquire(buffer, OVERFLOW_CELL_OFFSET + CELL_TAT_OFFSET, incrementNs, ceilingNs, nowNs);
    }

    /**
     * @return the TAT of the shared overflow cell.
     */
    public long overflowTatNs()
    {
        return buffer.getLongAcquire(OVERFLOW_CELL_OFFSET + CELL_TAT_OFFSET);
    }

    /**
     * The one place a word is lowered (see {@link SlotLoop#refund}): validated load, high-water mark, CAS.
     */
    boolean refund(final long keyWord, final long chargedNs, final long restoredNs)
    {
        final long lowNs = Math.max(restoredNs, FRESH_TAT_NS);
        if (lowNs >= chargedNs)
        {
            return false;
        }
        final int tatOffset = findSlot(keyWord);
        if (tatOffset < 0 || loadTat(tatOffset, keyWord) != chargedNs)
        {
            return false;
        }
        if (tatOffset >= slotsOffset)
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
        for (int offset = slotsOffset + KEY_OFFSET; offset < end; offset += SLOT_LENGTH)
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
