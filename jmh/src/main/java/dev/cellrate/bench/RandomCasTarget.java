package dev.cellrate.bench;

import dev.cellrate.table.SlotTable;
import org.agrona.BufferUtil;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import dev.cellrate.KeyedRateLimiterBuilder;

import static dev.cellrate.KeyedRateLimiterBuilder.DESIGNED_LOAD_PERCENT;

/**
 * The floor of any keyed limiter: hash the key, then one acquire read and one CAS on a 16-byte slot of an
 * off-heap array of the same footprint as cellrate's table for the key count (the slot count of
 * {@code KeyedRateLimiter.builder(limit).expectedKeys(keys)}: keys / 0.75 rounded up to a multiple of the shard
 * count, and per shard to a multiple of 4) and the same multiply-shift reduction of the hash onto it. No probing, no key check, no decision: just the random memory access and the atomic write.
 * String keys hash with the cached {@link String#hashCode()}.
 */
final class RandomCasTarget extends KeyedTarget
{
    /** Bytes per slot: [key word][TAT word], as in the table. */
    static final int SLOT_LENGTH = 16;

    /** Offset of the word the baseline CASes inside a slot. */
    static final int TAT_OFFSET = 8;

    private final AtomicBuffer buffer;
    private final long slots;
    private final SlotTable hasher = HashOnlyTarget.hasher();

    /**
     * @param keyCount keys the array is sized for (as cellrate's table).
     */
    RandomCasTarget(final int keyCount)
    {
        final int slots = slotsFor(keyCount);
        buffer = new UnsafeBuffer(BufferUtil.allocateDirectAligned(slots * SLOT_LENGTH, 64));
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
        return cas(mix(key.hashCode()), nowNs);
    }

    /** Byte keys: cellrate's own seeded hash of the bytes, then the CAS (the floor of a hashed byte key). */
    @Override
    long decideBytes(final byte[] bytes, final int offset, final int length, final long nowNs)
    {
        return cas(hasher.keyWord(bytes, offset, length), nowNs);
    }

    private long cas(final long hash, final long nowNs)
    {
        final int offset = (int)((((hash & 0xFFFF_FFFFL) * slots) >>> 32) * SLOT_LENGTH) + TAT_OFFSET;
        final long tatNs = buffer.getLongAcquire(offset);
        final long witnessNs = buffer.compareAndExchangeLong(offset, tatNs, Math.max(tatNs, nowNs) + 1);
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
