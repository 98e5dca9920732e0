package dev.cellrate.table.mapped;

import static dev.cellrate.table.mapped.TableFileLayout.*;

import dev.cellrate.table.TableLayout;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * The header of a keyed-table file ({@link TableFileLayout}): written whole for a new file, mapped and validated
 * for an existing one, and the checksums and messages both need. Validation checks, in this order: at least a
 * header long, the magic, the layout version, the identity checksum, the header's own lengths, the geometry, and
 * the file's length against the one the header describes (a truncated file). Each failure is an
 * {@link IllegalStateException} naming the file and what is wrong.
 */
final class TableFileHeader
{
    private TableFileHeader()
    {
    }

    /**
     * @param spec       the table.
     * @param fileLength the file's length.
     * @param secret0    the key-hash secret's first word.
     * @param secret1    the key-hash secret's second word.
     * @return the bytes of a new file's header, on this boot's clock.
     */
    static ByteBuffer initial(final TableSpec spec, final long fileLength, final long secret0, final long secret1)
    {
        final UnsafeBuffer header = new UnsafeBuffer(ByteBuffer.allocateDirect(HEADER_LENGTH));
        header.putLong(MAGIC_OFFSET, MAGIC);
        header.putInt(VERSION_OFFSET, LAYOUT_VERSION);
        header.putInt(KIND_OFFSET, spec.kind);
        header.putInt(HEADER_LENGTH_OFFSET, HEADER_LENGTH);
        header.putInt(POLICY_OFFSET, spec.tableFullPolicy);
        header.putLong(FILE_LENGTH_OFFSET, fileLength);
        header.putInt(LIMIT_COUNT_OFFSET, spec.limitCount());
        header.putLong(NEW_KEY_LAG_OFFSET, spec.newKeyLagNs);
        header.putLong(IDLE_GRACE_OFFSET, spec.idleGraceNs);
        header.putInt(SHARD_COUNT_OFFSET, spec.shardCount);
        header.putInt(SLOTS_PER_SHARD_OFFSET, spec.slotsPerShard);
        header.putInt(PROBE_BOUND_OFFSET, spec.probeBound);
        header.putInt(SLOT_LENGTH_OFFSET, TableLayout.SLOT_LENGTH);
        header.putInt(SHARD_HEADER_LENGTH_OFFSET, TableLayout.SHARD_HEADER_LENGTH);
        header.putLong(TABLE_OFFSET_OFFSET, TABLE_REGION_OFFSET);
        header.putLong(TABLE_LENGTH_OFFSET, spec.tableLength());
        header.putLong(SECRET0_OFFSET, secret0);
        header.putLong(SECRET1_OFFSET, secret1);
        header.putLong(CHECKSUM_OFFSET, checksum(header, MAGIC_OFFSET, CHECKSUM_OFFSET));
        writeTimeBase(header, TimeBase.current(), System.nanoTime(), TimeBase.wallNowNs(), 0);
        header.putLong(TIME_STATE_OFFSET, STEADY);
        header.putLong(PID_NS_OFFSET, LockHolder.pidNamespace());
        HeaderLimits.write(header, spec.limitsNs, 0);
        final ByteBuffer bytes = header.byteBuffer().duplicate();
        bytes.clear();
        return bytes;
    }

    /**
     * Map the header of an open file and validate it against the file's length.
     *
     * @param file    the file, for messages.
     * @param channel the file's channel.
     * @param mode    how to map it.
     * @return the mapped header, valid.
     * @throws IOException           if the file cannot be read or mapped.
     * @throws IllegalStateException naming the file and what is wrong with it.
     */
    static AtomicBuffer mapValid(final Path file, final FileChannel channel, final FileChannel.MapMode mode)
        throws IOException
    {
        final long size = channel.size();
        if (size < HEADER_LENGTH)
        {
            throw refused(file, "it is " + size + " bytes, shorter than a keyed-table header (" + HEADER_LENGTH +
                "): a truncated file, or not a keyed-table file");
        }
        final AtomicBuffer header = new UnsafeBuffer(channel.map(mode, 0, HEADER_LENGTH));
        validate(file, header, size);
        return header;
    }

    /**
     * @param header a header that passed {@link #mapValid}.
     * @return the table it describes.
     */
    static TableSpec spec(final AtomicBuffer header)
    {
        final long[] limitsNs = new long[2 * header.getInt(LIMIT_COUNT_OFFSET)];
        HeaderLimits.read(header, limitsNs);
        return new TableSpec(header.getInt(KIND_OFFSET), limitsNs, header.getLong(NEW_KEY_LAG_OFFSET),
            header.getLong(IDLE_GRACE_OFFSET), header.getInt(POLICY_OFFSET), header.getInt(SHARD_COUNT_OFFSET),
            header.getInt(SLOTS_PER_SHARD_OFFSET), header.getInt(PROBE_BOUND_OFFSET));
    }

