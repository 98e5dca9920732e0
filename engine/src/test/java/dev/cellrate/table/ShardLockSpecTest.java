package dev.cellrate.table;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.agrona.concurrent.NanoClock;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * What the shard lock guards and what it does not (see {@link SlotTable}, "Concurrency"): a decision, a peek or a
 * refund on a <b>present</b> key is lock-free, so it completes while another thread holds that key's shard lock
 * (an insert, a sweep or a reclaim in progress), with the codes it would get without the lock held; whatever
 * changes a slot's key (an insert of a new key, a sweep) waits for the lock. The lock is held by this test
 * through the table's own locking method ({@link ShardWriter#lock}); a decision that waits for it makes the test
 * fail after a generous timeout, not hang (the lock is released in {@code finally}).
 */
class ShardLockSpecTest
{
    private static final long T_NS = 100;
    private static final long GRACE_NS = 1_000_000;
    private static final long NOW_NS = 10_000;
    private static final NanoClock FAR_CLOCK = () -> Long.MAX_VALUE;
    /** How long a lock-free call may take at most on a loaded machine before the test calls it blocked. */
    private static final long DONE_WITHIN_S = 20;
    /** How long a writer is watched waiting for the lock (it can never finish while the lock is held). */
    private static final long WAITS_MS = 300;

    /** Class 0: 100 ns per permit, burst 3; class 1: 10 ns per permit, burst 2. */
    private static TestLoop loop(final SlotTable table)
    {
        return new TestLoop(table, new long[] {T_NS, 10}, new long[] {3 * T_NS, 20});
    }

    private static int shardOf(final SlotTable table, final long keyWord)
    {
        return (int)(keyWord >>> TableLayout.SHARD_SHIFT) & (table.shardCount() - 1);
    }

    /** Runs {@code body} on another thread while this one holds {@code shard}'s lock; fails if it does not end. */
    private static void whileLocked(final SlotTable table, final int shard, final Runnable body)
        throws InterruptedException, ExecutionException
    {
        final int header = TableLayout.shardHeaderOffset(shard);
        final FutureTask<Void> task = new FutureTask<>(body, null);
        final Thread other = new Thread(task, "decider");
        table.writer().lock(header);
        try
        {
            other.start();
            task.get(DONE_WITHIN_S, TimeUnit.SECONDS);
        }
        catch (final TimeoutException ex)
        {
            fail("a call on present keys waited for the shard lock");
        }
        finally
        {
            table.writer().unlock(header);
            other.join(60_000);
        }
    }

    @Test
    void decisionsPeeksAndRefundsOnPresentKeysCompleteWhileTheirShardIsLocked() throws Exception
    {
        // One shard of 16 slots and 12 keys: the lock guards every key; some keys sit past their home line (the
        // slow path's lookup), the two reserved key words live in their own cells.
        final SlotTable table = new SlotTable(1, 16, 16, GRACE_NS, 11, FAR_CLOCK);
        final TestLoop loop = loop(table);
        final long[] words = new long[14];
        for (int i = 0; i < 12; i++)
        {
            words[i] = table.keyWord((long)i);
        }
        words[12] = TableLayout.EMPTY_KEY;
        words[13] = TableLayout.TOMBSTONE_KEY;
        for (final long word : words)
        {
            assertEquals(NOW_NS + T_NS, loop.charge(word, T_NS, 3 * T_NS, NOW_NS, null));
        }
        final long[] expected = new long[words.length * 5];
        final long[] seen = new long[words.length * 5];
        for (int i = 0; i < words.length; i++)
        {
            expected[5 * i] = NOW_NS + 2 * T_NS;     // admitted: the TAT after
            expected[5 * i + 1] = T_NS;              // 2 permits more: rejected, retry after 100 ns
            expected[5 * i + 2] = NOW_NS + 2 * T_NS; // peek
            expected[5 * i + 3] = 1;                 // refund of the last admission applies
            expected[5 * i + 4] = NOW_NS + T_NS;     // the refunded word
        }
        whileLocked(table, 0, () ->
        {
            for (int i = 0; i < words.length; i++)
            {
                seen[5 * i] = loop.charge(words[i], T_NS, 3 * T_NS, NOW_NS, null);
                seen[5 * i + 1] = loop.charge(words[i], 2 * T_NS, 3 * T_NS, NOW_NS, null);
                seen[5 * i + 2] = table.peekTatNs(words[i], NOW_NS);
                seen[5 * i + 3] = loop.refund(words[i], NOW_NS + 2 * T_NS, NOW_NS + T_NS) ? 1 : 0;
                seen[5 * i + 4] = table.tatNs(words[i]);
            }
        });
        assertArrayEquals(expected, seen);
        assertEquals(12, table.liveKeys(), "nothing inserted");
    }

