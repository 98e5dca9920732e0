package dev.cellrate;

import dev.cellrate.layout.CellLayout;
import org.agrona.UnsafeApi;

/**
 * The TAT cell on the heap, inside the object of the limiter that owns it (the one padded holder of the engine;
 * {@link RateLimiter} extends {@link After}). The off-heap {@link CellLayout} cell is 128 bytes alone on its
 * line pair; this is the same cell laid out in a Java object, so the admit path reads and CASes
 * {@code [this + WORD_OFFSET]}: a constant offset from the limiter itself, with no load of a buffer, base or
 * address before the TAT load (see docs/design.md "The single limiter's cell is on the heap").
 * <pre>
 *  object of a subclass of After (offsets with compressed class pointers; a superclass's fields come first)
 *  +---------------------------------------------------------------+  0
 *  |  object header (mark word, class word)                        |
 *  +---------------------------------------------------------------+  12 or 16
 *  |  Before: 16 longs of padding, never read or written           |  128 bytes
 *  +---------------------------------------------------------------+  WORD_OFFSET (144 here)
 *  |  Word: the TAT (ns, signed), read acquire, written by CAS     |
 *  +---------------------------------------------------------------+
 *  |  After: 16 longs of padding, never read or written            |  128 bytes
 *  +---------------------------------------------------------------+
 *  |  the subclass's own fields (final, read-only)                 |
 *  +---------------------------------------------------------------+
 * </pre>
 * At least {@link CellLayout#CELL_LENGTH} bytes of this object lie on each side of the word, so no other
 * object's field shares its 128-byte line pair; the subclass's final fields sit after the padding (the JVM may
 * put one small field in the header's 4-byte gap: read-only, and still 128 bytes from the word).
 * {@code HeapTatCellTest} checks the offsets on the running JVM.
 * <p>
 * Publication: the word is written {@link CellArray#FRESH_TAT_NS} (or the initial fill) in the constructor,
 * before the subclass's final fields are frozen; publish the limiter as any object with mutable state (a final
 * field, a volatile, a queue), as for {@code java.util.concurrent.atomic.AtomicLong}.
 */
final class HeapTatCell
{
    /** Offset of the TAT word from the start of the object (the {@code base} of {@code Unsafe} access). */
    static final long WORD_OFFSET;

    /** What the JVM threw on the first use of Agrona's {@code Unsafe} (no {@link CellArray#JVM_OPTION}), or null. */
    private static final LinkageError UNAVAILABLE;

    static
    {
        long offset = -1;
        LinkageError unavailable = null;
        try
        {
            offset = UnsafeApi.objectFieldOffset(Word.class, "tatNs");
        }
        catch (final LinkageError ex)
        {
            unavailable = ex;
        }
        WORD_OFFSET = offset;
        UNAVAILABLE = unavailable;
    }

    private HeapTatCell()
    {
    }

    /**
     * @throws IllegalStateException naming {@link CellArray#JVM_OPTION} when Agrona cannot reach {@code Unsafe}.
     */
    static void requireUnsafe()
    {
        if (null != UNAVAILABLE)
        {
            throw CellArray.missingJvmOption(UNAVAILABLE);
        }
    }

    /** Padding before the word: laid out first, as superclass fields are. */
    abstract static class Before
    {
        long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
    }

    /** The word. Accessed only through {@code Unsafe} at {@link #WORD_OFFSET} (acquire read, CAS). */
    abstract static class Word extends Before
    {
        long tatNs = CellArray.FRESH_TAT_NS;
    }

    /** Padding after the word; the subclass's fields follow. */
    abstract static class After extends Word
    {
        long q00, q01, q02, q03, q04, q05, q06, q07, q08, q09, q10, q11, q12, q13, q14, q15;
    }
}
