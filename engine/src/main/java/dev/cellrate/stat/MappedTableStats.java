package dev.cellrate.stat;

import dev.cellrate.table.mapped.TableFile;

import java.nio.file.Path;
import java.util.Locale;
import java.util.UUID;

/**
 * The statistics of a keyed table kept in a file ({@code KeyedRateLimiterBuilder.mappedFile}), read by any process
 * of the host without writing to the file or taking its locks: the limit and geometry it was made with, and the
 * shards' counters summed. Each count is read atomically; the counts are not a single snapshot while processes
 * decide on the table. The key-hash secret is never read out.
 *
 * @param path               the file.
 * @param emissionIntervalNs the limit's T.
 * @param toleranceNs        the limit's tau.
 * @param shardCount         shards.
 * @param slotCount          slots.
 * @param liveKeys           slots holding a key (idle keys count until swept or reused).
 * @param evictions          idle keys reclaimed.
 * @param tableFullEvents    inserts that found no free slot.
 * @param casRetries         decisions that lost a CAS and decided again.
 * @param locksHeld          shard locks held at the time of reading (by a live process, or by a dead one until a
 *                           waiter takes the lock over).
 * @param bootId             the boot whose monotonic clock the file's words are on.
 * @param rebases            how many times the file was moved onto a new boot's clock.
 * @param rebasing           whether a rebase is under way (or was interrupted).
 */
public record MappedTableStats(
    Path path,
    long emissionIntervalNs,
    long toleranceNs,
    int shardCount,
    int slotCount,
    long liveKeys,
    long evictions,
    long tableFullEvents,
    long casRetries,
    int locksHeld,
    String bootId,
    long rebases,
    boolean rebasing)
{
    /**
     * @param path a keyed-table file.
     * @return its statistics now.
     * @throws IllegalStateException naming the file and what is wrong with it (not a table file, truncated,
     *                               corrupt, another layout version, unreadable).
     */
    public static MappedTableStats read(final Path path)
    {
        final long[] values = TableFile.statistics(path);
        return new MappedTableStats(path, values[2], values[3], (int)values[0], (int)(values[0] * values[1]),
            values[4], values[5], values[6], values[7], (int)values[8], new UUID(values[11], values[12]).toString(),
            values[9], 0 != values[10]);
    }

    /**
     * @return the statistics as lines of "name value", for people.
     */
    public String describe()
    {
        return String.format(Locale.ROOT,
            "table file          %s%n" +
            "limit               T = %d ns, tau = %d ns%n" +
            "geometry            %d shards, %d slots%n" +
            "live keys           %d (%.1f%% of the slots)%n" +
            "evictions           %d%n" +
            "table-full events   %d%n" +
            "CAS retries         %d%n" +
            "shard locks held    %d%n" +
            "time base           boot %s, %d rebases%s%n",
            path, emissionIntervalNs, toleranceNs, shardCount, slotCount, liveKeys, 100.0 * liveKeys / slotCount,
            evictions, tableFullEvents, casRetries, locksHeld, bootId, rebases, rebasing ? ", REBASING" : "");
    }
}
