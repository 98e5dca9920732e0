package dev.cellrate.table.mapped;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Who holds a shard lock of a mapped table: the lock word is a holder token, the holder process's id and the
 * low 32 bits of its start time, so a waiter can tell a live holder from a dead one and from a new process that
 * reuses the dead one's id.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |        start time, low 32 bits (clock ticks since boot)      |  bits 0..31
 *  +---------------------------------------------------------------+
 *  |        process id (&gt; 0, so a token is never 0 = free)       |  bits 32..63
 *  +---------------------------------------------------------------+
 * </pre>
 * The start time is field 22 of {@code /proc/<pid>/stat}, clock ticks since boot: fixed for the life of a
 * process and the same to every reader (unlike a start instant in wall-clock time, which moves when the wall
 * clock is set). A process id is reused only after its process died, and a reuser started later, so the pair
 * names one process of one boot (locks of an earlier boot are cleared by the rebase). On a host without
 * {@code /proc} the start time is the start instant's milliseconds from {@link ProcessHandle}.
 * <p>
 * A holder is dead when no process has its id, when the process with its id started at another time, or when
 * that process is a zombie (exited, not yet reaped). A holder that is alive but stopped (SIGSTOP, a debugger)
 * is waited for: taking its lock would let two writers into the shard.
 */
final class LockHolder
{
    private static final long PROCESS_ID = ProcessHandle.current().pid();
    private static final long TOKEN = token(PROCESS_ID, startTime(PROCESS_ID));

    private LockHolder()
    {
    }

    /**
     * @return this process's token (never 0).
     */
    static long self()
    {
        return TOKEN;
    }

    /**
     * @param processId a process id, in [1, 2<sup>31</sup>).
     * @param startTime its start time (only the low 32 bits are kept).
     * @return the token.
     */
    static long token(final long processId, final long startTime)
    {
        if (processId <= 0 || processId >= 1L << 31)
        {
            throw new IllegalStateException("process id " + processId + " does not fit a shard lock's holder token");
        }
        return processId << 32 | (startTime & 0xFFFF_FFFFL);
    }

    /**
     * @param token a lock word other than 0.
     * @return the process id it names.
     */
    static long processId(final long token)
    {
        return token >>> 32;
    }

    /**
     * Whether the process a token names may still be running (and so may still be inside its critical section).
     * Reads {@code /proc}: a slow path, taken only by a waiter that has waited past its bound.
     *
     * @param token a lock word other than 0.
     * @return false only if the holder is certainly dead.
     */
    static boolean isAlive(final long token)
    {
        final long processId = processId(token);
        if (processId == PROCESS_ID)
        {
            return token == TOKEN; // another thread of this process, or an earlier process with our id
        }
        if (processId <= 0)
        {
            return false; // not a token: a corrupt word
        }
        final long startTime = startTime(processId);
        return NOT_RUNNING != startTime && (startTime & 0xFFFF_FFFFL) == (token & 0xFFFF_FFFFL);
    }

    /**
     * @return the inode of this process's pid namespace ({@code /proc/self/ns/pid}), or 0 where there is none to
     * read: processes of two namespaces name one process by two ids, so they cannot share a lock word.
     */
    static long pidNamespace()
    {
        try
        {
            final String link = Files.readSymbolicLink(Path.of("/proc/self/ns/pid")).toString(); // "pid:[4026531836]"
            return Long.parseLong(link.substring(link.indexOf('[') + 1, link.indexOf(']')));
        }
        catch (final IOException | RuntimeException ex)
        {
            return 0;
        }
    }

    /** {@link #startTime} of a process that does not run (absent or a zombie). */
    static final long NOT_RUNNING = -1;

    /**
     * @param processId a process id.
     * @return its start time in clock ticks since boot (Linux), or in ms since the epoch elsewhere, or
     * {@link #NOT_RUNNING}.
     */
    static long startTime(final long processId)
    {
        final Path stat = Path.of("/proc", Long.toString(processId), "stat");
        try
        {
            return parseStartTime(new String(Files.readAllBytes(stat), StandardCharsets.US_ASCII));
        }
        catch (final NoSuchFileException ex)
        {
            return Files.isDirectory(Path.of("/proc/self")) ? NOT_RUNNING : handleStartTime(processId);
        }
        catch (final IOException ex)
        {
            // /proc/<pid> vanished while being read (ESRCH): the process is gone.
            return Files.isDirectory(Path.of("/proc/self")) ? NOT_RUNNING : handleStartTime(processId);
        }
    }

    /**
     * @param stat the text of {@code /proc/<pid>/stat}.
     * @return field 22 (start time), or {@link #NOT_RUNNING} for a zombie or dead process (state Z or X).
     */
    static long parseStartTime(final String stat)
    {
        // The command (field 2) is in parentheses and may hold spaces and ')': fields 3.. follow the last ')'.
        final int close = stat.lastIndexOf(')');
        final String[] fields = stat.substring(close + 2).trim().split(" ");
        final String state = fields[0];
        if ("Z".equals(state) || "X".equals(state) || "x".equals(state))
        {
            return NOT_RUNNING;
        }
        return Long.parseLong(fields[22 - 3]);
    }

    private static long handleStartTime(final long processId)
    {
        final Optional<ProcessHandle> handle = ProcessHandle.of(processId);
        if (handle.isEmpty() || !handle.get().isAlive())
        {
            return NOT_RUNNING;
        }
        return handle.get().info().startInstant().map(instant -> instant.toEpochMilli()).orElse(0L);
    }
}
