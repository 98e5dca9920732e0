package dev.cellrate.layout;

import dev.cellrate.layout.CellArray;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The padded cell as {@link CellLayout} draws it ({@code dev.cellrate.layout}): cell i starts at
 * i * 128, so two cells never share a pair of 64-byte lines; the words of both cell kinds sit where the diagram
 * puts them; the largest cell index of a {@link CellArray} still has an int offset.
 */
final class CellLayoutSpecTest
{
    @Test
    void cellIStartsAtITimesTheCellLength()
    {
        assertEquals(0, CellLayout.cellOffset(0));
        assertEquals(128, CellLayout.cellOffset(1));
        assertEquals(384, CellLayout.cellOffset(3));
        assertEquals(128L * (CellArray.MAX_CELLS - 1), CellLayout.cellOffset(CellArray.MAX_CELLS - 1));
        for (int i = 0; i < 1_000; i++)
        {
            final int offset = CellLayout.cellOffset(i);
            assertEquals(0, offset % CellLayout.CELL_ALIGNMENT, "every cell starts aligned");
            assertEquals(i, offset / 128, "cell " + i + " is alone on line pair " + i);
        }
    }

    @Test
    void theWordsSitWhereTheDiagramPutsThem()
    {
        assertEquals(128, CellLayout.CELL_LENGTH);
        assertEquals(CellLayout.CELL_LENGTH, CellLayout.CELL_ALIGNMENT);
        assertEquals(0, CellLayout.TAT_OFFSET);
        assertEquals(0, CellLayout.STAMP_OFFSET);
        assertEquals(8, CellLayout.LAST_UPDATE_OFFSET);
        assertEquals(16, CellLayout.FIRST_OFFSET);
        assertEquals(24, CellLayout.SECOND_OFFSET);
        assertTrue(CellLayout.SECOND_OFFSET + Long.BYTES <= 64, "a seqlock cell's words share its first line");
        assertEquals(Long.MIN_VALUE, CellLayout.NEVER_UPDATED_NS);
    }
}
