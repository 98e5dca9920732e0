package dev.cellrate.table.mapped;

import static org.agrona.BitUtil.SIZE_OF_INT;
import static org.agrona.BitUtil.SIZE_OF_LONG;

/**
 * Layout of a keyed-table file: a one-page header, then the table's bytes exactly as
 * {@link dev.cellrate.table.TableLayout} draws them (the table region starts on a page, so every cell and slot
 * keeps its alignment). Numbers are in the host's byte order, as the table's words are (little-endian on x86-64
 * and AArch64); a host of the other order reads a foreign magic and refuses the file.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |               magic "CRTABLE1" (8 bytes)                      |  MAGIC_OFFSET          0
 *  +-------------------------------+-------------------------------+
 *  |        layout version         |          table kind           |  VERSION_OFFSET        8
 *  +-------------------------------+-------------------------------+
 *  |        header length          |       table-full policy       |  HEADER_LENGTH_OFFSET 16
 *  +-------------------------------+-------------------------------+
 *  |                   file length (bytes)                         |  FILE_LENGTH_OFFSET   24
 *  +---------------------------------------------------------------+
 *  +-------------------------------+-------------------------------+
 *  |         limit count           |            (zero)             |  LIMIT_COUNT_OFFSET   32
 *  +-------------------------------+-------------------------------+
 *  |                   (zero)                                      |                       40
 *  |                   new-key lag (ns, 0: new keys start full)    |  NEW_KEY_LAG_OFFSET   48
 *  |                   idle grace (ns)                             |  IDLE_GRACE_OFFSET    56
 *  +-------------------------------+-------------------------------+
 *  |          shard count          |        slots per shard        |  SHARD_COUNT_OFFSET   64
 *  +-------------------------------+-------------------------------+
 *  |          probe bound          |          slot length          |  PROBE_BOUND_OFFSET   72
 *  +-------------------------------+-------------------------------+
 *  |      shard header length      |          (zero)               |  SHARD_HEADER_..      80
 *  +-------------------------------+-------------------------------+
 *  |                   table offset (bytes)                        |  TABLE_OFFSET_OFFSET  88
 *  |                   table length (bytes)                        |  TABLE_LENGTH_OFFSET  96
 *  |                   key-hash secret k0                          |  SECRET0_OFFSET      104
 *  |                   key-hash secret k1                          |  SECRET1_OFFSET      112
 *  |                   CRC32C of bytes 0..119                      |  CHECKSUM_OFFSET     120
 *  +---------------------------------------------------------------+  -- time base (rewritten on a reboot)
 *  |                   boot id, high 64 bits                       |  BOOT_ID_HI_OFFSET   128
 *  |                   boot id, low 64 bits                        |  BOOT_ID_LO_OFFSET   136
 *  |                   time-namespace monotonic offset (ns)        |  TIMENS_OFFSET       144
 *  |                   anchor: CLOCK_MONOTONIC (ns)                |  ANCHOR_MONO_OFFSET  152
 *  |                   anchor: wall clock (ns since the epoch)     |  ANCHOR_WALL_OFFSET  160
 *  |                   rebases (count)                             |  REBASES_OFFSET      168
 *  |                   CRC32C of bytes 128..175                    |  TIME_CHECKSUM_..    176
 *  |                   time-base state: STEADY or REBASING         |  TIME_STATE_OFFSET   184
 *  |                   pid namespace (inode of /proc/self/ns/pid)  |  PID_NS_OFFSET       192
 *  |                   latest anchor: CLOCK_MONOTONIC (ns)         |  LATEST_MONO_OFFSET  200
 *  |                   latest anchor: wall clock (ns)              |  LATEST_WALL_OFFSET  208
 *  |                   CRC32C of bytes 200..215                    |  LATEST_CHECKSUM_.. 216
 *  |                   high-water marks: 0, or their file offset   |  MARKS_OFFSET_OFFSET 224
 *  +---------------------------------------------------------------+
 *  |                   (zero)                                      |                     232
 *  +---------------------------------------------------------------+  -- limits (changed by reconfiguration)
 *  |                   limit generation (copy in use = gen &amp; 1)   |  LIMIT_GENERATION_.. 256
 *  +---------------------------------------------------------------+
 *  |   copy 0: limit count x (T ns, tau ns), CRC32C of those       |  LIMITS_OFFSET       264
 *  |   copy 1: the same                                            |  + limitsCopyLength
 *  +---------------------------------------------------------------+
 *  |                   zero to HEADER_LENGTH (4096)                |
 *  +---------------------------------------------------------------+  TABLE_REGION_OFFSET 4096
 *  |   the table: dedicated cells, shard headers, slots            |
 *  |   (dev.cellrate.table.TableLayout, table length bytes)        |
 *  +---------------------------------------------------------------+  file length
 * </pre>
 * Bytes 0..127 never change after creation and are covered by {@link #CHECKSUM_OFFSET}. Bytes 128..199 change
 * only when a process of a new boot rebases the table, under the file's open lock, with the state word at
 * {@link #REBASING} for the whole rewrite (see {@link TableFile}). The pid namespace is checked on opening: shard
 * lock holders are named by process id ({@link LockHolder}), which means one process only within one namespace.
 * <p>
 * The limits (one for a keyed limiter or shaper, one per class for a classed limiter) are kept twice. A change
 * (a reconfigurable limiter's {@code setLimit}, under the file's lock) writes the copy not in use, with its
 * checksum, and then advances the generation with one volatile store: a reader reads the generation, the copy it
 * names, and the generation again, and retries if it moved ({@link HeaderLimits}). A change cut short by a crash
 * leaves the copy in use whole.
 * <p>
 * The high-water marks of refunds ({@link FileMarks}) are one word per slot after the table, at
 * {@link #marksOffset}: the file is extended by them at its first refund, and {@link #MARKS_OFFSET_OFFSET} is set
 * once they are written.
 */