    private static void validate(final Path file, final AtomicBuffer header, final long size)
    {
        final long magic = header.getLong(MAGIC_OFFSET);
        if (MAGIC != magic)
        {
            throw refused(file, "it is not a cellrate keyed-table file (magic 0x" + Long.toHexString(magic) +
                ", expected 0x" + Long.toHexString(MAGIC) + ")");
        }
        final int version = header.getInt(VERSION_OFFSET);
        if (LAYOUT_VERSION != version)
        {
            throw refused(file, "its layout version is " + version + ", and this engine reads version " +
                LAYOUT_VERSION + " only; a file of another version is never converted in place (delete it to " +
                "start with an empty table, or run the engine version that wrote it)");
        }
        final long stored = header.getLong(CHECKSUM_OFFSET);
        final long computed = checksum(header, MAGIC_OFFSET, CHECKSUM_OFFSET);
        if (stored != computed)
        {
            throw refused(file, "its header is corrupt (checksum 0x" + Long.toHexString(stored) + ", the bytes give 0x" +
                Long.toHexString(computed) + ")");
        }
        final int limitCount = header.getInt(LIMIT_COUNT_OFFSET);
        if (limitCount < 1 || limitCount > MAX_LIMITS)
        {
            throw refused(file, "its header is inconsistent: limit count " + limitCount + ", expected 1 to " + MAX_LIMITS);
        }
        if (!HeaderLimits.intact(header))
        {
            throw refused(file, "its limits are corrupt (the checksum of the copy in use does not match)");
        }
        final TableSpec inFile = spec(header);
        requireField(file, "header length", header.getInt(HEADER_LENGTH_OFFSET), HEADER_LENGTH);
        requireField(file, "slot length", header.getInt(SLOT_LENGTH_OFFSET), TableLayout.SLOT_LENGTH);
        requireField(file, "shard header length", header.getInt(SHARD_HEADER_LENGTH_OFFSET), TableLayout.SHARD_HEADER_LENGTH);
        requireField(file, "table offset", header.getLong(TABLE_OFFSET_OFFSET), TABLE_REGION_OFFSET);
        if (inFile.shardCount < 1 || inFile.shardCount > TableLayout.MAX_SHARDS || Integer.bitCount(inFile.shardCount) != 1 ||
            inFile.slotsPerShard < 1 || (long)inFile.slotsPerShard * inFile.shardCount > TableLayout.MAX_SLOTS)
        {
            throw refused(file, "its geometry is impossible (shardCount " + inFile.shardCount + ", slotsPerShard " +
                inFile.slotsPerShard + ")");
        }
        requireField(file, "table length", header.getLong(TABLE_LENGTH_OFFSET), inFile.tableLength());
        final long fileLength = fileLength(inFile.tableLength());
        requireField(file, "file length", header.getLong(FILE_LENGTH_OFFSET), fileLength);
        if (size < fileLength)
        {
            throw refused(file, "it is truncated: " + size + " bytes, and its header describes " + fileLength);
        }
        final long marksOffset = header.getLongVolatile(MARKS_OFFSET_OFFSET);
        final long marksEnd = marksOffset(inFile.tableLength()) + marksLength(inFile.shardCount * inFile.slotsPerShard);
        if (0 != marksOffset)
        {
            requireField(file, "high-water marks offset", marksOffset, marksOffset(inFile.tableLength()));
            if (size < marksEnd)
            {
                throw refused(file, "it is truncated: " + size + " bytes, and its header describes " + marksEnd +
                    " (with its high-water marks)");
            }
        }
        if (size > marksEnd || (size > fileLength && size < marksOffset(inFile.tableLength())))
        {
            throw refused(file, "it is " + size + " bytes, and its header describes " + fileLength +
                ": not a file this engine wrote");
        }
    }

    private static void requireField(final Path file, final String field, final long value, final long expected)
    {
        if (value != expected)
        {
            throw refused(file, "its header is inconsistent: " + field + " " + value + ", expected " + expected);
        }
    }

    /**
     * Write the time base (boot, time namespace, anchor, rebase count) and its checksum.
     *
     * @param header  the header.
     * @param base    the boot and time namespace.
     * @param monoNs  the anchor's monotonic reading.
     * @param wallNs  the anchor's wall-clock reading.
     * @param rebases the rebase count.
     */
    static void writeTimeBase(
        final AtomicBuffer header, final TimeBase base, final long monoNs, final long wallNs, final long rebases)
    {
        header.putLong(BOOT_ID_HI_OFFSET, base.bootIdHi);
        header.putLong(BOOT_ID_LO_OFFSET, base.bootIdLo);
        header.putLong(TIMENS_OFFSET, base.timeNamespaceOffsetNs);
        header.putLong(ANCHOR_MONO_OFFSET, monoNs);
        header.putLong(ANCHOR_WALL_OFFSET, wallNs);
        header.putLong(REBASES_OFFSET, rebases);
        header.putLong(TIME_CHECKSUM_OFFSET, checksum(header, BOOT_ID_HI_OFFSET, TIME_CHECKSUM_OFFSET));
    }

    /**
     * @param header the header.
     * @param from   first byte covered.
     * @param to     end of the bytes covered (exclusive).
     * @return the CRC32C of {@code [from, to)}.
     */
    static long checksum(final AtomicBuffer header, final int from, final int to)
    {
        final byte[] bytes = new byte[to - from];
        header.getBytes(from, bytes);
        final CRC32C crc = new CRC32C();
        crc.update(bytes);
        return crc.getValue();
    }

    static IllegalStateException refused(final Path file, final String why)
    {
        return new IllegalStateException("refusing the keyed-table file " + file + ": " + why);
    }

    /**
     * @param ex a failed file operation.
     * @return the system's reason for it, as a user reads it ("No space left on device").
     */
    static String reason(final IOException ex)
    {
        if (ex instanceof FileSystemException && null != ((FileSystemException)ex).getReason())
        {
            return ((FileSystemException)ex).getReason();
        }
        if (ex instanceof AccessDeniedException)
        {
            return "Permission denied (" + ((AccessDeniedException)ex).getFile() + ")";
        }
        if (ex instanceof NoSuchFileException)
        {
            return "No such file or directory (" + ((NoSuchFileException)ex).getFile() + ")";
        }
        return null == ex.getMessage() ? ex.getClass().getSimpleName() : ex.getMessage();
    }
}
