package dev.cellrate.table.mapped;

import dev.cellrate.table.TableLayout;

/**
 * What a front asks of a keyed-table file: its kind, its limit and table configuration, and its geometry. A file
 * made for another spec is refused, naming the first field that differs ({@link #firstDifference}). The key-hash
 * secret is not part of the spec: a new file draws one (or takes a fixed one), an existing file supplies its own.
 */
final class TableSpec
{
    final int kind;
    final long emissionIntervalNs;
    final long toleranceNs;
    final long newKeyLagNs;
    final long idleGraceNs;
    final int tableFullPolicy;
    final int shardCount;
    final int slotsPerShard;
    final int probeBound;

    /**
     * @param kind               the table kind ({@link TableFileLayout#KIND_KEYED_RATE_LIMITER}).
     * @param emissionIntervalNs the limit's T.
     * @param toleranceNs        the limit's tau.
     * @param newKeyLagNs        the initial fill of new keys (0: full).
     * @param idleGraceNs        the idle grace.
     * @param tableFullPolicy    the table-full policy's ordinal.
     * @param shardCount         shards (validated by the builder).
     * @param slotsPerShard      slots per shard (validated by the builder).
     * @param probeBound         the probe bound (validated by the builder).
     */
    TableSpec(
        final int kind,
        final long emissionIntervalNs,
        final long toleranceNs,
        final long newKeyLagNs,
        final long idleGraceNs,
        final int tableFullPolicy,
        final int shardCount,
        final int slotsPerShard,
        final int probeBound)
    {
        this.kind = kind;
        this.emissionIntervalNs = emissionIntervalNs;
        this.toleranceNs = toleranceNs;
        this.newKeyLagNs = newKeyLagNs;
        this.idleGraceNs = idleGraceNs;
        this.tableFullPolicy = tableFullPolicy;
        this.shardCount = shardCount;
        this.slotsPerShard = slotsPerShard;
        this.probeBound = probeBound;
    }

    /** @return bytes of the table region ({@link TableLayout#length}). */
    int tableLength()
    {
        return TableLayout.length(shardCount, shardCount * slotsPerShard);
    }

    /**
     * @return {@code 2 (tau + T)}: the largest lag any front leaves on a key (an empty bucket plus a debit's full
     * burst of debt, {@code Limit#debtCeilingNs}), so {@code now + maxLag} bounds every TAT written at {@code now}.
     */
    long maxLagNs()
    {
        return 2 * (toleranceNs + emissionIntervalNs);
    }

    /**
     * @param file the spec a file was made for.
     * @return null if equal, else "field: the file has X, this limiter asks for Y" for the first field that
     * differs, in the order kind, limit, table configuration, geometry.
     */
    String firstDifference(final TableSpec file)
    {
        if (kind != file.kind)
        {
            return differs("table kind", file.kind, kind);
        }
        if (emissionIntervalNs != file.emissionIntervalNs)
        {
            return differs("limit emissionIntervalNs", file.emissionIntervalNs, emissionIntervalNs);
        }
        if (toleranceNs != file.toleranceNs)
        {
            return differs("limit toleranceNs", file.toleranceNs, toleranceNs);
        }
        if (newKeyLagNs != file.newKeyLagNs)
        {
            return differs("initial fill (new-key lag ns)", file.newKeyLagNs, newKeyLagNs);
        }
        if (idleGraceNs != file.idleGraceNs)
        {
            return differs("idleGraceNs", file.idleGraceNs, idleGraceNs);
        }
        if (tableFullPolicy != file.tableFullPolicy)
        {
            return differs("tableFullPolicy (ordinal)", file.tableFullPolicy, tableFullPolicy);
        }
        if (shardCount != file.shardCount)
        {
            return differs("shardCount", file.shardCount, shardCount);
        }
        if (slotsPerShard != file.slotsPerShard)
        {
            return differs("slotsPerShard", file.slotsPerShard, slotsPerShard);
        }
        if (probeBound != file.probeBound)
        {
            return differs("probeBound", file.probeBound, probeBound);
        }
        return null;
    }

    private static String differs(final String field, final long inFile, final long asked)
    {
        return field + ": the file has " + inFile + ", this limiter asks for " + asked;
    }
}
