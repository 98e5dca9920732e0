package dev.cellrate.layout;

import dev.cellrate.layout.CellArray;
import dev.cellrate.layout.CellLayout;
import org.agrona.concurrent.AtomicBuffer;

/**
 * The count of abandoned refunds of a composite front ({@link dev.cellrate.gcra.Refund}: a charge that stays because
 * another admission was kept on top of it), in its own padded cell so that counting never shares a line with a leg.
 * Thread-safe (atomic add, volatile read); allocation-free after construction.
 */
public final class LeakCounter
{
    private final AtomicBuffer buffer = CellArray.allocate(1).buffer();

    public LeakCounter()
    {
        buffer.putLongVolatile(CellLayout.TAT_OFFSET, 0);
    }

    /**
     * Count one abandoned refund.
     */
    public void leaked()
    {
        buffer.getAndAddLong(CellLayout.TAT_OFFSET, 1);
    }

    /**
     * @return refunds abandoned so far.
     */
    public long count()
    {
        return buffer.getLongVolatile(CellLayout.TAT_OFFSET);
    }
}
