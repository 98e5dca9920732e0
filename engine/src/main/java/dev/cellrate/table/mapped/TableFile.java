package dev.cellrate.table.mapped;

import static dev.cellrate.table.mapped.TableFileHeader.checksum;
import static dev.cellrate.table.mapped.TableFileHeader.reason;
import static dev.cellrate.table.mapped.TableFileHeader.refused;
import static dev.cellrate.table.mapped.TableFileHeader.writeTimeBase;
import static dev.cellrate.table.mapped.TableFileLayout.*;

import dev.cellrate.layout.CellLayout;
import dev.cellrate.table.TableLayout;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.EnumSet;
import java.util.Set;

/**
 * A keyed table's bytes in a file ({@link TableFileLayout}): created whole or not at all, opened only if it was
 * made for the same table, and placed on this boot's clock before anyone decides on it ({@link TimeBase}).
 * <p>
 * <b>Creation.</b> The file is written in full in a temporary file beside it, created owner-only ({@code 0600}:
 * the header holds the key-hash secret, and whoever reads it can choose keys that share a victim's cell or crowd
 * one shard), every byte written (the header, then the table's initial words in 1 MiB chunks), forced to the
 * device, and only then linked to its name (a hard link, which fails if the name exists, so two processes that
 * create at once end up on one file). Writing every byte, rather than extending a sparse file, makes a full disk
 * an error at creation instead of a {@code SIGBUS} at the first decision that touches an unbacked page; a failed
 * creation removes its temporary file and leaves no file at the name.
 * <p>
 * <b>Opening.</b> Under an exclusive lock on the file ({@link FileChannel#lock}, released by the kernel if the
 * process dies), checked in this order, each failure an {@link IllegalStateException} naming the file and what
 * is wrong: readable and writable by this process (a read-only mount or file is refused, never mapped
 * read-only), owner-only permissions, at least a header long, the magic, the layout version, the header's
 * checksum, the limits' checksum, the header's own geometry against the file's length (a truncated file), the
 * kind of front, its limits and the table's configuration against the ones asked for (naming the first field that
 * differs), a fixed key-hash secret against the file's,
 * the time base's checksum and state. Then, if the file was last used on another boot, or a rebase of it was
 * interrupted, the table is rebased ({@link ShardRepair#rebase}).
 * <p>
 * The mappings live as long as the buffers that wrap them (no {@code close()}; the GC unmaps them). Truncating
 * the file while it is mapped is outside this contract (the kernel answers an access past the end with
 * {@code SIGBUS}).
 */
