package dev.cellrate;

import dev.cellrate.check.Bounds;
import dev.cellrate.table.SlotTable;

/**
 * What every keyed front has: the table it owns (built for it by {@link KeyedRateLimiterBuilder}, never shared)
 * and that table's counters. Package-private: users hold the fronts, by their contracts and
 * {@link TableCounters}.
 */
abstract class TableFront implements TableCounters
{
    /** The table this front owns. */
    final SlotTable table;

    TableFront(final SlotTable table)
    {
        this.table = Bounds.requireNonNull("table", table);
    }

    /**
     * @return the table (the engine's own tests, through {@code TestFronts}).
     */
    final SlotTable table()
    {
        return table;
    }

    public final long liveKeys()
    {
        return table.liveKeys();
    }

    public final long evictions()
    {
        return table.evictions();
    }

    public final long tableFullEvents()
    {
        return table.tableFullEvents();
    }

    public final long casRetries()
    {
        return table.casRetries();
    }
}
