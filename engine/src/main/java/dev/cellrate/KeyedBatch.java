package dev.cellrate;

import dev.cellrate.table.SlotTable;
import org.agrona.UnsafeApi;

import java.util.Objects;

/**
 * The passes of {@link KeyedRateLimiter}'s batch forms: the range check, the touch of every key's bytes, and
 * the grouped decision that touches a group's home lines before deciding its keys. Static and allocation-free;
 * each pass runs on the caller's arrays.
 */
final class KeyedBatch
{
    /**
     * Keys whose lines a batch touches before deciding them: more misses than the core's fill buffers hold
     * (10-16), so the queue of misses never drains while a group's touches issue, and 64 lines (4 KB) stay in L1
     * until decided. 64 was faster than 16, 32 and 128 per key (docs/benchmarks.md, "Batch: group size and spill
     * touches").
     */
    private static final int BATCH_GROUP = 64;

    /** Consumes the batch touches (see {@link #decide}); written only if they xor to this sentinel. */
    private static final long TOUCH_SENTINEL = 0x5EED_7011_C0DE_F00DL;
    private static long touchSink;

    private KeyedBatch()
    {
    }

    /**
     * Second half of a batch: {@code codes[0 .. count)} hold the key words. Group by group of
     * {@link #BATCH_GROUP} keys: touch every key's home line (one plain load each, no fence between them, so
     * the misses of the group are in flight together), then decide the group's keys in order on lines that
     * arrived, overwriting each word with its code. (A pass touching the next line of keys not in their home
     * line costs more per key, in its own scan of the home line and address of the next one, than the ~13% of
     * misses it takes out of the decision pass saves.) The touched values are folded into one comparison the
     * compiler cannot drop, so the touches stay loads.
     */
    static void decide(
        final DecisionLoop step, final SlotTable table, final int count, final long incrementNs, final long ceilingNs,
        final long nowNs, final long[] codes)
    {
        long touched = 0;
        for (int from = 0; from < count; from += BATCH_GROUP)
        {
            final int to = Math.min(count, from + BATCH_GROUP);
            for (int i = from; i < to; i++)
            {
                touched ^= table.touch(codes[i]);
            }
            for (int i = from; i < to; i++)
            {
                codes[i] = step.chargeBranchless(codes[i], incrementNs, ceilingNs, nowNs, null);
            }
        }
        if (TOUCH_SENTINEL == touched)
        {
            touchSink = touched;
        }
    }

    /**
     * First pass of a byte-key batch over {@code capacity} bytes at {@code address} of {@code base} (a
     * {@code byte[]} with the array base offset, or {@code null} with an off-heap address, as
     * {@link SlotTable#keyWords} reads them): check every key's range against {@code [0, capacity)}, throwing
     * the {@link IndexOutOfBoundsException} the hash pass would throw for the first bad key (so before any key is
     * decided), and load the first and last byte of every non-empty key, with no fence between them, so the
     * misses on key bytes that are not in the cache (keys gathered in a large buffer) are in flight together
     * instead of one per hash: the hash's ~150 instructions leave no room in the core's window for the next
     * key's miss. The loaded bytes go to {@code codesOut[i]}, which the hash pass overwrites with the key word:
     * a store the compiler cannot drop, so the touches stay loads.
     */
    static void touchKeys(
        final Object base, final long address, final int capacity, final int[] offsets, final int[] lengths,
        final int count, final long[] codesOut)
    {
        for (int i = 0; i < count; i++)
        {
            final int offset = offsets[i];
            final int length = lengths[i];
            Objects.checkFromIndexSize(offset, length, capacity);
            if (0 != length)
            {
                final long first = address + offset;
                codesOut[i] = UnsafeApi.getByte(base, first) + UnsafeApi.getByte(base, first + length - 1);
            }
        }
    }

    static void check(final int count, final int keys, final int codes)
    {
        if (count < 0 || count > keys || count > codes)
        {
            throw new IndexOutOfBoundsException("count must be in [0, " + Math.min(keys, codes) + "] but was " + count);
        }
    }
}
