package dev.cellrate.table.mapped;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

/** Holder tokens: who they name, and when that holder is known to be dead. */
final class LockHolderTest
{
    @Test
    void theStartTimeIsField22AfterTheCommandWhateverItsName()
    {
        final String stat = "4242 (a b) c)) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654321 " +
            "1000 10 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0";
        assertEquals(987654321L, LockHolder.parseStartTime(stat));
        assertEquals(LockHolder.NOT_RUNNING, LockHolder.parseStartTime(stat.replace(") S ", ") Z ")));
    }

    @Test
    void aTokenNamesOneProcessOfOneBoot()
    {
        final long pid = ProcessHandle.current().pid();
        final long self = LockHolder.self();
        assertEquals(pid, LockHolder.processId(self));
        assertTrue(0 != self);
        assertTrue(LockHolder.isAlive(self));
        assertFalse(LockHolder.isAlive(self ^ 1), "an earlier process that had this id");
        assertFalse(LockHolder.isAlive(1L), "a word that names no process (id 0)");
    }

    @Test
    void aChildThatExitedIsDeadAndOneThatRunsIsAlive() throws Exception
    {
        final Process running = new ProcessBuilder("sleep", "30").start();
        try
        {
            final long token = LockHolder.token(running.pid(), LockHolder.startTime(running.pid()));
            assertTrue(LockHolder.isAlive(token));
            assertFalse(LockHolder.isAlive(token + 1), "the same id, another start: a reused id");
            running.destroyForcibly();
            assertTrue(running.waitFor(10, TimeUnit.SECONDS));
            assertFalse(LockHolder.isAlive(token));
        }
        finally
        {
            running.destroyForcibly();
        }
    }
}
