package dev.cellrate.table.mapped;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellrate.table.TableLayout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The shard lock shared by processes: a child JVM takes shard 0's lock, stops at a chosen point of a reclaim
 * and is killed with {@code destroyForcibly} ({@code SIGKILL}); this JVM then takes the lock over and finds
 * the shard repaired. A live holder is never displaced.
 */
final class SharedShardLockTest
{
    private static final long OLD_KEY = 0x5555_0000_0000_0003L;
    private static final int SLOT = 3;

    @TempDir
    Path directory;

    @Test
    void aHolderKilledBeforeWritingLeavesTheShardAsItWas() throws Exception
    {
        final TableFile file = killedHolder("locked");
        assertEquals(OLD_KEY, file.table.getLong(slot()));
        assertEquals(1, liveKeys(file));
    }

    @Test
    void aHolderKilledMidReclaimLeavesTheOldKeyWithAnEmptyBucket() throws Exception
    {
        final long beforeNs = System.nanoTime();
        final TableFile file = killedHolder("reclaiming");
        assertEquals(OLD_KEY, file.table.getLong(slot()), "the old key keeps its slot");
        final long tatNs = file.table.getLong(slot() + TableLayout.TAT_OFFSET);
        assertTrue(tatNs >= beforeNs + TestSpecs.small().maxLagNs(), "an empty bucket, above every earlier word");
        assertEquals(1, liveKeys(file));
    }

    @Test
    void aHolderKilledAfterWritingTheNewKeyLeavesItOnceWithAnEmptyBucket() throws Exception
    {
        final long beforeNs = System.nanoTime();
        final TableFile file = killedHolder("keyed");
        assertEquals(LockChild.NEW_KEY, file.table.getLong(slot()));
        assertTrue(file.table.getLong(slot() + TableLayout.TAT_OFFSET) >= beforeNs + TestSpecs.small().maxLagNs());
        int copies = 0;
        for (int offset = TableLayout.slotsOffset(TestSpecs.SHARDS); offset < file.table.capacity();
            offset += TableLayout.SLOT_LENGTH)
        {
            copies += file.table.getLong(offset) == LockChild.NEW_KEY || file.table.getLong(offset) == OLD_KEY ? 1 : 0;
        }
        assertEquals(1, copies, "one slot holds the slot's key: none lost, none duplicated");
        assertEquals(1, liveKeys(file));
    }

    @Test
    void aLiveHolderIsWaitedForUntilItDies() throws Exception
    {
        final Path path = directory.resolve("t.table");
        final TableFile file = TableFile.open(path, TestSpecs.small(), null);
        try (ChildJvm child = ChildJvm.start(null, LockChild.class, "hold", path.toString(), "0", "locked"))
        {
            child.awaitLine("HELD");
            final SharedShardLock lock = lock(file);
            final CountDownLatch taken = new CountDownLatch(1);
            final Thread waiter = new Thread(() ->
            {
                lock.lock(TableLayout.shardHeaderOffset(0));
                taken.countDown();
            });
            waiter.setDaemon(true);
            waiter.start();
            // 200 waits past the first liveness check: the holder is alive, so the lock stays its.
            assertFalse(taken.await(200, TimeUnit.MILLISECONDS), "a live holder keeps its lock");
            assertEquals(child.process.pid(), LockHolder.processId(lock.holder(TableLayout.shardHeaderOffset(0))));
            child.kill();
            assertTrue(taken.await(20, TimeUnit.SECONDS), "taken over once the holder died");
            assertEquals(1, lock.takeovers());
            assertEquals(LockHolder.self(), lock.holder(TableLayout.shardHeaderOffset(0)));
        }
    }

    private TableFile killedHolder(final String step) throws Exception
    {
        final Path path = directory.resolve("t.table");
        final TableFile file = TableFile.open(path, TestSpecs.small(), null);
        file.table.putLong(slot() + TableLayout.TAT_OFFSET, System.nanoTime() - 5_000_000_000L); // idle
        file.table.putLong(slot(), OLD_KEY);
        file.table.putLong(TableLayout.shardHeaderOffset(0) + TableLayout.LIVE_KEYS_OFFSET, 1);
        try (ChildJvm child = ChildJvm.start(null, LockChild.class, "hold", path.toString(), Integer.toString(SLOT), step))
        {
            child.awaitLine("HELD");
            child.kill();
        }
        final SharedShardLock lock = lock(file);
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> lock.lock(TableLayout.shardHeaderOffset(0)));
        assertEquals(1, lock.takeovers());
        assertEquals("locked".equals(step) ? 0 : 1, lock.repairedSlots());
        lock.unlock(TableLayout.shardHeaderOffset(0));
        assertEquals(0, lock.holder(TableLayout.shardHeaderOffset(0)));
        return file;
    }

    private static SharedShardLock lock(final TableFile file)
    {
        return new SharedShardLock(file.table, TestSpecs.SHARDS, TestSpecs.SLOTS_PER_SHARD, TestSpecs.small().maxLagNs());
    }

    private static int slot()
    {
        return TableLayout.slotOffset(TableLayout.slotsOffset(TestSpecs.SHARDS), TestSpecs.SLOTS_PER_SHARD, 0, SLOT);
    }

    private static long liveKeys(final TableFile file)
    {
        return file.table.getLong(TableLayout.shardHeaderOffset(0) + TableLayout.LIVE_KEYS_OFFSET);
    }
}
