package dev.cellrate.table;

import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.NanoClock;

/**
 * A {@link SlotTable} over bytes that other processes share (a mapped file, see
 * {@code dev.cellrate.table.mapped}): the table's words are used as they are (never initialised again), inserts and
 * sweeps take the shard lock through a {@link ShardLock} the sharing processes agree on, and a refund records its
 * high-water mark in {@link SharedMarks} the sharing processes all map, so that a reclaim in any of them sees it
 * (the ABA rule of {@link SlotTable}). Without shared marks no word is ever lowered ({@code SlotLoop.refund}
 * answers false).
 */
public final class SharedTable
{
    private SharedTable()
    {
    }

    /**
     * @param shardCount    shards, as the buffer was laid out.
     * @param slotsPerShard slots per shard, as the buffer was laid out.
     * @param probeBound    the probe bound.
     * @param idleGraceNs   the idle grace.
     * @param secret0       the key-hash secret's first word (the bytes' own).
     * @param secret1       the key-hash secret's second word.
     * @param evictionClock the clock of the words in the buffer.
     * @param buffer        {@link TableLayout#length} bytes laid out by {@link TableLayout}, aligned to a cell.
     * @param lock          the shard lock shared with the buffer's other users.
     * @param marks         the high-water marks shared with them, or null (then refunds give nothing back).
     * @return the table.
     * @throws IllegalArgumentException if the buffer's length is not the geometry's, or the lock is null.
     */
    public static SlotTable over(
        final int shardCount,
        final int slotsPerShard,
        final int probeBound,
        final long idleGraceNs,
        final long secret0,
        final long secret1,
        final NanoClock evictionClock,
        final AtomicBuffer buffer,
        final ShardLock lock,
        final SharedMarks marks)
    {
        if (null == buffer || null == lock ||
            buffer.capacity() != TableLayout.length(shardCount, shardCount * slotsPerShard))
        {
            throw new IllegalArgumentException("a shared table needs its lock and a buffer of its geometry's length");
        }
        return new SlotTable(new TableGeometry(shardCount, slotsPerShard, probeBound, idleGraceNs), secret0, secret1,
            evictionClock, buffer, lock, marks);
    }
}
