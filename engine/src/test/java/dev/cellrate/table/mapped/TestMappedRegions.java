package dev.cellrate.table.mapped;

import dev.cellrate.table.SharedMarks;
import dev.cellrate.table.SharedTable;
import dev.cellrate.table.SlotTable;
import dev.cellrate.table.TableLayout;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Small shared tables in real mapped files, for stress tests that need thousands of them (a jcstress state each):
 * a file of {@code regionsPerFile} regions is mapped once, each region laid out as a table of the given geometry
 * with the words a new table file has, and run with the shard lock of a mapped table ({@link SharedShardLock}) and
 * high-water marks in the same file, announced by a flag word as a table file announces its own ({@link FileMarks}):
 * after the table, a flag word (0 none, 1 being written, 2 written) and one mark per slot.
 * A region is taken for a test state and given back once the state is done (its arbiter); a new file is mapped
 * when none is free. The files are removed when the JVM exits.
 */
public final class TestMappedRegions
{
    private static final int REGION_ALIGNMENT = 128;

    private final int shardCount;
    private final int slotsPerShard;
    private final int regionsPerFile;
    private final int tableLength;
    private final int regionLength;
    private final ConcurrentLinkedQueue<AtomicBuffer> free = new ConcurrentLinkedQueue<>();

    /**
     * @param shardCount     shards of each table.
     * @param slotsPerShard  slots per shard of each table.
     * @param regionsPerFile tables per mapped file.
     */
    public TestMappedRegions(final int shardCount, final int slotsPerShard, final int regionsPerFile)
    {
        this.shardCount = shardCount;
        this.slotsPerShard = slotsPerShard;
        this.regionsPerFile = regionsPerFile;
        this.tableLength = TableLayout.length(shardCount, shardCount * slotsPerShard);
        this.regionLength = (tableLength + Long.BYTES * (1 + shardCount * slotsPerShard) + REGION_ALIGNMENT - 1) &
            -REGION_ALIGNMENT;
    }

    /**
     * @return a region of a mapped file, its words those of a new table file (give it back with {@link #give}).
     */
    public AtomicBuffer take()
    {
        AtomicBuffer region = free.poll();
        while (null == region)
        {
            mapAnotherFile();
            region = free.poll();
        }
        final int slotsOffset = TableLayout.slotsOffset(shardCount);
        for (int offset = 0; offset < tableLength; offset += Long.BYTES)
        {
            region.putLong(offset, TableFile.initialWord(offset, slotsOffset));
        }
        region.putLong(tableLength, 0); // no marks
        region.putLongVolatile(0, region.getLong(0)); // a full fence after the words, before the table is used
        return region;
    }

    /**
     * @param region      a region from {@link #take}.
     * @param probeBound  the probe bound.
     * @param idleGraceNs the idle grace.
     * @param seed        the key-hash secret (seed, seed).
     * @param maxLagNs    {@code 2 (tau + T)} of the limit (a repaired slot's lag).
     * @param clock       the eviction clock.
     * @return a table over the region, with the shard lock of a mapped table.
     */
    public SlotTable table(
        final AtomicBuffer region, final int probeBound, final long idleGraceNs, final long seed, final long maxLagNs,
        final NanoClock clock)
    {
        final AtomicBuffer table = new UnsafeBuffer(region, 0, tableLength);
        return SharedTable.over(shardCount, slotsPerShard, probeBound, idleGraceNs, seed, seed, clock, table,
            new SharedShardLock(table, shardCount, slotsPerShard, maxLagNs), new RegionMarks(region));
    }

    /**
     * @param region a region from {@link #take} that no thread uses any more.
     */
    public void give(final AtomicBuffer region)
    {
        free.add(region);
    }

    /**
     * The marks after a region's table: each table over the region (one per simulated process) maps them when the
     * flag says they are written, as a table file's openings do.
     */
    private final class RegionMarks implements SharedMarks
    {
        private static final long WRITING = 1;
        private static final long WRITTEN = 2;

        private final AtomicBuffer region;
        private final AtomicBuffer marks;

        RegionMarks(final AtomicBuffer region)
        {
            this.region = region;
            this.marks = new UnsafeBuffer(region, tableLength + Long.BYTES, shardCount * slotsPerShard * Long.BYTES);
        }

        @Override
        public AtomicBuffer ifCreated()
        {
            return WRITTEN == region.getLongVolatile(tableLength) ? marks : null;
        }

        @Override
        public AtomicBuffer create()
        {
            if (region.compareAndSetLong(tableLength, 0, WRITING))
            {
                for (int offset = 0; offset < marks.capacity(); offset += Long.BYTES)
                {
                    marks.putLong(offset, TableLayout.NO_HIGH_WATER_NS);
                }
                region.putLongVolatile(tableLength, WRITTEN);
            }
            while (WRITTEN != region.getLongVolatile(tableLength))
            {
                Thread.onSpinWait(); // another table over the region is writing them
            }
            return marks;
        }
    }

    private synchronized void mapAnotherFile()
    {
        if (!free.isEmpty())
        {
            return; // another thread mapped one meanwhile
        }
        try
        {
            final Path file = Files.createTempFile("cellrate-stress-", ".table");
            file.toFile().deleteOnExit();
            final long length = (long)regionLength * regionsPerFile;
            try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw"))
            {
                raf.write(new byte[(int)length]); // written, not sparse
                final MappedByteBuffer mapped = raf.getChannel().map(FileChannel.MapMode.READ_WRITE, 0, length);
                for (int i = 0; i < regionsPerFile; i++)
                {
                    free.add(new UnsafeBuffer(mapped, i * regionLength, regionLength));
                }
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
