package dev.cellrate.table.mapped;

import static dev.cellrate.table.TableLayout.EMPTY_KEY;
import static dev.cellrate.table.TableLayout.EMPTY_KEY_CELL_OFFSET;
import static dev.cellrate.table.TableLayout.FRESH_SLOT_TAT_NS;
import static dev.cellrate.table.TableLayout.LIVE_KEYS_OFFSET;
import static dev.cellrate.table.TableLayout.LOCK_OFFSET;
import static dev.cellrate.table.TableLayout.OVERFLOW_CELL_OFFSET;
import static dev.cellrate.table.TableLayout.RECLAIMING;
import static dev.cellrate.table.TableLayout.SLOT_LENGTH;
import static dev.cellrate.table.TableLayout.SWEEP_CURSOR_OFFSET;
import static dev.cellrate.table.TableLayout.TAT_OFFSET;
import static dev.cellrate.table.TableLayout.TOMBSTONE_KEY;
import static dev.cellrate.table.TableLayout.TOMBSTONE_KEY_CELL_OFFSET;

import dev.cellrate.layout.CellLayout;
import dev.cellrate.table.TableLayout;
import org.agrona.concurrent.AtomicBuffer;

/**
 * Puts a shard of a shared table back into a state every rule of the table holds in: after its lock was taken
 * over from a dead holder ({@link #afterDeadHolder}), and, for the whole table, after a reboot
 * ({@link #rebase}).
 * <p>
 * What a holder that died inside the critical section can leave, and what the repair does (see
 * {@code ShardWriter}: a claim of a free slot writes TAT, key, live count; a reclaim CASes the TAT to
 * RECLAIMING, writes the key, then the TAT; a sweep ends with the cursor and the counts):
 * <ul>
 * <li>a slot whose TAT is RECLAIMING, holding the old key or the new one: its TAT becomes
 * {@code now + 2 (tau + T)}, the deepest any key can be (an empty bucket and a debit's full burst of debt) for
 * whichever key it holds (never more than that key may have: the old key was idle, the new one is charged as if
 * it had spent its burst and more), and above every value a paused
 * decider of the old key can hold (those are at most the dead holder's eviction time, which is at most now),
 * so the ABA rule holds;</li>
 * <li>a free slot whose TAT was raised but whose key was not written: left alone (a later claim starts above
 * it, as from any free slot);</li>
 * <li>a live-key count off by the interrupted claim or sweep: recounted from the key words;</li>
 * <li>a sweep cursor left outside the shard: reset to 0.</li>
 * </ul>
 * A holder writes at most one slot's key per critical section (an insert) or turns idle slots into tombstones
 * (a sweep), so no interruption leaves a key in two slots or a present key without its slot.
 */
final class ShardRepair
{
    private ShardRepair()
    {
    }

    /**
     * Under the shard's lock, just taken over from a dead holder (deciders may run meanwhile).
     *
     * @param buffer        the table region.
     * @param shard         the shard.
     * @param slotsPerShard slots per shard.
     * @param shardCount    shards.
     * @param capNs         {@code now + 2 (tau + T)}: the word of a slot caught mid-reclaim.
     * @return slots that were caught mid-reclaim and repaired.
     */
    static int afterDeadHolder(
        final AtomicBuffer buffer, final int shard, final int slotsPerShard, final int shardCount, final long capNs)
    {
        final int header = TableLayout.shardHeaderOffset(shard);
        final int first = TableLayout.slotOffset(TableLayout.slotsOffset(shardCount), slotsPerShard, shard, 0);
        long live = 0;
        int repaired = 0;
        for (int i = 0; i < slotsPerShard; i++)
        {
            final int slot = first + i * SLOT_LENGTH;
            final long key = buffer.getLongVolatile(slot);
            if (RECLAIMING == buffer.getLongVolatile(slot + TAT_OFFSET) &&
                buffer.compareAndSetLong(slot + TAT_OFFSET, RECLAIMING, capNs))
            {
                repaired++;
            }
            if (EMPTY_KEY != key && TOMBSTONE_KEY != key)
            {
                live++;
            }
        }
        buffer.putLongRelease(header + LIVE_KEYS_OFFSET, live);
        final long cursor = buffer.getLong(header + SWEEP_CURSOR_OFFSET);
        if (cursor < 0 || cursor >= slotsPerShard)
        {
            buffer.putLongRelease(header + SWEEP_CURSOR_OFFSET, 0);
        }
        return repaired;
    }

    /**
     * The whole table onto a new boot's clock, before any process of that boot decides on it (under the file's
     * open lock): every lock freed (its holders died with the old boot), every keyed word rebased
     * ({@link TimeBase#rebasedTatNs}), or set to {@code capNs} if {@code conservative} (a rebase that was
     * interrupted, whose words are in an unknown mix of both clocks), every free slot's word fresh, counts
     * recounted.
     *
     * @param buffer        the table region.
     * @param shardCount    shards.
     * @param slotsPerShard slots per shard.
     * @param deltaNs       {@link TimeBase#rebaseDeltaNs}.
     * @param capNs         {@code mono_now + 2 (tau + T)}.
     * @param conservative  whether every keyed word becomes {@code capNs}.
     */
    static void rebase(
        final AtomicBuffer buffer,
        final int shardCount,
        final int slotsPerShard,
        final long deltaNs,
        final long capNs,
        final boolean conservative)
    {
        for (final int cell : new int[] {EMPTY_KEY_CELL_OFFSET, TOMBSTONE_KEY_CELL_OFFSET, OVERFLOW_CELL_OFFSET})
        {
            final int tat = cell + CellLayout.TAT_OFFSET;
            buffer.putLongVolatile(tat, moved(buffer.getLongVolatile(tat), deltaNs, capNs, conservative));
        }
        final int slotsOffset = TableLayout.slotsOffset(shardCount);
        for (int shard = 0; shard < shardCount; shard++)
        {
            final int header = TableLayout.shardHeaderOffset(shard);
            long live = 0;
            for (int i = 0; i < slotsPerShard; i++)
            {
                final int slot = TableLayout.slotOffset(slotsOffset, slotsPerShard, shard, i);
                final long key = buffer.getLong(slot);
                final long tatNs = buffer.getLong(slot + TAT_OFFSET);
                if (EMPTY_KEY == key || TOMBSTONE_KEY == key)
                {
                    if (FRESH_SLOT_TAT_NS != tatNs)
                    {
                        buffer.putLong(slot + TAT_OFFSET, FRESH_SLOT_TAT_NS);
                    }
                }
                else
                {
                    live++;
                    buffer.putLong(slot + TAT_OFFSET, moved(tatNs, deltaNs, capNs, conservative));
                }
            }
            buffer.putLong(header + LIVE_KEYS_OFFSET, live);
            // No decider paused before the reboot survives it: no earlier key's value needs a floor.
            buffer.putLong(header + TableLayout.RECLAIM_FLOOR_OFFSET, TableLayout.NO_HIGH_WATER_NS);
            final long cursor = buffer.getLong(header + SWEEP_CURSOR_OFFSET);
            if (cursor < 0 || cursor >= slotsPerShard)
            {
                buffer.putLong(header + SWEEP_CURSOR_OFFSET, 0);
            }
            buffer.putLongVolatile(header + LOCK_OFFSET, 0);
        }
    }

    private static long moved(final long tatNs, final long deltaNs, final long capNs, final boolean conservative)
    {
        if (conservative)
        {
            return tatNs == FRESH_SLOT_TAT_NS ? FRESH_SLOT_TAT_NS : capNs;
        }
        return TimeBase.rebasedTatNs(tatNs, deltaNs, capNs);
    }
}
