package dev.cellrate.table.mapped;

import static dev.cellrate.table.mapped.TableFileLayout.MARKS_OFFSET_OFFSET;
import static dev.cellrate.table.mapped.TableFileLayout.marksLength;
import static dev.cellrate.table.mapped.TableFileLayout.marksOffset;

import dev.cellrate.table.SharedMarks;
import dev.cellrate.table.TableLayout;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The high-water marks of a table file ({@link TableFileLayout#marksOffset}): one word per slot after the table,
 * written by the first refund of any process. Creation, under the file's lock: every word written
 * ({@link TableLayout#NO_HIGH_WATER_NS}) and forced to the device, then the header's marks offset set (volatile)
 * and forced. A process maps them when it first needs them: at its own first refund, or at its first reclaim after
 * another process set the offset. A full disk at creation leaves the file as it was (its length is checked on
 * opening, and a length between the table's end and the marks' end with no offset set is a creation that did not
 * finish, written again by the next); the refund that asked then gives nothing back.
 * <p>
 * On a new boot the offset is cleared ({@link TableFile}): the marks protect deciders paused between a read and a
 * CAS, and no such decider survives a reboot.
 */
final class FileMarks implements SharedMarks
{
    private static final int CHUNK_LENGTH = 1 << 20;

    private final Path file;
    private final AtomicBuffer header;
    private final long offset;
    private final long length;
    private volatile AtomicBuffer marks;

    /**
     * @param opened the table file, open.
     */
    FileMarks(final TableFile opened)
    {
        final TableSpec spec = opened.spec;
        file = opened.path;
        header = opened.header;
        offset = marksOffset(spec.tableLength());
        length = marksLength(spec.shardCount * spec.slotsPerShard);
    }

    @Override
    public AtomicBuffer ifCreated()
    {
        final AtomicBuffer mapped = marks;
        if (null != mapped)
        {
            return mapped;
        }
        return 0 == header.getLongVolatile(MARKS_OFFSET_OFFSET) ? null : map();
    }

    @Override
    public AtomicBuffer create()
    {
        final AtomicBuffer existing = ifCreated();
        if (null != existing)
        {
            return existing;
        }
        try
        {
            TableFile.underFileLock(file, () ->
            {
                if (0 == header.getLongVolatile(MARKS_OFFSET_OFFSET))
                {
                    writeMarks();
                    header.putLongVolatile(MARKS_OFFSET_OFFSET, offset);
                    ((MappedByteBuffer)header.byteBuffer()).force();
                }
            });
        }
        catch (final IllegalStateException | UncheckedIOException ex)
        {
            return null; // a full disk, or the file cannot be locked: the refund gives nothing back
        }
        try
        {
            return map();
        }
        catch (final IllegalStateException ex)
        {
            return null;
        }
    }

    private void writeMarks()
    {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE))
        {
            final ByteBuffer chunk = ByteBuffer.allocateDirect((int)Math.min(CHUNK_LENGTH, length))
                .order(ByteOrder.nativeOrder());
            while (chunk.hasRemaining())
            {
                chunk.putLong(TableLayout.NO_HIGH_WATER_NS);
            }
            for (long at = 0; at < length; at += chunk.capacity())
            {
                chunk.clear().limit((int)Math.min(chunk.capacity(), length - at));
                long position = offset + at;
                while (chunk.hasRemaining())
                {
                    position += channel.write(chunk, position);
                }
            }
            channel.force(true);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    private synchronized AtomicBuffer map()
    {
        AtomicBuffer mapped = marks;
        if (null == mapped)
        {
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE))
            {
                mapped = new UnsafeBuffer(channel.map(FileChannel.MapMode.READ_WRITE, offset, length));
                marks = mapped;
            }
            catch (final IOException ex)
            {
                throw new IllegalStateException("cannot map the high-water marks of the keyed-table file " + file +
                    ": " + TableFileHeader.reason(ex), ex);
            }
        }
        return mapped;
    }
}
