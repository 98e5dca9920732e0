package dev.cellrate.bench;

import dev.cellrate.table.SlotTable;
import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import dev.cellrate.KeyedRateLimiterBuilder;

import static dev.cellrate.KeyedRateLimiterBuilder.DESIGNED_LOAD_PERCENT;

/**
 * The floor of any keyed limiter: hash the key, then one acquire read and one CAS on a 16-byte slot of an
 * off-heap array of the same footprint as cellrate's table for the key count (the slot count of
 * {@code KeyedRateLimiter.builder(limit).expectedKeys(keys)}: keys / 0.75 rounded up to a multiple of the shard
 * count, and per shard to a multiple of 4) and the same multiply-shift reduction of the hash onto it. No probing,
 * no key check, no bounds check, no decision: just the random memory access and the atomic write.
 * Long keys hash with a 64-bit finaliser ({@link #mix}); string and byte keys with cellrate's own seeded hash of
 * their bytes ({@link HashOnlyTarget#hasher()}), so those rows are the hash-then-random-CAS floor of a hashed key.
 * <p>
 * {@link #casBatch} is the floor of a batch: the same random CASes, but every slot is touched by a plain load
 * first, so that the cache misses of the batch overlap (memory-level parallelism) before the CASes, each a full
 * fence on x86, run one after another on lines already on their way; {@link #casEach} is the same CASes one key
 * at a time, the floor of one call per key.
 */
final class RandomCasTarget extends KeyedTarget
{
    /** Bytes per slot: [key word][TAT word], as in the table. */
    static final int SLOT_LENGTH = 16;

    /** Offset of the word the baseline CASes inside a slot. */
    static final int TAT_OFFSET = 8;

    private static final long TOUCH_SENTINEL = 0x5EED_0F_7007_CA5EL;

    /** Written only if the loads of {@link #casBatch} sum to {@link #TOUCH_SENTINEL}: keeps them alive. */
    long touchSink;

    private final AtomicBuffer buffer;
    private final long address;
    private final long slots;
    private final SlotTable hasher = HashOnlyTarget.hasher();

    /**
     * @param keyCount keys the array is sized for (as cellrate's table).
     */
    RandomCasTarget(final int keyCount)
    {
        final int slots = slotsFor(keyCount);
        buffer = new UnsafeBuffer(BufferUtil.allocateDirectAligned(slots * SLOT_LENGTH, 64));
        address = buffer.addressOffset();
        this.slots = slots;
    }

    /**
     * @param keyCount expected keys.
     * @return the slot count {@code KeyedRateLimiterBuilder.expectedKeys(keyCount)} chooses (PeersTest checks).
     */
    static int slotsFor(final int keyCount)
    {
        final int shards = shardsFor(keyCount);
        final int perShard = (rawSlots(keyCount) + shards - 1) / shards;
        return (perShard >= 4 ? (perShard + 3) & ~3 : perShard) * shards;
    }

    /**
     * @param keyCount expected keys.
     * @return the shard count {@code expectedKeys(keyCount)} gets with the default shard count.
     */
    static int shardsFor(final int keyCount)
    {
        return Math.max(1, Math.min(KeyedRateLimiterBuilder.DEFAULT_SHARD_COUNT,
            Integer.highestOneBit(rawSlots(keyCount)) / KeyedRateLimiterBuilder.DEFAULT_PROBE_BOUND));
    }

    private static int rawSlots(final int keyCount)
    {
        return (int)(((long)keyCount * 100 + DESIGNED_LOAD_PERCENT - 1) / DESIGNED_LOAD_PERCENT);
    }

    @Override
    long offHeapAddress()
    {
        return address();
    }

    /** @return the address of byte 0 of the array (for {@link Smaps}). */
    long address()
    {
        return buffer.addressOffset();
    }

    @Override
    boolean wantsBoxedKeys()
    {
        return false;
    }

    @Override
    long offHeapBytes()
    {
        return buffer.capacity();
    }

    @Override
    long decideLong(final long key, final Long boxedKey, final long nowNs)
    {
        return cas(mix(key), nowNs);
    }

    @Override
    long decideString(final String key, final long nowNs)
    {
        return cas(hasher.keyWord(key), nowNs);
    }

    /** Byte keys: cellrate's own seeded hash of the bytes, then the CAS (the floor of a hashed byte key). */
    @Override
    long decideBytes(final byte[] bytes, final int offset, final int length, final long nowNs)
    {
        return cas(hasher.keyWord(bytes, offset, length), nowNs);
    }

    /**
     * The floor of one call per key: {@link #decideLong} for {@code keys[0 .. count)}, in order.
     *
     * @param keys  the keys.
     * @param count how many.
     * @param nowNs the caller's time.
     * @return the OR of the codes (0 if every CAS won).
     */
    long casEach(final long[] keys, final int count, final long nowNs)
    {
        long codes = 0;
        for (int i = 0; i < count; i++)
        {
            codes |= cas(mix(keys[i]), nowNs);
        }
        return codes;
    }

    /**
     * The memory-level-parallelism floor of a batch: the same CASes as {@link #casEach}, in three passes. First
     * every key's slot address (hash and reduction, no memory touched), then one plain load of every slot, all
     * independent of each other (a tight loop, so all of a batch's loads fit in the core's reorder window and
     * their misses overlap), then the read-then-CAS of every slot in order. The loaded values are summed and
     * compared with a constant (kept in a field in the unlikely case it matches), never used for a decision, so
     * the compiler keeps the loads.
     *
     * @param keys      the keys.
     * @param count     how many, at most {@code addresses.length}.
     * @param nowNs     the caller's time.
     * @param addresses caller-owned scratch for the slot addresses.
     * @return the OR of the codes (0 if every CAS won).
     */
    long casBatch(final long[] keys, final int count, final long nowNs, final long[] addresses)
    {
        for (int i = 0; i < count; i++)
        {
            addresses[i] = slotAddress(mix(keys[i]));
        }
        long touched = 0;
        for (int i = 0; i < count; i++)
        {
            touched += UnsafeApi.getLong(null, addresses[i]);
        }
        long codes = 0;
        for (int i = 0; i < count; i++)
        {
            codes |= casAt(addresses[i], nowNs);
        }
        if (TOUCH_SENTINEL == touched)
        {
            touchSink = touched;
        }
        return codes;
    }

    private long slotAddress(final long hash)
    {
        return address + ((((hash & 0xFFFF_FFFFL) * slots) >>> 32) * SLOT_LENGTH) + TAT_OFFSET;
    }

    private long cas(final long hash, final long nowNs)
    {
        return casAt(slotAddress(hash), nowNs);
    }

    private static long casAt(final long tatAddress, final long nowNs)
    {
        final long tatNs = UnsafeApi.getLongAcquire(null, tatAddress);
        final long witnessNs = UnsafeApi.compareAndExchangeLong(null, tatAddress, tatNs, Math.max(tatNs, nowNs) + 1);
        return witnessNs == tatNs ? 0 : 1;
    }

    /** A 64-bit finaliser (xor-shift-multiply), as cheap as a table's key mixer. */
    static long mix(final long key)
    {
        long h = key;
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        h *= 0xC4CEB9FE1A85EC53L;
        h ^= h >>> 33;
        return h;
    }
}
