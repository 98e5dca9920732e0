package dev.cellrate.table.mapped;

import dev.cellrate.table.TableLayout;

/**
 * What a front asks of a keyed-table file: its kind, its limit and table configuration, and its geometry. A file
 * made for another spec is refused, naming the first field that differs ({@link #firstDifference}). The key-hash
 * secret is not part of the spec: a new file draws one (or takes a fixed one), an existing file supplies its own.
 */
final class TableSpec
{
    /** The table configuration and geometry, in the order a difference is reported. */
    private static final String[] CONFIGURATION_FIELDS = {"initial fill (new-key lag ns)", "idleGraceNs",
        "tableFullPolicy (ordinal)", "shardCount", "slotsPerShard", "probeBound"};

    final int kind;
    final long emissionIntervalNs;
    final long toleranceNs;
    /** Every limit's {@code (T, tau)}, limit 0 first: one for most kinds, one per class for a classed table. */
    final long[] limitsNs;
    final long newKeyLagNs;
    final long idleGraceNs;
    final int tableFullPolicy;
    final int shardCount;
    final int slotsPerShard;
    final int probeBound;

    /**
     * @param kind            the table kind.
     * @param limitsNs        every limit's {@code (T, tau)}, limit 0 first; at most {@link TableFileLayout#MAX_LIMITS}.
     * @param newKeyLagNs     the initial fill of new keys (0: full).
     * @param idleGraceNs     the idle grace.
     * @param tableFullPolicy the table-full policy's ordinal.
     * @param shardCount      shards (validated by the builder).
     * @param slotsPerShard   slots per shard (validated by the builder).
     * @param probeBound      the probe bound (validated by the builder).
     */
    TableSpec(
        final int kind,
        final long[] limitsNs,
        final long newKeyLagNs,
        final long idleGraceNs,
        final int tableFullPolicy,
        final int shardCount,
        final int slotsPerShard,
        final int probeBound)
    {
        this.kind = kind;
        this.limitsNs = limitsNs.clone();
        this.emissionIntervalNs = limitsNs[0];
        this.toleranceNs = limitsNs[1];
        this.newKeyLagNs = newKeyLagNs;
        this.idleGraceNs = idleGraceNs;
        this.tableFullPolicy = tableFullPolicy;
        this.shardCount = shardCount;
        this.slotsPerShard = slotsPerShard;
        this.probeBound = probeBound;
    }

    /** @return limits in the spec. */
    int limitCount()
    {
        return limitsNs.length / 2;
    }

    /** @return bytes of the table region ({@link TableLayout#length}). */
    int tableLength()
    {
        return TableLayout.length(shardCount, shardCount * slotsPerShard);
    }

    /**
     * @return {@code 2 (tau + T)} of the largest limit: the largest lag any front leaves on a key (an empty bucket plus a debit's full
     * burst of debt, {@code Limit#debtCeilingNs}), so {@code now + maxLag} bounds every TAT written at {@code now}.
     */
    long maxLagNs()
    {
        return HeaderLimits.maxLagNs(limitsNs);
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
            return "table kind: the file holds " + kindName(file.kind) + ", this front is " + kindName(kind);
        }
        if (limitCount() != file.limitCount())
        {
            return differs("limit count (classes)", file.limitCount(), limitCount());
        }
        final String[] fields = new String[2 * limitCount()];
        for (int i = 0; i < limitCount(); i++)
        {
            final String limit = (0 == i ? "limit " : "class " + i + " limit ") +
                (TableFileLayout.KIND_RECONFIGURABLE == kind ? "(the one in use: it changes only by setLimit of a " +
                "reconfigurable limiter on the file) " : "");
            fields[2 * i] = limit + "emissionIntervalNs";
            fields[2 * i + 1] = limit + "toleranceNs";
        }
        final String limits = firstDifference(fields, file.limitsNs, limitsNs);
        return null != limits ? limits : firstDifference(CONFIGURATION_FIELDS, file.configuration(), configuration());
    }

    /** @return the values of {@link #CONFIGURATION_FIELDS}, in that order. */
    private long[] configuration()
    {
        return new long[] {newKeyLagNs, idleGraceNs, tableFullPolicy, shardCount, slotsPerShard, probeBound};
    }

    private static String firstDifference(final String[] fields, final long[] inFile, final long[] asked)
    {
        for (int i = 0; i < fields.length; i++)
        {
            if (inFile[i] != asked[i])
            {
                return differs(fields[i], inFile[i], asked[i]);
            }
        }
        return null;
    }

    /**
     * @param kind a table kind.
     * @return what it names, for messages.
     */
    static String kindName(final int kind)
    {
        switch (kind)
        {
            case TableFileLayout.KIND_KEYED_RATE_LIMITER:
                return "a keyed limiter's table (a fixed limit, build())";
            case TableFileLayout.KIND_RECONFIGURABLE:
                return "a reconfigurable keyed limiter's table (its limit changed by setLimit, buildReconfigurable())";
            case TableFileLayout.KIND_SHAPER:
                return "a keyed shaper's table (buildShaper(mode))";
            case TableFileLayout.KIND_CLASSED:
                return "a classed keyed limiter's table (buildClassed(...))";
            default:
                return "an unknown kind of table (" + kind + ")";
        }
    }

    private static String differs(final String field, final long inFile, final long asked)
    {
        return field + ": the file has " + inFile + ", this limiter asks for " + asked;
    }
}