public final class TableFile
{
    private static final Set<PosixFilePermission> OWNER_ONLY =
        EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);

    private static final int CHUNK_LENGTH = 1 << 20;

    /** Threads of one JVM open files one at a time ({@link FileLock}s are per process, not per thread). */
    private static final Object OPENING = new Object();

    final Path path;
    final TableSpec spec;
    final long secret0;
    final long secret1;
    final boolean created;
    final boolean rebased;
    final AtomicBuffer header;
    final AtomicBuffer table;

    private TableFile(
        final Path path, final TableSpec spec, final long secret0, final long secret1, final boolean created,
        final boolean rebased, final AtomicBuffer header, final AtomicBuffer table)
    {
        this.path = path;
        this.spec = spec;
        this.secret0 = secret0;
        this.secret1 = secret1;
        this.created = created;
        this.rebased = rebased;
        this.header = header;
        this.table = table;
    }

    /**
     * Open the table file at {@code path}, creating it if there is none.
     *
     * @param path        the file.
     * @param spec        the table it must hold.
     * @param fixedSecret a fixed key-hash secret {k0, k1} the file must have (or gets, if new), or null for a
     *                    random one at creation and the file's own otherwise.
     * @return the mapped file.
     * @throws IllegalStateException naming the file and what is wrong with it.
     */
    static TableFile open(final Path path, final TableSpec spec, final long[] fixedSecret)
    {
        final Path file = path.toAbsolutePath();
        synchronized (OPENING)
        {
            boolean created = false;
            if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS))
            {
                created = create(file, spec, null == fixedSecret ? new SecureRandom() : null, fixedSecret);
            }
            return openExisting(file, spec, fixedSecret, created);
        }
    }

    /**
     * Run {@code action} holding the file's lock (the one opening takes), so that it runs alone among the host's
     * processes that open or change the file.
     *
     * @param path   the file, already open.
     * @param action what to do.
     * @throws IllegalStateException naming the file if it cannot be locked.
     */
    static void underFileLock(final Path path, final Runnable action)
    {
        synchronized (OPENING)
        {
            try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
                FileLock ignored = channel.lock())
            {
                action.run();
            }
            catch (final IOException ex)
            {
                throw new IllegalStateException("cannot lock the keyed-table file " + path + ": " + reason(ex), ex);
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ creation

    /**
     * @return false if another process created the file first (this one's temporary file is removed).
     */
    private static boolean create(final Path file, final TableSpec spec, final SecureRandom random, final long[] fixedSecret)
    {
        final Path directory = file.getParent();
        final long fileLength = fileLength(spec.tableLength());
        Path temporary = null;
        try
        {
            temporary = Files.createTempFile(directory, "." + file.getFileName() + ".", ".creating",
                PosixFilePermissions.asFileAttribute(OWNER_ONLY));
            Files.setPosixFilePermissions(temporary, OWNER_ONLY); // whatever the umask did
            try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.WRITE))
            {
                final long secret0 = null == fixedSecret ? random.nextLong() : fixedSecret[0];
                final long secret1 = null == fixedSecret ? random.nextLong() : fixedSecret[1];
                writeFully(channel, TableFileHeader.initial(spec, fileLength, secret0, secret1), 0);
                writeInitialTable(channel, spec);
                channel.force(true);
            }
            try
            {
                Files.createLink(file, temporary);
            }
            catch (final FileAlreadyExistsException ex)
            {
                return false; // another process created it first: open theirs
            }
            catch (final UnsupportedOperationException ex)
            {
                Files.move(temporary, file); // no hard links here: a rename that refuses an existing name
                temporary = null;
            }
            return true;
        }
        catch (final FileAlreadyExistsException ex)
        {
            return false;
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot create the keyed-table file " + file + " (" + fileLength +
                " bytes): " + reason(ex) + "; no file was created", ex);
        }
        finally
        {
            if (null != temporary)
            {
                try
                {
                    Files.deleteIfExists(temporary);
                }
                catch (final IOException ignored)
                {
                    // best effort: the name is a dot-file beside the table, ending in .creating
                }
            }
        }
    }

    /**
     * The table's initial words: zero, except the TAT of every dedicated cell and slot (fresh) and every shard's
     * reclaim floor (none).
     */
    private static void writeInitialTable(final FileChannel channel, final TableSpec spec) throws IOException
    {
        final int length = spec.tableLength();
        final int slotsOffset = TableLayout.slotsOffset(spec.shardCount);
        final ByteBuffer chunk = ByteBuffer.allocateDirect(Math.min(CHUNK_LENGTH, length)).order(ByteOrder.nativeOrder());
        for (int start = 0; start < length; start += chunk.capacity())
        {
            final int end = Math.min(length, start + chunk.capacity());
            chunk.clear();
            for (int offset = start; offset < end; offset += Long.BYTES)
            {
                chunk.putLong(offset - start, initialWord(offset, slotsOffset));
            }
            chunk.limit(end - start);
            writeFully(channel, chunk, TABLE_REGION_OFFSET + (long)start);
        }
    }

    static long initialWord(final int offset, final int slotsOffset)
    {
        if (offset >= slotsOffset)
        {
            return (offset - slotsOffset) % TableLayout.SLOT_LENGTH == TableLayout.TAT_OFFSET ?
                TableLayout.FRESH_SLOT_TAT_NS : 0;
        }
        if (offset >= TableLayout.SHARD_HEADERS_OFFSET)
        {
            return (offset - TableLayout.SHARD_HEADERS_OFFSET) % TableLayout.SHARD_HEADER_LENGTH ==
                TableLayout.RECLAIM_FLOOR_OFFSET ? TableLayout.NO_HIGH_WATER_NS : 0;
        }
        final boolean dedicatedTat = offset == TableLayout.EMPTY_KEY_CELL_OFFSET + CellLayout.TAT_OFFSET ||
            offset == TableLayout.TOMBSTONE_KEY_CELL_OFFSET + CellLayout.TAT_OFFSET ||
            offset == TableLayout.OVERFLOW_CELL_OFFSET + CellLayout.TAT_OFFSET;
        return dedicatedTat ? TableLayout.FRESH_SLOT_TAT_NS : 0;
    }

    private static void writeFully(final FileChannel channel, final ByteBuffer bytes, final long position)
        throws IOException
    {
        long at = position;
        while (bytes.hasRemaining())
        {
            at += channel.write(bytes, at);
        }
    }

    // ------------------------------------------------------------------------------------------------- opening

    private static TableFile openExisting(
        final Path file, final TableSpec spec, final long[] fixedSecret, final boolean created)
    {
        try (FileChannel channel = openReadWrite(file))
        {
            requireOwnerOnly(file);
            try (FileLock ignored = channel.lock())
            {
                final AtomicBuffer header = TableFileHeader.mapValid(file, channel, FileChannel.MapMode.READ_WRITE);
                final TableSpec inFile = TableFileHeader.spec(header);
                final String difference = spec.firstDifference(inFile);
                if (null != difference)
                {
                    throw refused(file, "it was made for another table; " + difference + ". Open it with the " +
                        "configuration it was made with, or delete it to start with an empty table");
                }
                final long secret0 = header.getLong(SECRET0_OFFSET);
                final long secret1 = header.getLong(SECRET1_OFFSET);
                if (null != fixedSecret && (fixedSecret[0] != secret0 || fixedSecret[1] != secret1))
                {
                    throw refused(file, "its key-hash secret differs from the one this limiter fixes (seed)");
                }
                final MappedByteBuffer mapped =
                    channel.map(FileChannel.MapMode.READ_WRITE, TABLE_REGION_OFFSET, spec.tableLength());
                final AtomicBuffer table = new UnsafeBuffer(mapped);
                table.verifyAlignment();
                final boolean rebased = placeOnThisBoot(file, header, table, spec, (MappedByteBuffer)header.byteBuffer(), mapped);
                return new TableFile(file, spec, secret0, secret1, created, rebased, header, table);
            }
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot open the keyed-table file " + file + ": " + reason(ex), ex);
        }
    }

    private static FileChannel openReadWrite(final Path file) throws IOException
    {
        if (!Files.isRegularFile(file))
        {
            throw refused(file, "it is not a regular file");
        }
        try
        {
            return FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
        }
        catch (final FileSystemException ex)
        {
            throw new IllegalStateException("cannot open the keyed-table file " + file + " for reading and writing: " +
                reason(ex) + " (a mapped table writes its file: a read-only file or mount cannot hold one)", ex);
        }
    }

    private static void requireOwnerOnly(final Path file) throws IOException
    {
        final Set<PosixFilePermission> permissions;
        try
        {
            permissions = Files.getPosixFilePermissions(file);
        }
        catch (final UnsupportedOperationException ex)
        {
            return; // not a POSIX file system: nothing to check
        }
        final Set<PosixFilePermission> wider = EnumSet.copyOf(permissions);
        wider.removeAll(EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE,
            PosixFilePermission.OWNER_EXECUTE));
        if (!wider.isEmpty())
        {
            throw refused(file, "its permissions are " + PosixFilePermissions.toString(permissions) + "; it holds " +
                "the key-hash secret, so it must be readable and writable by its owner only (chmod 600)");
        }
    }

    /**
     * Read a table file's statistics without writing anything and without its lock (another process may be
     * deciding on it meanwhile: the counts are each read atomically, not together). The header is validated as
     * on opening; the secret is not read out.
     *
     * @param path the file.
     * @return {shardCount, slotsPerShard, T, tau, live keys, evictions, table-full events, CAS retries,
     * locks held, rebases, rebasing (1/0), boot id high, boot id low}.
     * @throws IllegalStateException naming the file and what is wrong with it.
     */
    public static long[] statistics(final Path path)
    {
        final Path file = path.toAbsolutePath();
        if (!Files.isRegularFile(file))
        {
            throw refused(file, "it is not a regular file");
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ))
        {
            final AtomicBuffer header = TableFileHeader.mapValid(file, channel, FileChannel.MapMode.READ_ONLY);
            final TableSpec spec = TableFileHeader.spec(header);
            final AtomicBuffer table = new UnsafeBuffer(
                channel.map(FileChannel.MapMode.READ_ONLY, TABLE_REGION_OFFSET, spec.tableLength()));
            long live = 0;
            long evictions = 0;
            long tableFull = 0;
            long casRetries = 0;
            long locksHeld = 0;
            for (int shard = 0; shard < spec.shardCount; shard++)
            {
                final int shardHeader = TableLayout.shardHeaderOffset(shard);
                locksHeld += 0 != table.getLongVolatile(shardHeader + TableLayout.LOCK_OFFSET) ? 1 : 0;
                live += table.getLongVolatile(shardHeader + TableLayout.LIVE_KEYS_OFFSET);
                evictions += table.getLongVolatile(shardHeader + TableLayout.EVICTIONS_OFFSET);
                tableFull += table.getLongVolatile(shardHeader + TableLayout.TABLE_FULL_OFFSET);
                casRetries += table.getLongVolatile(shardHeader + TableLayout.CAS_RETRIES_OFFSET);
            }
            return new long[] {spec.shardCount, spec.slotsPerShard, spec.emissionIntervalNs, spec.toleranceNs, live,
                evictions, tableFull, casRetries, locksHeld, header.getLongVolatile(REBASES_OFFSET),
                REBASING == header.getLongVolatile(TIME_STATE_OFFSET) ? 1 : 0, header.getLong(BOOT_ID_HI_OFFSET),
                header.getLong(BOOT_ID_LO_OFFSET)};
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot read the keyed-table file " + file + ": " + reason(ex), ex);
        }
    }

    // ----------------------------------------------------------------------------------------------- time base

    /**
     * Under the file lock: leave the file on this boot's clock.
     *
     * @return whether the table was rebased.
     */
    private static boolean placeOnThisBoot(
        final Path file, final AtomicBuffer header, final AtomicBuffer table, final TableSpec spec,
        final MappedByteBuffer headerMap, final MappedByteBuffer tableMap)
    {
        final long state = header.getLongVolatile(TIME_STATE_OFFSET);
        if (STEADY != state && REBASING != state)
        {
            throw refused(file, "its time base is corrupt (state 0x" + Long.toHexString(state) + ")");
        }
        final TimeBase current = TimeBase.current();
        final TimeBase recorded = new TimeBase(
            header.getLong(BOOT_ID_HI_OFFSET), header.getLong(BOOT_ID_LO_OFFSET), header.getLong(TIMENS_OFFSET));
        if (STEADY == state)
        {
            final long stored = header.getLong(TIME_CHECKSUM_OFFSET);
            if (stored != checksum(header, BOOT_ID_HI_OFFSET, TIME_CHECKSUM_OFFSET))
            {
                throw refused(file, "its time base is corrupt (checksum 0x" + Long.toHexString(stored) + ")");
            }
            if (recorded.sameBoot(current))
            {
                if (recorded.timeNamespaceOffsetNs != current.timeNamespaceOffsetNs)
                {
                    throw refused(file, "its words are on the monotonic clock of a time namespace offset by " +
                        recorded.timeNamespaceOffsetNs + " ns, and this process's is offset by " +
                        current.timeNamespaceOffsetNs + " ns: processes sharing a table must share a time namespace");
                }
                final long pidNamespace = LockHolder.pidNamespace();
                if (header.getLong(PID_NS_OFFSET) != pidNamespace)
                {
                    throw refused(file, "it is in use from pid namespace " + header.getLong(PID_NS_OFFSET) +
                        ", and this process is in pid namespace " + pidNamespace + ": shard locks name their " +
                        "holders by process id, so processes sharing a table must share a pid namespace");
                }
                header.putLong(LATEST_MONO_OFFSET, System.nanoTime());
                header.putLong(LATEST_WALL_OFFSET, TimeBase.wallNowNs());
                header.putLong(LATEST_CHECKSUM_OFFSET, checksum(header, LATEST_MONO_OFFSET, LATEST_CHECKSUM_OFFSET));
                headerMap.force();
                return false;
            }
        }
        // Another boot, or a rebase that was interrupted (whose words are a mix of two clocks): rebase.
        header.putLongVolatile(TIME_STATE_OFFSET, REBASING);
        headerMap.force();
        final long monoNowNs = System.nanoTime();
        final long wallNowNs = TimeBase.wallNowNs();
        // The latest anchor of the old boot if its write was whole, else the one of its first opener.
        final boolean latest = header.getLong(LATEST_CHECKSUM_OFFSET) == checksum(header, LATEST_MONO_OFFSET, LATEST_CHECKSUM_OFFSET);
        final long deltaNs = TimeBase.rebaseDeltaNs(
            header.getLong(latest ? LATEST_MONO_OFFSET : ANCHOR_MONO_OFFSET),
            header.getLong(latest ? LATEST_WALL_OFFSET : ANCHOR_WALL_OFFSET), monoNowNs, wallNowNs);
        final long capNs = TimeBase.saturatedAdd(monoNowNs, spec.maxLagNs());
        ShardRepair.rebase(table, spec.shardCount, spec.slotsPerShard, deltaNs, capNs, REBASING == state);
        tableMap.force();
        writeTimeBase(header, current, monoNowNs, wallNowNs, header.getLong(REBASES_OFFSET) + 1);
        header.putLong(PID_NS_OFFSET, LockHolder.pidNamespace());
        header.putLong(LATEST_MONO_OFFSET, 0);
        header.putLong(LATEST_WALL_OFFSET, 0);
        header.putLong(LATEST_CHECKSUM_OFFSET, 0); // not the checksum of two zeros: no latest anchor
        header.putLong(MARKS_OFFSET_OFFSET, 0); // no decider paused before the reboot: its marks are not needed
        headerMap.force();
        header.putLongVolatile(TIME_STATE_OFFSET, STEADY);
        headerMap.force();
        return true;
    }

    /**
     * @return the boot id the file's words are on.
     */
    String bootId()
    {
        return new TimeBase(header.getLong(BOOT_ID_HI_OFFSET), header.getLong(BOOT_ID_LO_OFFSET), 0).bootId();
    }

    /**
     * @return how many times the file was rebased onto a new boot.
     */
    long rebases()
    {
        return header.getLong(REBASES_OFFSET);
    }
}
