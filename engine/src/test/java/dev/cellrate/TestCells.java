package dev.cellrate;

import dev.cellrate.layout.CellArray;
import dev.cellrate.layout.CellLayout;
import dev.cellrate.testing.InterposingBuffer;

/** Test access to {@link CellArray#over}: cells whose CAS a unit test can make lose once. */
public final class TestCells
{
    private TestCells()
    {
    }

    /** @return {@code cellCount} fresh cells over an {@link InterposingBuffer}. */
    public static CellArray interposing(final InterposingBuffer buffer, final int cellCount)
    {
        return CellArray.over(buffer, cellCount);
    }

    /** @return a buffer big enough for {@code cellCount} cells. */
    public static InterposingBuffer buffer(final int cellCount)
    {
        return new InterposingBuffer(cellCount * CellLayout.CELL_LENGTH);
    }
}