final class TableFileLayout
{
    /** "CRTABLE1" read as a long on a little-endian host. */
    static final long MAGIC = 0x31454C4241545243L;

    /**
     * The layout this engine writes and reads. The version names the insert order too: version 2 has the same
     * bytes, but its engines place a key in the first free slot of its home line and end a probe at the first
     * EMPTY slot, so they would not find a key this engine placed from its preferred slot on, and would insert it
     * again.
     */
    static final int LAYOUT_VERSION = 3;

    /** Table kind of a {@code KeyedRateLimiter}'s table: one fixed limit, plain key words. */
    static final int KIND_KEYED_RATE_LIMITER = 1;

    /** Table kind of a {@code ReconfigurableKeyedRateLimiter}'s table: one limit, changed by reconfiguration. */
    static final int KIND_RECONFIGURABLE = 2;

    /** Table kind of a {@code KeyedShaper}'s table: one fixed limit, plain key words, refunds by cancel. */
    static final int KIND_SHAPER = 3;

    /** Table kind of a {@code ClassedKeyedRateLimiter}'s table: one fixed limit per class, classed key words. */
    static final int KIND_CLASSED = 4;

    static final int MAGIC_OFFSET = 0;
    static final int VERSION_OFFSET = MAGIC_OFFSET + SIZE_OF_LONG;
    static final int KIND_OFFSET = VERSION_OFFSET + SIZE_OF_INT;
    static final int HEADER_LENGTH_OFFSET = KIND_OFFSET + SIZE_OF_INT;
    static final int POLICY_OFFSET = HEADER_LENGTH_OFFSET + SIZE_OF_INT;
    static final int FILE_LENGTH_OFFSET = POLICY_OFFSET + SIZE_OF_INT;
    static final int LIMIT_COUNT_OFFSET = FILE_LENGTH_OFFSET + SIZE_OF_LONG;
    static final int NEW_KEY_LAG_OFFSET = LIMIT_COUNT_OFFSET + 2 * SIZE_OF_LONG;
    static final int IDLE_GRACE_OFFSET = NEW_KEY_LAG_OFFSET + SIZE_OF_LONG;
    static final int SHARD_COUNT_OFFSET = IDLE_GRACE_OFFSET + SIZE_OF_LONG;
    static final int SLOTS_PER_SHARD_OFFSET = SHARD_COUNT_OFFSET + SIZE_OF_INT;
    static final int PROBE_BOUND_OFFSET = SLOTS_PER_SHARD_OFFSET + SIZE_OF_INT;
    static final int SLOT_LENGTH_OFFSET = PROBE_BOUND_OFFSET + SIZE_OF_INT;
    static final int SHARD_HEADER_LENGTH_OFFSET = SLOT_LENGTH_OFFSET + SIZE_OF_INT;
    static final int TABLE_OFFSET_OFFSET = SHARD_HEADER_LENGTH_OFFSET + 2 * SIZE_OF_INT;
    static final int TABLE_LENGTH_OFFSET = TABLE_OFFSET_OFFSET + SIZE_OF_LONG;
    static final int SECRET0_OFFSET = TABLE_LENGTH_OFFSET + SIZE_OF_LONG;
    static final int SECRET1_OFFSET = SECRET0_OFFSET + SIZE_OF_LONG;
    static final int CHECKSUM_OFFSET = SECRET1_OFFSET + SIZE_OF_LONG;

