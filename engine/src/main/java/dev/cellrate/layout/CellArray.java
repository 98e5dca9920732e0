package dev.cellrate.layout;

import dev.cellrate.check.Bounds;
import dev.cellrate.layout.OffHeap;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Padded single-word cells, for one limiter or for users who manage many: cell {@code i}'s TAT word is at
 * {@link #tatOffset(int)}, in the TAT-cell layout of {@link CellLayout} (128 bytes a cell, 128-byte aligned, so
 * two cells never share a cache-line pair). A fresh cell holds {@link #FRESH_TAT_NS} ({@link Long#MIN_VALUE}),
 * which GCRA reads as a full bucket at any time.
 * <p>
 * Memory: the cells live in a direct {@link java.nio.ByteBuffer} referenced by this object (through its
 * {@link UnsafeBuffer}), always off-heap: a cell's word is at the absolute address
 * {@code buffer().addressOffset() + tatOffset(i)} with no base object, as the cell loop reads it. It is released only by the garbage collector after every limiter that holds this
 * array is unreachable, so no code can touch the memory after its release; there is deliberately no
 * {@code close()}.
 * <p>
 * Threading: the array itself is immutable; see each limiter for the access it makes to its cell.
 */
public final class CellArray
{
    /**
     * The one JVM option every JVM that runs the engine needs (Agrona 2.x reads
     * {@code jdk.internal.misc.Unsafe}). A compile-time constant, so JMH's {@code @Fork(jvmArgsAppend = ...)}
     * and launchers can use it; the build spells it once too, as the root pom's {@code cellrate.addExports}.
     */
    public static final String JVM_OPTION = OffHeap.JVM_OPTION;

    /**
     * The value of a fresh cell: a TAT earlier than any time, i.e. a full bucket at any time. Also the TAT a
     * decision reports when it read no cell (a full bucket). The one name of this sentinel in the engine.
     */
    public static final long FRESH_TAT_NS = Long.MIN_VALUE;

    /**
     * Most cells in one array: the buffer is indexed by {@code int}, and the aligned allocation asks for
     * {@link CellLayout#CELL_ALIGNMENT} bytes more than the cells need.
     */
    public static final int MAX_CELLS = (Integer.MAX_VALUE - CellLayout.CELL_ALIGNMENT) / CellLayout.CELL_LENGTH;

    private final AtomicBuffer buffer;
    private final int cellCount;

    private CellArray(final int cellCount)
    {
        this(allocateBuffer(cellCount * CellLayout.CELL_LENGTH, CellLayout.CELL_ALIGNMENT), cellCount);
    }

    private CellArray(final AtomicBuffer buffer, final int cellCount)
    {
        this.cellCount = cellCount;
        this.buffer = buffer;
        for (int i = 0; i < cellCount; i++)
        {
            buffer.putLongVolatile(tatOffset(i), FRESH_TAT_NS);
        }
    }

    /**
     * Allocate an aligned direct buffer for off-heap state: the one place the engine first touches Agrona's
     * {@code UnsafeBuffer}, so a JVM started without {@link #JVM_OPTION} gets an error that names it instead of
     * a bare {@link IllegalAccessError}.
     *
     * @param length    bytes.
     * @param alignment alignment of the first byte, a power of two.
     * @return the zeroed, aligned buffer.
     * @throws IllegalStateException naming {@link #JVM_OPTION} when Agrona cannot reach {@code Unsafe}.
     */
    public static AtomicBuffer allocateBuffer(final int length, final int alignment)
    {
        return OffHeap.allocate(length, alignment);
    }

    /**
     * @param cellCount number of cells, in [1, {@link #MAX_CELLS}].
     * @return an array of fresh cells.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public static CellArray allocate(final int cellCount)
    {
        Bounds.requireRange("cellCount", cellCount, 1, MAX_CELLS);
        return new CellArray(cellCount);
    }

    /**
     * Tests only (package-private, reached through the test sources' {@code dev.cellrate.TestCells}): fresh
     * cells over a caller's buffer, e.g. one that performs another thread's write just before a CAS so a
     * unit test drives a limiter's retry branch deterministically. Production code never calls it, so the
     * cells' buffer stays a plain {@link UnsafeBuffer} and the hot path pays nothing. The buffer's alignment is
     * checked here ({@link #allocate}'s buffers are checked by {@link #allocateBuffer}).
     *
     * @throws IllegalStateException if the buffer is not aligned for atomic access or not off-heap.
     */
    public static CellArray over(final AtomicBuffer buffer, final int cellCount)
    {
        Bounds.requireRange("cellCount", cellCount, 1, buffer.capacity() / CellLayout.CELL_LENGTH);
        buffer.verifyAlignment();
        if (null != buffer.byteArray())
        {
            throw new IllegalStateException("buffer must be off-heap (a direct buffer or an address)");
        }
        return new CellArray(buffer, cellCount);
    }

    /**
     * @return the number of cells.
     */
    public int cellCount()
    {
        return cellCount;
    }

    /**
     * @return the buffer holding the cells (for limiters and tests; never release it yourself).
     */
    public AtomicBuffer buffer()
    {
        return buffer;
    }

    /**
     * @param index cell index in [0, cellCount).
     * @return the byte offset of that cell's TAT word: the cell's own offset, the TAT being its first word
     * ({@link CellLayout#TAT_OFFSET} is 0, asserted by {@code CellLayoutSpecTest}).
     */
    public static int tatOffset(final int index)
    {
        return CellLayout.cellOffset(index);
    }

    public int checkIndex(final int index)
    {
        Bounds.requireRange("cellIndex", index, 0, cellCount - 1);
        return index;
    }
}
