package dev.cellrate.stat;

import org.agrona.BitUtil;
import org.agrona.SemanticVersion;
import org.agrona.concurrent.status.CountersReader;

/**
 * The layout of a cellrate statistics file ({@value #FILE_NAME} in a directory the user names), after Aeron's
 * CnC file: a header, then an Agrona counters metadata buffer, a values buffer, and the top-keys sketch
 * region. The writer fills everything else first and writes {@link #VERSION} last (release store), so a
 * reader that sees a non-zero version (acquire load) sees a complete header.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                 Version (semantic, written last)              |  VERSION_OFFSET        0
 *  +---------------------------------------------------------------+
 *  |                     Metadata Buffer Length                    |  METADATA_LENGTH_OFFSET 4
 *  +---------------------------------------------------------------+
 *  |                      Values Buffer Length                     |  VALUES_LENGTH_OFFSET   8
 *  +---------------------------------------------------------------+
 *  |                      Sketch Region Length                     |  SKETCH_LENGTH_OFFSET   12
 *  +---------------------------------------------------------------+
 *  |                         Process Id                            |  PID_OFFSET             16
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                   Start Timestamp (epoch ms)                  |  START_TIMESTAMP_OFFSET 24
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                   Padding to HEADER_LENGTH (128)            ...
 *  +---------------------------------------------------------------+
 *  |                   Counters Metadata Buffer                  ...  (Agrona CountersReader layout)
 *  +---------------------------------------------------------------+
 *  |                   Counters Values Buffer                    ...  (Agrona CountersReader layout)
 *  +---------------------------------------------------------------+
 *  |                   Top-Keys Sketch Region                    ...  (see {@link TopKeys})
 *  +---------------------------------------------------------------+
 * </pre>
 * Counters: every counter's key (first bytes of its metadata key area) says which limiter and which
 * statistic it belongs to:
 * <pre>
 *  +---------------------------------------------------------------+
 *  |  Limiter Id (int)  |  Stripe (int)  |  Stripes (int)  | Name Length (int) | Name (ASCII, &le; 96 bytes) ...
 *  +---------------------------------------------------------------+
 * </pre>
 * and its type id is {@link StatKind#typeId()}. A statistic striped over several counters (decision
 * outcomes, written by many threads) is the sum of its stripes.
 */
public final class StatLayout
{
    /** The file's name inside the user's directory. */
    public static final String FILE_NAME = "cellrate-stat.dat";

    /** The file a live writer holds an OS lock on, beside {@link #FILE_NAME}: one live writer a directory. */
    static final String LOCK_FILE_NAME = "cellrate-stat.lock";

    /** Major version: a reader refuses a file of another major version. */
    static final int MAJOR_VERSION = 1;

    /** The version this code writes. */
    static final int VERSION = SemanticVersion.compose(MAJOR_VERSION, 0, 0);

    static final int VERSION_OFFSET = 0;
    static final int METADATA_LENGTH_OFFSET = VERSION_OFFSET + BitUtil.SIZE_OF_INT;
    static final int VALUES_LENGTH_OFFSET = METADATA_LENGTH_OFFSET + BitUtil.SIZE_OF_INT;
    static final int SKETCH_LENGTH_OFFSET = VALUES_LENGTH_OFFSET + BitUtil.SIZE_OF_INT;
    static final int PID_OFFSET = SKETCH_LENGTH_OFFSET + BitUtil.SIZE_OF_INT;
    static final int START_TIMESTAMP_OFFSET = PID_OFFSET + BitUtil.SIZE_OF_LONG;
    /** Header length; the metadata buffer starts here (cache-line pair aligned). */
    static final int HEADER_LENGTH = 2 * BitUtil.CACHE_LINE_LENGTH;

    static final int KEY_LIMITER_ID_OFFSET = 0;
    static final int KEY_STRIPE_OFFSET = KEY_LIMITER_ID_OFFSET + BitUtil.SIZE_OF_INT;
    static final int KEY_STRIPES_OFFSET = KEY_STRIPE_OFFSET + BitUtil.SIZE_OF_INT;
    static final int KEY_NAME_LENGTH_OFFSET = KEY_STRIPES_OFFSET + BitUtil.SIZE_OF_INT;
    static final int KEY_NAME_OFFSET = KEY_NAME_LENGTH_OFFSET + BitUtil.SIZE_OF_INT;
    /** Longest limiter name, in ASCII bytes. */
    public static final int MAX_NAME_LENGTH = CountersReader.MAX_KEY_LENGTH - KEY_NAME_OFFSET;

    private StatLayout()
    {
    }

    /**
     * @param maxCounters counters the file can hold.
     * @return the values buffer length.
     */
    static int valuesLength(final int maxCounters)
    {
        return maxCounters * CountersReader.COUNTER_LENGTH;
    }

    /**
     * @param maxCounters counters the file can hold.
     * @return the metadata buffer length.
     */
    static int metadataLength(final int maxCounters)
    {
        return maxCounters * CountersReader.METADATA_LENGTH;
    }

    /**
     * @param metadataLength metadata buffer length.
     * @param valuesLength   values buffer length.
     * @param sketchLength   sketch region length.
     * @return the whole file's length.
     */
    static long fileLength(final int metadataLength, final int valuesLength, final int sketchLength)
    {
        return (long)HEADER_LENGTH + metadataLength + valuesLength + sketchLength;
    }
}
