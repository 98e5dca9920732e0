package dev.cellrate.stat;

import dev.cellrate.layout.OffHeap;
import org.agrona.IoUtil;
import org.agrona.SemanticVersion;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersReader;

import java.io.File;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The reader side of a {@link StatFile}: in this process ({@link StatFile#reader()}) or another one
 * ({@link #open(Path, long)} maps the file read-only). Groups the Agrona counters into one {@link Stat} per
 * limiter and kind (summing stripes) and reads top-keys sketches. Reads allocate; they are for tools and
 * meter registries, never on a decision path.
 */
public final class StatReader implements AutoCloseable
{
    private final CountersReader counters;
    private final AtomicBuffer sketches;
    private final MappedByteBuffer mapped;
    private final long pid;
    private final long startTimestampMs;
    private final Path path;
    private final Object fileKey;

    StatReader(
        final AtomicBuffer metadata, final AtomicBuffer values, final AtomicBuffer sketches,
        final MappedByteBuffer mapped)
    {
        this(metadata, values, sketches, mapped, ProcessHandle.current().pid(), 0, null, null);
    }

    private StatReader(
        final AtomicBuffer metadata, final AtomicBuffer values, final AtomicBuffer sketches,
        final MappedByteBuffer mapped, final long pid, final long startTimestampMs, final Path path,
        final Object fileKey)
    {
        this.path = path;
        this.fileKey = fileKey;
        this.counters = new CountersReader(metadata, values);
        this.sketches = sketches;
        this.mapped = mapped;
        this.pid = pid;
        this.startTimestampMs = startTimestampMs;
    }

    /**
     * Map {@code directory}/{@value StatLayout#FILE_NAME} read-only, waiting up to {@code timeoutMs} for it to
     * exist and for its version to be written (the writer writes it last).
     *
     * @param directory the directory the writer was given.
     * @param timeoutMs how long to wait.
     * @return the reader.
     * @throws IllegalStateException if the file does not appear in time, has another major version, or is shorter
     *                               than its header says (truncated); the message says which.
     */
    public static StatReader open(final Path directory, final long timeoutMs)
    {
        OffHeap.requireUnsafe();
        final File file = directory.resolve(StatLayout.FILE_NAME).toFile();
        final long deadlineMs = System.currentTimeMillis() + timeoutMs;
        long fileLength;
        while ((fileLength = file.length()) < StatLayout.HEADER_LENGTH) // 0 if absent
        {
            sleepUntil(deadlineMs, file.exists() ?
                "statistics file truncated: " + fileLength + " bytes, shorter than its " + StatLayout.HEADER_LENGTH +
                "-byte header: " + file :
                "no statistics file at " + file);
        }
        final Object fileKey = fileKey(file.toPath());
        final MappedByteBuffer mapped = IoUtil.mapExistingFile(file, FileChannel.MapMode.READ_ONLY, "cellrate stat");
        final UnsafeBuffer header = new UnsafeBuffer(mapped);
        int version;
        while (0 == (version = header.getIntVolatile(StatLayout.VERSION_OFFSET)))
        {
            sleepUntil(deadlineMs, "statistics file never initialised: " + file);
        }
        if (SemanticVersion.major(version) != StatLayout.MAJOR_VERSION)
        {
            throw new IllegalStateException("statistics file version " + SemanticVersion.toString(version) +
                " but this reader reads major version " + StatLayout.MAJOR_VERSION + ": " + file);
        }
        final int metadataLength = header.getInt(StatLayout.METADATA_LENGTH_OFFSET);
        final int valuesLength = header.getInt(StatLayout.VALUES_LENGTH_OFFSET);
        final int sketchLength = header.getInt(StatLayout.SKETCH_LENGTH_OFFSET);
        final long describedLength = StatLayout.fileLength(metadataLength, valuesLength, sketchLength);
        if ((metadataLength | valuesLength | sketchLength) < 0 || mapped.capacity() < describedLength)
        {
            throw new IllegalStateException("statistics file truncated: " + mapped.capacity() +
                " bytes but its header describes " + describedLength + " (metadata " + metadataLength + ", values " +
                valuesLength + ", sketches " + sketchLength + "): " + file);
        }
        final int valuesOffset = StatLayout.HEADER_LENGTH + metadataLength;
        return new StatReader(
            new UnsafeBuffer(mapped, StatLayout.HEADER_LENGTH, metadataLength),
            new UnsafeBuffer(mapped, valuesOffset, valuesLength),
            new UnsafeBuffer(mapped, valuesOffset + valuesLength, sketchLength),
            mapped,
            header.getLong(StatLayout.PID_OFFSET),
            header.getLong(StatLayout.START_TIMESTAMP_OFFSET),
            file.toPath(),
            fileKey);
    }

    private static Object fileKey(final Path path)
    {
        try
        {
            return java.nio.file.Files.readAttributes(path, java.nio.file.attribute.BasicFileAttributes.class).fileKey();
        }
        catch (final java.io.IOException ex)
        {
            return null;
        }
    }

    /**
     * @return true if the file this reader mapped has since been replaced by a new writer (or removed): the
     * values read are then the old writer's last ones; open a new reader. False for an in-process reader.
     */
    public boolean isReplaced()
    {
        if (null == path)
        {
            return false;
        }
        final Object current = fileKey(path);
        return null == current || !current.equals(fileKey);
    }

    private static void sleepUntil(final long deadlineMs, final String message)
    {
        if (System.currentTimeMillis() > deadlineMs)
        {
            throw new IllegalStateException(message);
        }
        try
        {
            Thread.sleep(10);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted: " + message);
        }
    }

    /**
     * @return every statistic, one per limiter and kind (stripes grouped), in registration order.
     */
    public List<Stat> stats()
    {
        final Map<Long, Stat> byKey = new LinkedHashMap<>();
        counters.forEach((counterId, typeId, keyBuffer, label) ->
        {
            final StatKind kind = StatKind.ofTypeId(typeId);
            if (null == kind || StatKind.TOP_KEYS == kind)
            {
                return;
            }
            final int limiterId = keyBuffer.getInt(StatLayout.KEY_LIMITER_ID_OFFSET);
            final long groupKey = (long)limiterId << 32 | kind.ordinal();
            final Stat existing = byKey.get(groupKey);
            if (null == existing)
            {
                byKey.put(groupKey, new Stat(limiterId, name(keyBuffer), kind, new int[]{ counterId }));
            }
            else
            {
                final int[] ids = java.util.Arrays.copyOf(existing.counterIds(), existing.counterIds().length + 1);
                ids[ids.length - 1] = counterId;
                byKey.put(groupKey, new Stat(limiterId, existing.limiter(), kind, ids));
            }
        });
        return new ArrayList<>(byKey.values());
    }

    /**
     * @return every top-keys sketch.
     */
    public List<Sketch> sketches()
    {
        final List<Sketch> list = new ArrayList<>();
        counters.forEach((counterId, typeId, keyBuffer, label) ->
        {
            if (StatKind.TOP_KEYS.typeId() == typeId)
            {
                list.add(new Sketch(keyBuffer.getInt(StatLayout.KEY_LIMITER_ID_OFFSET), name(keyBuffer),
                    offset(counters.getCounterValue(counterId)), keyBuffer.getInt(StatLayout.KEY_STRIPE_OFFSET),
                    keyBuffer.getInt(StatLayout.KEY_STRIPES_OFFSET)));
            }
        });
        return list;
    }

    private static int offset(final long counterValue)
    {
        return counterValue < 0 || counterValue > Integer.MAX_VALUE ? -1 : (int)counterValue;
    }

    private static String name(final org.agrona.DirectBuffer keyBuffer)
    {
        return keyBuffer.getStringWithoutLengthAscii(
            StatLayout.KEY_NAME_OFFSET, keyBuffer.getInt(StatLayout.KEY_NAME_LENGTH_OFFSET));
    }

    /**
     * @param stat a statistic of this reader.
     * @return its current value (the sum of its stripes).
     */
    public long value(final Stat stat)
    {
        long sum = 0;
        for (final int counterId : stat.counterIds())
        {
            sum += counters.getCounterValue(counterId);
        }
        return sum;
    }

    /**
     * @param sketch     a sketch of this reader.
     * @param maxEntries most entries.
     * @return its heaviest rejected keys.
     * @throws IllegalStateException if the file describes a sketch that cannot be (an entry count outside
     *                               [1, {@link TopKeys#MAX_K}], a stripe count that is not a power of two in
     *                               [1, 64], or a region outside the file's sketch region): the message names the
     *                               field, its value and the limiter, and nothing was allocated.
     */
    public TopKeys.Entry[] top(final Sketch sketch, final int maxEntries)
    {
        TopKeys.checkDescriptor(sketches.capacity(), sketch.offset(), sketch.k(), sketch.stripes(), sketch.limiter());
        return TopKeys.read(sketches, sketch.offset(), sketch.k(), sketch.stripes(), maxEntries);
    }

    /**
     * @return the underlying Agrona counters reader.
     */
    CountersReader counters()
    {
        return counters;
    }

    /**
     * @return the writer's process id.
     */
    public long pid()
    {
        return pid;
    }

    /**
     * @return the writer's start time, epoch ms (0 for an in-process reader).
     */
    public long startTimestampMs()
    {
        return startTimestampMs;
    }

    /**
     * Nothing to release: a mapped file is unmapped by the garbage collector once unreachable.
     */
    public void close()
    {
    }

    /**
     * One statistic of one limiter: its name and what is counted; {@link #value(Stat)} reads it.
     */
    public static final class Stat
    {
        private final int limiterId;
        private final String limiter;
        private final StatKind kind;
        private final int[] counterIds;

        Stat(final int limiterId, final String limiter, final StatKind kind, final int[] counterIds)
        {
            this.limiterId = limiterId;
            this.limiter = limiter;
            this.kind = kind;
            this.counterIds = counterIds;
        }

        /**
         * @return the limiter's name.
         */
        public String limiter()
        {
            return limiter;
        }

        /**
         * @return what is counted.
         */
        public StatKind kind()
        {
            return kind;
        }

        int limiterId()
        {
            return limiterId;
        }

        /** Its Agrona counters (stripes); the value is their sum. */
        int[] counterIds()
        {
            return counterIds;
        }

        public String toString()
        {
            return limiter + ' ' + kind.label();
        }
    }

    /**
     * A top-rejected-keys sketch of one limiter; {@link #top(Sketch, int)} reads it.
     */
    public static final class Sketch
    {
        private final int limiterId;
        private final String limiter;
        private final int offset;
        private final int k;
        private final int stripes;

        Sketch(final int limiterId, final String limiter, final int offset, final int k, final int stripes)
        {
            this.limiterId = limiterId;
            this.limiter = limiter;
            this.offset = offset;
            this.k = k;
            this.stripes = stripes;
        }

        /**
         * @return the limiter's name.
         */
        public String limiter()
        {
            return limiter;
        }

        /**
         * @return entries per stripe.
         */
        public int k()
        {
            return k;
        }

        int limiterId()
        {
            return limiterId;
        }

        /** Offset in the sketch region. */
        int offset()
        {
            return offset;
        }

        int stripes()
        {
            return stripes;
        }

        public String toString()
        {
            return limiter + " (id " + limiterId + ", offset " + offset + ", k " + k + ", stripes " + stripes + ')';
        }
    }
}
