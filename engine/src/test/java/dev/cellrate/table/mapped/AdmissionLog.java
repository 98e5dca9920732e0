package dev.cellrate.table.mapped;

import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * One thread's record of its admissions, in a mapped file so that it survives {@code kill -9} (the page cache
 * keeps what the process wrote): word 0 is the entry count (an ordered write after the entry), then entries of
 * (time ns, key). An admission is recorded right after its decision returns.
 */
final class AdmissionLog
{
    static final int LENGTH = 4 << 20;
    private static final int ENTRY = 16;

    private final UnsafeBuffer buffer;
    private long count;

    AdmissionLog(final Path path) throws IOException
    {
        try (RandomAccessFile file = new RandomAccessFile(path.toFile(), "rw"); FileChannel channel = file.getChannel())
        {
            buffer = new UnsafeBuffer(channel.map(FileChannel.MapMode.READ_WRITE, 0, LENGTH));
        }
    }

    void admitted(final long nowNs, final long key)
    {
        final int at = (int)(8 + count * ENTRY);
        if (at + ENTRY > LENGTH)
        {
            throw new IllegalStateException("admission log full");
        }
        buffer.putLong(at, nowNs);
        buffer.putLong(at + 8, key);
        buffer.putLongOrdered(0, ++count);
    }

    /**
     * @param path a log.
     * @return its entries, each {time, key}.
     */
    static List<long[]> read(final Path path) throws IOException
    {
        final List<long[]> entries = new ArrayList<>();
        final AdmissionLog log = new AdmissionLog(path);
        final long count = log.buffer.getLongVolatile(0);
        for (long i = 0; i < count; i++)
        {
            final int at = (int)(8 + i * ENTRY);
            entries.add(new long[] {log.buffer.getLong(at), log.buffer.getLong(at + 8)});
        }
        return entries;
    }
}
