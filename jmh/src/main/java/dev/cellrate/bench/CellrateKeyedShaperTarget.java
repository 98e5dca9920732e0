package dev.cellrate.bench;

import dev.cellrate.TestFronts;
import dev.cellrate.KeyedRateLimiterBuilder;
import dev.cellrate.KeyedShaper;
import dev.cellrate.ShaperMode;
import dev.cellrate.table.SlotTable;
import org.agrona.concurrent.SystemNanoClock;


/**
 * cellrate's {@link KeyedShaper} in delay mode ({@code reserve}: admit and return the release delay) on a
 * table of the same shape as {@link CellrateKeyedTarget}'s (the builder's slot count for the key count, its
 * default shards, probe bound and idle grace), with the admitting limit and the caller's time.
 */
final class CellrateKeyedShaperTarget extends KeyedTarget
{
    private final KeyedShaper shaper;

    /**
     * @param keyCount expected keys.
     */
    CellrateKeyedShaperTarget(final int keyCount)
    {
        final int slots = RandomCasTarget.slotsFor(keyCount);
        final int shards = RandomCasTarget.shardsFor(keyCount);
        final int slotsPerShard = slots / shards;
        final SlotTable table = new SlotTable(shards, slotsPerShard,
            Math.min(KeyedRateLimiterBuilder.DEFAULT_PROBE_BOUND, slotsPerShard),
            KeyedRateLimiterBuilder.DEFAULT_IDLE_GRACE_NS);
        shaper = TestFronts.keyedShaper(SingleLimiterBenchmark.CELLRATE_ADMIT, ShaperMode.delay(), table,
            SystemNanoClock.INSTANCE);
    }

    @Override
    boolean wantsBoxedKeys()
    {
        return false;
    }

    @Override
    long offHeapBytes()
    {
        return TestFronts.tableOf(shaper).capacityBytes();
    }

    /**
     * @return 0 if admitted (whatever the delay), 1 if rejected.
     */
    @Override
    long decideLong(final long key, final Long boxedKey, final long nowNs)
    {
        return shaper.reserve(key, 1, nowNs) >= 0 ? 0 : 1;
    }

    @Override
    long decideString(final String key, final long nowNs)
    {
        return shaper.reserve(key, 1, nowNs, null) >= 0 ? 0 : 1;
    }
}
