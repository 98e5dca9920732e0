package dev.cellrate.table.mapped;

import dev.cellrate.table.SharedTable;
import dev.cellrate.table.SlotTable;
import org.agrona.concurrent.NanoClock;

import java.nio.file.Path;

/**
 * The one entry into this package for the keyed fronts' builders: a {@link SlotTable} whose bytes are a file
 * ({@link TableFile}), shared with the other processes of the host that open the same file, and kept across
 * restarts, with the file's limits ({@link SharedLimit}). The fronts decide on it exactly as on an anonymous table
 * (one validated load and one CAS per decision on a present key); inserts and sweeps take the shard lock of
 * {@link SharedShardLock}.
 */
public final class MappedTable
{
    /** A {@code KeyedRateLimiter}'s table: one fixed limit. */
    public static final int KEYED = TableFileLayout.KIND_KEYED_RATE_LIMITER;

    /** A {@code ReconfigurableKeyedRateLimiter}'s table: one limit, changed by reconfiguration. */
    public static final int RECONFIGURABLE = TableFileLayout.KIND_RECONFIGURABLE;

    /** A {@code KeyedShaper}'s table: one fixed limit. */
    public static final int SHAPER = TableFileLayout.KIND_SHAPER;

    /** A {@code ClassedKeyedRateLimiter}'s table: one fixed limit per class. */
    public static final int CLASSED = TableFileLayout.KIND_CLASSED;

    private final SlotTable table;
    private final SharedLimit limit;

    private MappedTable(final SlotTable table, final SharedLimit limit)
    {
        this.table = table;
        this.limit = limit;
    }

    /**
     * Open (or create) a table file.
     *
     * @param path          the file.
     * @param kind          the front's kind ({@link #KEYED}, {@link #RECONFIGURABLE}, {@link #SHAPER},
     *                      {@link #CLASSED}; part of the file's identity).
     * @param limitsNs      every limit's {@code (T, tau)}, class 0 first: the file's limits in use must be these.
     * @param policyOrdinal the table-full policy's ordinal (part of the file's identity).
     * @param shardCount    shards (validated by the builder).
     * @param slotsPerShard slots per shard (validated by the builder).
     * @param probeBound    the probe bound (validated by the builder).
     * @param idleGraceNs   the idle grace.
     * @param newKeyLagNs   the initial fill of new keys (0: full).
     * @param fixedSecret   a fixed key-hash secret {k0, k1}, or null (a new file draws one from SecureRandom).
     * @param clock         the limiter's clock: must be the system's monotonic clock, the clock of the file's words.
     * @return the table over the file's bytes, and the file's limits.
     * @throws IllegalStateException naming the file and what is wrong with it.
     */
    public static MappedTable open(
        final Path path,
        final int kind,
        final long[] limitsNs,
        final int policyOrdinal,
        final int shardCount,
        final int slotsPerShard,
        final int probeBound,
        final long idleGraceNs,
        final long newKeyLagNs,
        final long[] fixedSecret,
        final NanoClock clock)
    {
        final TableSpec spec = new TableSpec(kind, limitsNs, newKeyLagNs, idleGraceNs, policyOrdinal, shardCount,
            slotsPerShard, probeBound);
        final TableFile file = TableFile.open(path, spec, fixedSecret);
        final SharedLimit limit = new SharedLimit(file);
        final SharedShardLock lock = new SharedShardLock(file.table, shardCount, slotsPerShard, limit::maxLagNs);
        return new MappedTable(SharedTable.over(shardCount, slotsPerShard, probeBound, idleGraceNs, file.secret0,
            file.secret1, clock, file.table, lock, new FileMarks(file)), limit);
    }

    /**
     * @return the table over the file's bytes.
     */
    public SlotTable table()
    {
        return table;
    }

    /**
     * @return the file's limits, as every process sees them.
     */
    public SharedLimit limit()
    {
        return limit;
    }
}