    /** Start of the time base. */
    static final int BOOT_ID_HI_OFFSET = CHECKSUM_OFFSET + SIZE_OF_LONG;
    static final int BOOT_ID_LO_OFFSET = BOOT_ID_HI_OFFSET + SIZE_OF_LONG;
    static final int TIMENS_OFFSET = BOOT_ID_LO_OFFSET + SIZE_OF_LONG;
    static final int ANCHOR_MONO_OFFSET = TIMENS_OFFSET + SIZE_OF_LONG;
    static final int ANCHOR_WALL_OFFSET = ANCHOR_MONO_OFFSET + SIZE_OF_LONG;
    static final int REBASES_OFFSET = ANCHOR_WALL_OFFSET + SIZE_OF_LONG;
    static final int TIME_CHECKSUM_OFFSET = REBASES_OFFSET + SIZE_OF_LONG;
    static final int TIME_STATE_OFFSET = TIME_CHECKSUM_OFFSET + SIZE_OF_LONG;
    static final int PID_NS_OFFSET = TIME_STATE_OFFSET + SIZE_OF_LONG;

    /**
     * The latest anchor: rewritten by every process that opens the file on the boot its words are on, with its
     * own checksum, so a write torn by a crash leaves it invalid and the rebase falls back to the anchor at
     * {@link #ANCHOR_MONO_OFFSET}. Cleared by a rebase.
     */
    static final int LATEST_MONO_OFFSET = PID_NS_OFFSET + SIZE_OF_LONG;
    static final int LATEST_WALL_OFFSET = LATEST_MONO_OFFSET + SIZE_OF_LONG;
    static final int LATEST_CHECKSUM_OFFSET = LATEST_WALL_OFFSET + SIZE_OF_LONG;

    /** 0 while the file has no high-water marks, else their offset in the file ({@link #marksOffset}). */
    static final int MARKS_OFFSET_OFFSET = LATEST_CHECKSUM_OFFSET + SIZE_OF_LONG;

    /** The generation of the limits: advanced by one per change; the copy in use is {@code generation & 1}. */
    static final int LIMIT_GENERATION_OFFSET = 256;

    /** The first copy of the limits: {@code (T, tau)} per limit, then the CRC32C of those bytes. */
    static final int LIMITS_OFFSET = LIMIT_GENERATION_OFFSET + SIZE_OF_LONG;

    /** Bytes of one limit in a copy: T and tau. */
    static final int LIMIT_LENGTH = 2 * SIZE_OF_LONG;

    /** The time base is consistent with the table's words. */
    static final long STEADY = 0x5354454144590000L;

    /** A rebase is rewriting the table's words (a file left in this state was interrupted mid-rebase). */
    static final long REBASING = 0x5245424153494E47L;

    /** Bytes of the header: one page, so the table region is page-aligned. */
    static final int HEADER_LENGTH = 4096;

    /** Offset of the table region in the file. */
    static final int TABLE_REGION_OFFSET = HEADER_LENGTH;

    /** The most limits a header holds (classes of a classed table). */
    static final int MAX_LIMITS = ((HEADER_LENGTH - LIMITS_OFFSET) / 2 - SIZE_OF_LONG) / LIMIT_LENGTH;

    private TableFileLayout()
    {
    }

    /**
     * @param tableLength bytes of the table region.
     * @return the file's length.
     */
    static long fileLength(final int tableLength)
    {
        return (long)TABLE_REGION_OFFSET + tableLength;
    }

    /**
     * @param limitCount limits in the header.
     * @return bytes of one copy of the limits, its checksum included.
     */
    static int limitsCopyLength(final int limitCount)
    {
        return limitCount * LIMIT_LENGTH + SIZE_OF_LONG;
    }

    /**
     * @param limitCount limits in the header.
     * @param copy       0 or 1.
     * @return the offset of that copy of the limits.
     */
    static int limitsCopyOffset(final int limitCount, final int copy)
    {
        return LIMITS_OFFSET + copy * limitsCopyLength(limitCount);
    }

    /**
     * @param tableLength bytes of the table region.
     * @return the file offset of the high-water marks: the first page after the table.
     */
    static long marksOffset(final int tableLength)
    {
        return (fileLength(tableLength) + HEADER_LENGTH - 1) / HEADER_LENGTH * HEADER_LENGTH;
    }

    /**
     * @param slotCount slots of the table.
     * @return bytes of the high-water marks: one word per slot.
     */
    static long marksLength(final int slotCount)
    {
        return (long)slotCount * SIZE_OF_LONG;
    }
}
