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
 *  |                   emission interval T (ns)                    |  EMISSION_OFFSET      32
 *  |                   tolerance tau (ns)                          |  TOLERANCE_OFFSET     40
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
 */
final class TableFileLayout
{
    /** "CRTABLE1" read as a long on a little-endian host. */
    static final long MAGIC = 0x31454C4241545243L;

    /** The layout this engine writes and reads. */
    static final int LAYOUT_VERSION = 1;

    /** Table kind of a {@code KeyedRateLimiter}'s table: one limit, plain key words. */
    static final int KIND_KEYED_RATE_LIMITER = 1;

    static final int MAGIC_OFFSET = 0;
    static final int VERSION_OFFSET = MAGIC_OFFSET + SIZE_OF_LONG;
    static final int KIND_OFFSET = VERSION_OFFSET + SIZE_OF_INT;
    static final int HEADER_LENGTH_OFFSET = KIND_OFFSET + SIZE_OF_INT;
    static final int POLICY_OFFSET = HEADER_LENGTH_OFFSET + SIZE_OF_INT;
    static final int FILE_LENGTH_OFFSET = POLICY_OFFSET + SIZE_OF_INT;
    static final int EMISSION_OFFSET = FILE_LENGTH_OFFSET + SIZE_OF_LONG;
    static final int TOLERANCE_OFFSET = EMISSION_OFFSET + SIZE_OF_LONG;
    static final int NEW_KEY_LAG_OFFSET = TOLERANCE_OFFSET + SIZE_OF_LONG;
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

    /** The time base is consistent with the table's words. */
    static final long STEADY = 0x5354454144590000L;

    /** A rebase is rewriting the table's words (a file left in this state was interrupted mid-rebase). */
    static final long REBASING = 0x5245424153494E47L;

    /** Bytes of the header: one page, so the table region is page-aligned. */
    static final int HEADER_LENGTH = 4096;

    /** Offset of the table region in the file. */
    static final int TABLE_REGION_OFFSET = HEADER_LENGTH;

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
}
