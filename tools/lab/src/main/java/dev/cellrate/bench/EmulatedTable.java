package dev.cellrate.bench;

import org.agrona.UnsafeApi;

/**
 * An emulated keyed table for {@link LayoutCpuTime}: one off-heap region (128-byte aligned, zeroed) of buckets of one
 * layout, the inserts of that layout (first free slot from the home bucket on, linear over buckets; for
 * {@link #PREFERRED4} the key's preferred slot first) and the general lookup. Key words are never 0 (0 marks a free
 * slot); a fresh TAT is 1. Geometry: one shard, the home bucket a multiply-shift reduction of the word's low 32 bits.
 */
final class EmulatedTable
{
    /** 64-byte lines of four [key word][TAT] slots. */
    static final int LINE4 = 0;
    /** 128-byte buckets of eight [key word][TAT] slots. */
    static final int PAIR8 = 1;
    /** 128-byte buckets: eight key words, then their eight TATs. */
    static final int SPLIT8 = 2;
    /** 128-byte buckets: a tag word and seven TATs, then seven key words and an overflow count. */
    static final int TAG7 = 3;
    /** {@link #LINE4} where a key prefers the slot two bits of its word name. */
    static final int PREFERRED4 = 4;

    private static final int PROBE_BUCKETS = 256;

    final int kind;
    final long address;
    final long buckets;
    final long bytes;
    final int capacity;
    long placed;
    long spilled;
    long dropped;
    /** Whether an insert takes its preferred slot from a key that is not in its own ({@code evict}). */
    boolean evicts;

    EmulatedTable(final int kind, final long buckets, final int bucketBytes, final int capacity)
    {
        this.kind = kind;
        this.buckets = buckets;
        this.capacity = capacity;
        bytes = buckets * bucketBytes;
        final long raw = UnsafeApi.allocateMemory(bytes + 128);
        UnsafeApi.setMemory(null, raw, bytes + 128, (byte)0);
        address = (raw + 127) & ~127L;
    }

    /** The key word: the floor's mixer, never 0 (an empty slot). */
    static long word(final long key)
    {
        final long h = RandomCasTarget.mix(key);
        return 0 == h ? 1 : h;
    }

    static long bucketOf(final EmulatedTable table, final long word)
    {
        return ((word & 0xFFFF_FFFFL) * table.buckets) >>> 32;
    }

    /** The byte offset of a key's preferred slot in its line ({@code line4 preferred}): two bits of its word. */
    static long preferredOffset(final long word)
    {
        return (word >>> 40 & 3) << 4;
    }

    static boolean inPreferredSlot(final EmulatedTable table, final long word, final long keyAddress)
    {
        return keyAddress == bucketAddress(table, bucketOf(table, word)) + preferredOffset(word);
    }

    /** Percentages of a preferred-slot table's keys: in their preferred slot, outside their home line. */
    static String preferredShares(final EmulatedTable table)
    {
        long keys = 0;
        long preferred = 0;
        long away = 0;
        for (long bucket = 0; bucket < table.buckets; bucket++)
        {
            for (int s = 0; s < 4; s++)
            {
                final long at = bucketAddress(table, bucket) + 16L * s;
                final long word = UnsafeApi.getLong(null, at);
                if (0 != word)
                {
                    keys++;
                    preferred += inPreferredSlot(table, word, at) ? 1 : 0;
                    away += bucketOf(table, word) == bucket ? 0 : 1;
                }
            }
        }
        return String.format("%5.1f%% of keys in their preferred slot, %.1f%% outside their home line",
            100.0 * preferred / keys, 100.0 * away / keys);
    }

    /** The tag of a key word: its top byte, 0 read as 0x80 (0 marks a free tag). */
    static long tagOf(final long word)
    {
        final long t = word >>> 56;
        return t | (((t - 1) >>> 63) << 7);
    }

    static long bucketAddress(final EmulatedTable table, final long bucket)
    {
        return table.address + bucket * (LINE4 == table.kind || PREFERRED4 == table.kind ? 64 : 128);
    }

    static long keyAddress(final EmulatedTable table, final long bucketAddress, final int slot)
    {
        switch (table.kind)
        {
            case LINE4:
            case PREFERRED4:
            case PAIR8:
                return bucketAddress + slot * 16L;
            case SPLIT8:
                return bucketAddress + slot * 8L;
            default:
                return bucketAddress + 64 + slot * 8L;
        }
    }

    static long tatAddress(final EmulatedTable table, final long bucketAddress, final int slot)
    {
        switch (table.kind)
        {
            case LINE4:
            case PREFERRED4:
            case PAIR8:
                return bucketAddress + slot * 16L + 8;
            case SPLIT8:
                return bucketAddress + 64 + slot * 8L;
            default:
                return bucketAddress + 8 + slot * 8L;
        }
    }

    /** First free slot from the home bucket on (linear over buckets); a fresh TAT of 1. */
    static void insert(final EmulatedTable table, final long word)
    {
        final long home = bucketOf(table, word);
        if (PREFERRED4 == table.kind)
        {
            final long preferred = bucketAddress(table, home) + preferredOffset(word);
            final long held = UnsafeApi.getLong(null, preferred);
            if (0 == held)
            {
                UnsafeApi.putLong(null, preferred, word);
                UnsafeApi.putLong(null, preferred + 8, 1);
                table.placed++;
                return;
            }
            if (table.evicts && !inPreferredSlot(table, held, preferred))
            {
                // the holder is not in its own preferred slot: it moves to the first free slot from its home on
                UnsafeApi.putLong(null, preferred, word);
                UnsafeApi.putLong(null, preferred + 8, 1);
                table.placed--;
                insert(table, held);
                table.placed++;
                return;
            }
        }
        for (int probe = 0; probe < PROBE_BUCKETS; probe++)
        {
            final long bucket = bucketAddress(table, (home + probe) % table.buckets);
            for (int s = 0; s < table.capacity; s++)
            {
                final long keyAddress = keyAddress(table, bucket, s);
                if (0 == UnsafeApi.getLong(null, keyAddress))
                {
                    UnsafeApi.putLong(null, keyAddress, word);
                    UnsafeApi.putLong(null, tatAddress(table, bucket, s), 1);
                    if (TAG7 == table.kind)
                    {
                        final long tags = UnsafeApi.getLong(null, bucket);
                        UnsafeApi.putLong(null, bucket, tags | (tagOf(word) << (8 * s)));
                    }
                    table.placed++;
                    if (probe > 0)
                    {
                        table.spilled++;
                        if (TAG7 == table.kind)
                        {
                            // the home bucket's overflow count (the spare word of its key line)
                            final long home64 = bucketAddress(table, home) + 64 + 56;
                            UnsafeApi.putLong(null, home64, UnsafeApi.getLong(null, home64) + 1);
                        }
                    }
                    return;
                }
            }
        }
        table.dropped++;
    }

    /** The general lookup of a key past its home bucket (or absent): its key word's address, or 0. */
    static long probe(final EmulatedTable table, final long word)
    {
        final long home = bucketOf(table, word);
        for (int probe = 0; probe < PROBE_BUCKETS; probe++)
        {
            final long bucket = bucketAddress(table, (home + probe) % table.buckets);
            for (int s = 0; s < table.capacity; s++)
            {
                final long keyAddress = keyAddress(table, bucket, s);
                final long key = UnsafeApi.getLongAcquire(null, keyAddress);
                if (key == word)
                {
                    return keyAddress;
                }
                if (0 == key)
                {
                    return 0;
                }
            }
        }
        return 0;
    }
}
