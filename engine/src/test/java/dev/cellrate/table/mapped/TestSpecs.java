package dev.cellrate.table.mapped;

/** Table specs for this package's tests. */
final class TestSpecs
{
    static final int SHARDS = 4;
    static final int SLOTS_PER_SHARD = 64;
    static final long T_NS = 1_000_000L;
    static final long TAU_NS = 9_000_000L;

    private TestSpecs()
    {
    }

    /** @return 4 shards of 64 slots, T = 1 ms, tau = 9 ms (burst 10), grace 1 s. */
    static TableSpec small()
    {
        return sized(SLOTS_PER_SHARD);
    }

    static TableSpec sized(final int slotsPerShard)
    {
        return new TableSpec(TableFileLayout.KIND_KEYED_RATE_LIMITER, new long[] {T_NS, TAU_NS}, 0, 1_000_000_000L, 0,
            SHARDS, slotsPerShard, Math.min(64, slotsPerShard));
    }
}
