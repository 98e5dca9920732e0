package dev.cellrate.gcra;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A charge is undone exactly, or not at all when another charge landed on top of it. */
class RefundSpecTest
{
    @Test
    void aChargeIsUndoneOnlyWhileTheWordStillHoldsIt()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64]);
        buffer.putLongVolatile(8, 1_100); // our charge of 100 wrote 1_100
        assertTrue(Refund.undo(buffer, 8, 1_100, 100));
        assertEquals(1_000, buffer.getLongVolatile(8), "back to what the charge read");
        assertFalse(Refund.undo(buffer, 8, 1_100, 100), "undone once, not twice");
        assertEquals(1_000, buffer.getLongVolatile(8));
        buffer.putLongVolatile(8, 1_200); // another charge was kept on top of ours
        assertFalse(Refund.undo(buffer, 8, 1_100, 100), "the charge stays (leaks) rather than undo another one");
        assertEquals(1_200, buffer.getLongVolatile(8));
    }
}