    @Test
    void classedDecisionsOnPresentKeysCompleteWhileTheirShardIsLocked() throws Exception
    {
        final SlotTable table = new SlotTable(4, 8, 8, GRACE_NS, 12, FAR_CLOCK);
        final TestLoop loop = loop(table);
        assertEquals(2, table.classCapacity());
        // Six keys of one shard, classes 0 and 1 alternately.
        final long[] words = new long[6];
        int found = 0;
        for (long key = 0; found < words.length; key++)
        {
            final long word = table.keyWord(key);
            if (0 == shardOf(table, word))
            {
                words[found] = word;
                assertEquals(NOW_NS + (0 == found % 2 ? T_NS : 10), loop.chargeClassed(word, 1, NOW_NS, null, found % 2));
                found++;
            }
        }
        final long[] seen = new long[words.length * 3];
        final long[] expected = new long[words.length * 3];
        for (int i = 0; i < words.length; i++)
        {
            final boolean classZero = 0 == i % 2;
            expected[3 * i] = NOW_NS + (classZero ? 2 * T_NS : 20);            // admitted: the TAT after
            expected[3 * i + 1] = classZero ? T_NS : 20;                         // rejected: retry after
            expected[3 * i + 2] = i % 2;                                         // the class stored
        }
        whileLocked(table, 0, () ->
        {
            for (int i = 0; i < words.length; i++)
            {
                seen[3 * i] = loop.chargeClassed(words[i], 1, NOW_NS, null, SlotLoop.UNKNOWN_CLASS);
                seen[3 * i + 1] = loop.chargeClassed(words[i], 2, NOW_NS, null, SlotLoop.UNKNOWN_CLASS);
                seen[3 * i + 2] = table.classOf(words[i]);
            }
        });
        assertArrayEquals(expected, seen);
    }

    @Test
    void anInsertAndASweepWaitForTheShardLock() throws Exception
    {
        final SlotTable table = new SlotTable(1, 8, 8, GRACE_NS, 13, FAR_CLOCK);
        final TestLoop loop = loop(table);
        final long old = table.keyWord(1L);
        assertEquals(NOW_NS + T_NS, loop.charge(old, T_NS, 3 * T_NS, NOW_NS, null));
        final long later = NOW_NS + 2 * GRACE_NS; // the old key is idle by then
        final long fresh = table.keyWord(2L);
        final AtomicLong inserted = new AtomicLong(Long.MIN_VALUE);
        final AtomicInteger swept = new AtomicInteger(-1);
        final Thread inserter = new Thread(() -> inserted.set(loop.charge(fresh, T_NS, 3 * T_NS, later, null)));
        final Thread sweeper = new Thread(() -> swept.set(table.sweep(later, 8)));
        final int header = TableLayout.shardHeaderOffset(0);
        table.writer().lock(header);
        try
        {
            inserter.start();
            sweeper.start();
            inserter.join(WAITS_MS);
            sweeper.join(WAITS_MS);
            assertTrue(inserter.isAlive(), "a new key's insert waits for the lock");
            assertTrue(sweeper.isAlive(), "a sweep waits for the lock");
            assertEquals(SlotTable.STALE, table.tatNs(fresh));
            assertEquals(NOW_NS + T_NS, table.tatNs(old), "not swept");
            assertEquals(1, table.liveKeys());
        }
        finally
        {
            table.writer().unlock(header);
            inserter.join(60_000);
            sweeper.join(60_000);
        }
        assertFalse(inserter.isAlive());
        assertFalse(sweeper.isAlive());
        assertEquals(later + T_NS, inserted.get());
        assertEquals(later + T_NS, table.tatNs(fresh));
        assertEquals(SlotTable.STALE, table.tatNs(old), "the idle key was reclaimed (by the insert or the sweep)");
        assertEquals(1, table.liveKeys());
        assertTrue(swept.get() >= 0);
    }
}
