package dev.cellrate.table.mapped;

import dev.cellrate.table.TableLayout;

import java.nio.file.Path;

/**
 * Child-JVM main for the lock and file tests.
 * <ul>
 * <li>{@code hold FILE SLOT STEP}: open the small test table, take shard 0's lock, stop at STEP inside the
 * critical section ({@code locked}: nothing written; {@code reclaiming}: slot SLOT's TAT CASed to RECLAIMING, as
 * a reclaim's first step; {@code keyed}: then the slot's key word replaced, a reclaim's second step), print
 * {@code HELD}, and sleep until killed.</li>
 * <li>{@code open FILE}: open (or create) the small test table; print its secret and whether this process created it.</li>
 * <li>{@code create FILE SLOTS_PER_SHARD}: create a table file of that size; print {@code CREATED} or the error.</li>
 * </ul>
 */
public final class LockChild
{
    static final long NEW_KEY = 0x7777_0000_0000_1234L;

    private LockChild()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final Path file = Path.of(args[1]);
        switch (args[0])
        {
            case "hold":
            {
                final TableFile table = TableFile.open(file, TestSpecs.small(), null);
                final SharedShardLock lock = new SharedShardLock(table.table, TestSpecs.SHARDS, TestSpecs.SLOTS_PER_SHARD,
                    TestSpecs.small().maxLagNs());
                final int header = TableLayout.shardHeaderOffset(0);
                lock.lock(header);
                final int slot = TableLayout.slotOffset(TableLayout.slotsOffset(TestSpecs.SHARDS), TestSpecs.SLOTS_PER_SHARD,
                    0, Integer.parseInt(args[2]));
                if (!"locked".equals(args[3]))
                {
                    final long tatNs = table.table.getLongVolatile(slot + TableLayout.TAT_OFFSET);
                    table.table.compareAndSetLong(slot + TableLayout.TAT_OFFSET, tatNs, TableLayout.RECLAIMING);
                }
                if ("keyed".equals(args[3]))
                {
                    table.table.putLongRelease(slot, NEW_KEY);
                }
                System.out.println("HELD " + ProcessHandle.current().pid());
                System.out.flush();
                Thread.sleep(60_000);
                break;
            }
            case "open":
            {
                final TableFile table = TableFile.open(file, TestSpecs.small(), null);
                System.out.println("SECRET " + table.secret0 + " " + table.secret1 + " created " + table.created);
                break;
            }
            case "create":
            {
                try
                {
                    TableFile.open(file, TestSpecs.sized(Integer.parseInt(args[2])), null);
                    System.out.println("CREATED");
                }
                catch (final IllegalStateException ex)
                {
                    System.out.println("ERROR " + ex.getMessage());
                }
                break;
            }
            default:
                throw new IllegalArgumentException(args[0]);
        }
    }
}
