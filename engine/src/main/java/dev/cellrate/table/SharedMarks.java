package dev.cellrate.table;

import org.agrona.concurrent.AtomicBuffer;

/**
 * The high-water marks of a {@link SlotTable} whose buffer other processes share ({@link SharedTable}): one word
 * per slot (by slot index), in memory every sharing process maps, so that a reclaim in any process sees the mark
 * a refund in any other process recorded (the ABA rule of {@link SlotTable}). Created at the first refund of any
 * process; a table of one process allocates its own instead.
 */
public interface SharedMarks
{
    /**
     * @return the marks if a process has created them, else null. A volatile read orders it after the read of a
     * word a refund lowered: a refund creates the marks and writes its mark before it lowers the word.
     * @throws IllegalStateException if they were created but cannot be reached (a reclaim then takes the slot for
     *                               not idle).
     */
    AtomicBuffer ifCreated();

    /**
     * @return the marks, created for every sharing process if none has yet, every word at
     * {@link TableLayout#NO_HIGH_WATER_NS}; or null if they cannot be created (a full disk): the refund then gives
     * nothing back.
     */
    AtomicBuffer create();
}
