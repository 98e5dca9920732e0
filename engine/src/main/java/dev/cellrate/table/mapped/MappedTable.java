package dev.cellrate.table.mapped;

import dev.cellrate.table.SharedTable;
import dev.cellrate.table.SlotTable;
import org.agrona.concurrent.NanoClock;

import java.nio.file.Path;

/**
 * The one entry into this package for the keyed fronts' builders: a {@link SlotTable} whose bytes are a file
 * ({@link TableFile}), shared with the other processes of the host that open the same file, and kept across
 * restarts. The fronts decide on it exactly as on an anonymous table (one validated load and one CAS per
 * decision on a present key); inserts and sweeps take the shard lock of {@link SharedShardLock}.
 */
public final class MappedTable
{
    private MappedTable()
    {
    }

    /**
     * Open (or create) the table file of a {@code KeyedRateLimiter}.
     *
     * @param path          the file.
     * @param emissionIntervalNs the limit's T (part of the file's identity).
     * @param toleranceNs        the limit's tau (part of the file's identity).
     * @param policyOrdinal      the table-full policy's ordinal (part of the file's identity).
     * @param shardCount    shards (validated by the builder).
     * @param slotsPerShard slots per shard (validated by the builder).
     * @param probeBound    the probe bound (validated by the builder).
     * @param idleGraceNs   the idle grace.
     * @param newKeyLagNs   the initial fill of new keys (0: full).
     * @param fixedSecret   a fixed key-hash secret {k0, k1}, or null (a new file draws one from SecureRandom).
     * @param clock         the limiter's clock: must be the system's monotonic clock, the clock of the file's words.
     * @return the table over the file's bytes.
     * @throws IllegalStateException naming the file and what is wrong with it.
     */
    public static SlotTable keyedRateLimiter(
        final Path path,
        final long emissionIntervalNs,
        final long toleranceNs,
        final int policyOrdinal,
        final int shardCount,
        final int slotsPerShard,
        final int probeBound,
        final long idleGraceNs,
        final long newKeyLagNs,
        final long[] fixedSecret,
        final NanoClock clock)
    {
        final TableSpec spec = new TableSpec(TableFileLayout.KIND_KEYED_RATE_LIMITER, emissionIntervalNs,
            toleranceNs, newKeyLagNs, idleGraceNs, policyOrdinal, shardCount, slotsPerShard, probeBound);
        final TableFile file = TableFile.open(path, spec, fixedSecret);
        final SharedShardLock lock = new SharedShardLock(file.table, shardCount, slotsPerShard, spec.maxLagNs());
        return SharedTable.over(shardCount, slotsPerShard, probeBound, idleGraceNs, file.secret0, file.secret1, clock,
            file.table, lock);
    }
}
