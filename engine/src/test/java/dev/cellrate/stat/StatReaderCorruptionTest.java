package dev.cellrate.stat;

import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A reader trusts no sketch descriptor it reads from a file: a corrupted entry count, stripe count or offset is
 * refused with an {@link IllegalStateException} that names the field and the limiter, before anything is
 * allocated (a k of 2<sup>28</sup> used to allocate three arrays of 2<sup>28</sup> longs and end in
 * {@link OutOfMemoryError}).
 */
final class StatReaderCorruptionTest
{
    /** The sketch is the first counter a limiter with top keys registers: counter 0's key. */
    private static final int SKETCH_KEY = StatLayout.HEADER_LENGTH + CountersReader.KEY_OFFSET;

    @TempDir
    Path dir;

    private void writeFile()
    {
        try (StatFile file = StatFile.create(dir, 64, 1 << 16))
        {
            final LimiterStats stats = file.limiter("api", 2, 16, 1);
            for (int i = 0; i < 40; i++)
            {
                stats.record(i % 5, 1_000L); // a rejection: retry after 1 µs
            }
        }
    }

    private void putInt(final int offset, final int value) throws Exception
    {
        try (FileChannel channel = FileChannel.open(dir.resolve(StatLayout.FILE_NAME), StandardOpenOption.WRITE))
        {
            channel.write(ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(0, value), offset);
        }
    }

    private void putLong(final int offset, final long value) throws Exception
    {
        try (FileChannel channel = FileChannel.open(dir.resolve(StatLayout.FILE_NAME), StandardOpenOption.WRITE))
        {
            channel.write(ByteBuffer.allocate(8).order(ByteOrder.nativeOrder()).putLong(0, value), offset);
        }
    }

    private String refusal()
    {
        try (StatReader reader = StatReader.open(dir, 1_000))
        {
            final StatReader.Sketch sketch = reader.sketches().get(0);
            return assertThrows(IllegalStateException.class, () -> reader.top(sketch, 10)).getMessage();
        }
    }

    @Test
    void theIssuesReproductionAHugeKIsRefusedNotAllocated() throws Exception
    {
        writeFile();
        try (StatReader reader = StatReader.open(dir, 1_000))
        {
            assertEquals(5, reader.top(reader.sketches().get(0), 10).length, "the intact file reads");
        }
        putInt(SKETCH_KEY + StatLayout.KEY_STRIPE_OFFSET, 1 << 28);
        final String message = refusal();
        assertTrue(message.contains("corrupt") && message.contains("k") && message.contains(Integer.toString(1 << 28)) &&
            message.contains("api"), message);
    }

    @Test
    void everyOutOfRangeDescriptorIsRefusedByName() throws Exception
    {
        for (final int k : new int[]{ 0, -1, TopKeys.MAX_K + 1, Integer.MAX_VALUE, Integer.MIN_VALUE })
        {
            writeFile();
            putInt(SKETCH_KEY + StatLayout.KEY_STRIPE_OFFSET, k);
            final String message = refusal();
            assertTrue(message.contains("k " + k), message);
        }
        for (final int stripes : new int[]{ 0, -2, 3, 128, 1 << 30 })
        {
            writeFile();
            putInt(SKETCH_KEY + StatLayout.KEY_STRIPES_OFFSET, stripes);
            final String message = refusal();
            assertTrue(message.contains("stripes " + stripes), message);
        }
        // The sketch's offset is the counter's value (the values buffer starts after the metadata buffer).
        final int value = StatLayout.HEADER_LENGTH + StatLayout.metadataLength(64);
        for (final long offset : new long[]{ -64, 1 << 16, (1 << 16) - 64, 4, Long.MAX_VALUE })
        {
            writeFile();
            putLong(value, offset);
            final String message = refusal();
            // An offset outside int's range is read as -1.
            final long read = offset < 0 || offset > Integer.MAX_VALUE ? -1 : offset;
            assertTrue(message.contains("offset " + read + " ") && message.contains("sketch region"), message);
        }
    }
}
