package dev.cellrate.stat;

import dev.cellrate.check.Bounds;
import dev.cellrate.layout.OffHeap;
import org.agrona.BitUtil;
import org.agrona.BufferUtil;
import org.agrona.IoUtil;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersManager;

import java.io.File;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.StandardOpenOption;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The writer side of cellrate's statistics: Agrona counters ({@link CountersManager} over a metadata and a
 * values buffer) plus a region for top-keys sketches, either in memory or in a memory-mapped file
 * {@value StatLayout#FILE_NAME} in a directory the user names (layout: {@link StatLayout}), which another
 * process reads live with {@link StatReader} (e.g. the {@code cellrate-stat} tool).
 * <p>
 * Registering a limiter ({@link #limiter(String)}) allocates its counters; it is done once, not on a decision
 * path, and is thread-safe. Recording is done through the returned {@link LimiterStats}.
 * <p>
 * A new file replaces an old one of the same name (as Aeron replaces a dead driver's CnC file); the file is
 * left in place at {@link #close()} so the last values stay readable. A directory has one live writer: while a
 * writer is open (in this process or another), {@link #create} in the same directory is refused with an
 * {@link IllegalStateException} that names the live writer's process, instead of hiding its statistics.
 */
public final class StatFile implements AutoCloseable
{
    /** Default number of counters. */
    public static final int DEFAULT_MAX_COUNTERS = 4096;
    /** Default sketch region length, bytes. */
    public static final int DEFAULT_SKETCH_LENGTH = 1 << 20;
    /** Default entries per top-keys stripe. */
    public static final int DEFAULT_TOP_K = 16;

    /**
     * One rejection in this many feeds the top-keys sketch (weighted by it), so the reject path pays the
     * sketch's seqlock CAS and scan only for a sample; the outcome counters stay exact. See
     * {@link LimiterStats#topKeysSampleEvery()}.
     */
    public static final int DEFAULT_TOP_KEYS_SAMPLE_EVERY = 8;
    /** Default stripes per outcome counter: the next power of two &ge; 2 &times; processors, at most 16. */
    public static final int DEFAULT_STRIPES =
        Math.min(16, BitUtil.findNextPositivePowerOfTwo(2 * Runtime.getRuntime().availableProcessors()));

    private final ByteBuffer backing;
    private final Path path;
    private final UnsafeBuffer metadata;
    private final UnsafeBuffer values;
    private final UnsafeBuffer sketches;
    private final CountersManager counters;
    private final UnsafeBuffer keyScratch = new UnsafeBuffer(new byte[StatLayout.KEY_NAME_OFFSET + 128]);
    private int nextLimiterId;
    private int nextSketchOffset;
    private boolean closed;
    private FileChannel writerLock;

    private StatFile(final ByteBuffer backing, final Path path, final int maxCounters, final int sketchLength)
    {
        this.backing = backing;
        this.path = path;
        final int metadataLength = StatLayout.metadataLength(maxCounters);
        final int valuesLength = StatLayout.valuesLength(maxCounters);
        final UnsafeBuffer whole = new UnsafeBuffer(backing);
        metadata = new UnsafeBuffer(backing, StatLayout.HEADER_LENGTH, metadataLength);
        values = new UnsafeBuffer(backing, StatLayout.HEADER_LENGTH + metadataLength, valuesLength);
        sketches = new UnsafeBuffer(backing, StatLayout.HEADER_LENGTH + metadataLength + valuesLength, sketchLength);
        counters = new CountersManager(metadata, values, StandardCharsets.US_ASCII);
        whole.putInt(StatLayout.METADATA_LENGTH_OFFSET, metadataLength);
        whole.putInt(StatLayout.VALUES_LENGTH_OFFSET, valuesLength);
        whole.putInt(StatLayout.SKETCH_LENGTH_OFFSET, sketchLength);
        whole.putLong(StatLayout.PID_OFFSET, ProcessHandle.current().pid());
        whole.putLong(StatLayout.START_TIMESTAMP_OFFSET, System.currentTimeMillis());
        whole.putIntRelease(StatLayout.VERSION_OFFSET, StatLayout.VERSION);
    }

    /**
     * Statistics in memory only (readable in this process, e.g. by the Micrometer binder).
     *
     * @return a file with the default capacities.
     */
    public static StatFile inMemory()
    {
        return inMemory(DEFAULT_MAX_COUNTERS, DEFAULT_SKETCH_LENGTH);
    }

    /**
     * @param maxCounters  counters, in [16, 2<sup>20</sup>].
     * @param sketchLength bytes for top-keys sketches, in [0, 2<sup>28</sup>].
     * @return statistics in memory only.
     */
    public static StatFile inMemory(final int maxCounters, final int sketchLength)
    {
        OffHeap.requireUnsafe();
        checkCapacities(maxCounters, sketchLength);
        final long length = StatLayout.fileLength(
            StatLayout.metadataLength(maxCounters), StatLayout.valuesLength(maxCounters), sketchLength);
        return new StatFile(
            BufferUtil.allocateDirectAligned((int)length, BitUtil.CACHE_LINE_LENGTH), null, maxCounters, sketchLength);
    }

    /**
     * Statistics in {@code directory}/{@value StatLayout#FILE_NAME} (created, or replaced), with default
     * capacities.
     *
     * @param directory the directory (created if absent).
     * @return the file.
     */
    public static StatFile create(final Path directory)
    {
        return create(directory, DEFAULT_MAX_COUNTERS, DEFAULT_SKETCH_LENGTH);
    }

    /**
     * @param directory    the directory (created if absent).
     * @param maxCounters  counters, in [16, 2<sup>20</sup>].
     * @param sketchLength bytes for top-keys sketches, in [0, 2<sup>28</sup>].
     * @return the file, mapped.
     */
    public static StatFile create(final Path directory, final int maxCounters, final int sketchLength)
    {
        OffHeap.requireUnsafe();
        checkCapacities(maxCounters, sketchLength);
        try
        {
            Files.createDirectories(directory);
            final File file = directory.resolve(StatLayout.FILE_NAME).toFile();
            final FileChannel lock = lockWriter(directory, file);
            try
            {
                Files.deleteIfExists(file.toPath());
                final long length = StatLayout.fileLength(
                    StatLayout.metadataLength(maxCounters), StatLayout.valuesLength(maxCounters), sketchLength);
                final MappedByteBuffer mapped = IoUtil.mapNewFile(file, length, true);
                final StatFile statFile = new StatFile(mapped, file.toPath(), maxCounters, sketchLength);
                statFile.writerLock = lock;
                return statFile;
            }
            catch (final RuntimeException | java.io.IOException ex)
            {
                lock.close();
                throw ex;
            }
        }
        catch (final java.io.IOException ex)
        {
            throw new java.io.UncheckedIOException(ex);
        }
    }

    /**
     * One live writer a directory: the writer holds an OS file lock on {@value StatLayout#LOCK_FILE_NAME} until
     * {@link #close()} or its process ends (the OS drops the lock of a dead process, so a crashed writer never
     * blocks the next one).
     */
    private static FileChannel lockWriter(final Path directory, final File file) throws java.io.IOException
    {
        final Path lockPath = directory.resolve(StatLayout.LOCK_FILE_NAME);
        final FileChannel channel = FileChannel.open(lockPath, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock;
        try
        {
            lock = channel.tryLock();
        }
        catch (final OverlappingFileLockException ex)
        {
            lock = null;
        }
        if (null == lock)
        {
            channel.close();
            throw new IllegalStateException("statistics file " + file + " has a live writer (" + describeWriter(file) +
                "): a second writer would hide its statistics; close the first StatFile, or give this one " +
                "another directory");
        }
        return channel;
    }

    private static String describeWriter(final File file)
    {
        try (FileChannel channel = FileChannel.open(file.toPath(), StandardOpenOption.READ))
        {
            final ByteBuffer header = ByteBuffer.allocate(StatLayout.HEADER_LENGTH).order(ByteOrder.nativeOrder());
            channel.read(header, 0);
            final long pid = header.getLong(StatLayout.PID_OFFSET);
            return "process " + pid + (pid == ProcessHandle.current().pid() ? ", this process" : "") +
                ", started at epoch ms " + header.getLong(StatLayout.START_TIMESTAMP_OFFSET);
        }
        catch (final java.io.IOException | RuntimeException ex)
        {
            return "its header is not readable yet";
        }
    }

    private static void checkCapacities(final int maxCounters, final int sketchLength)
    {
        Bounds.requireRange("maxCounters", maxCounters, 16, 1 << 20);
        Bounds.requireRange("sketchLength", sketchLength, 0, 1 << 28);
    }

    /**
     * Register a limiter with {@link #DEFAULT_STRIPES} stripes and a top-keys sketch of {@link #DEFAULT_TOP_K}.
     *
     * @param name the limiter's name (ASCII, at most {@link StatLayout#MAX_NAME_LENGTH} bytes).
     * @return its counters.
     */
    public LimiterStats limiter(final String name)
    {
        return limiter(name, DEFAULT_STRIPES, DEFAULT_TOP_K);
    }

    /**
     * @param name    the limiter's name (ASCII, at most {@link StatLayout#MAX_NAME_LENGTH} bytes).
     * @param stripes stripes per outcome, a power of two in [1, 64].
     * @param topK    entries per top-keys stripe, in [0, {@link TopKeys#MAX_K}] (0: no sketch).
     * @return its counters.
     * @throws IllegalStateException if the file has no room left.
     */
    public LimiterStats limiter(final String name, final int stripes, final int topK)
    {
        return limiter(name, stripes, topK, DEFAULT_TOP_KEYS_SAMPLE_EVERY);
    }

    /**
     * @param name        the limiter's name (ASCII, at most {@link StatLayout#MAX_NAME_LENGTH} bytes).
     * @param stripes     stripes per outcome, a power of two in [1, 64].
     * @param topK        entries per top-keys stripe, in [0, {@link TopKeys#MAX_K}] (0: no sketch).
     * @param sampleEvery one rejection in this many feeds the sketch, with this weight: a power of two in
     *                    [1, 1024] (1: every rejection, exact Space-Saving).
     * @return its counters.
     * @throws IllegalStateException if the file has no room left for all of the limiter's counters or its sketch
     *                               (then none of them is allocated).
     */
    public synchronized LimiterStats limiter(
        final String name, final int stripes, final int topK, final int sampleEvery)
    {
        Bounds.requireRange("sampleEvery", sampleEvery, 1, 1024);
        if (!BitUtil.isPowerOfTwo(sampleEvery))
        {
            throw new IllegalArgumentException("sampleEvery must be a power of two in [1, 1024] but was " + sampleEvery);
        }
        checkRegistration(name, stripes);
        Bounds.requireRange("topK", topK, 0, TopKeys.MAX_K);
        // Refuse a limiter that does not fit before any of its counters exists: a reader never sees half of one.
        final int sketchLength = topK > 0 ? TopKeys.length(topK, stripes) : 0;
        if (nextSketchOffset + sketchLength > sketches.capacity())
        {
            throw new IllegalStateException("sketch region full: " + sketches.capacity() + " bytes");
        }
        final int counterCount = LimiterStats.OUTCOMES * stripes + (topK > 0 ? 1 : 0);
        requireCounters(name, counterCount);
        final int limiterId = nextLimiterId++;
        TopKeys topKeys = null;
        if (topK > 0)
        {
            topKeys = new TopKeys(sketches, nextSketchOffset, topK, stripes);
            final int counterId = allocate(StatKind.TOP_KEYS, name, limiterId, topK, stripes);
            counters.setCounterValue(counterId, nextSketchOffset);
            nextSketchOffset += sketchLength;
        }
        return new LimiterStats(this, name, limiterId, stripes, topKeys, sampleEvery);
    }

    /**
     * Register counts of hits (a request's cost) by outcome, as envoyproxy/ratelimit's statistics count them:
     * {@link StatKind#TOTAL_HITS}, {@link StatKind#OVER_LIMIT}, {@link StatKind#NEAR_LIMIT},
     * {@link StatKind#WITHIN_LIMIT} and {@link StatKind#SHADOW_MODE}, each striped as a limiter's outcomes are.
     *
     * @param name    the name (ASCII, at most {@link StatLayout#MAX_NAME_LENGTH} bytes).
     * @param stripes stripes per count, a power of two in [1, 64].
     * @return the counts.
     * @throws IllegalStateException if the file has no room left for all of them (then none is allocated).
     */
    public synchronized HitStats hits(final String name, final int stripes)
    {
        checkRegistration(name, stripes);
        final int counterCount = HitStats.KINDS * stripes;
        requireCounters(name, counterCount);
        return new HitStats(this, name, nextLimiterId++, stripes);
    }

    /** The checks every registration shares: the file is open, the name and the stripes are valid. */
    private void checkRegistration(final String name, final int stripes)
    {
        checkOpen();
        if (null == name || name.isEmpty() || name.length() > StatLayout.MAX_NAME_LENGTH ||
            !StandardCharsets.US_ASCII.newEncoder().canEncode(name))
        {
            throw new IllegalArgumentException(
                "name must be 1 to " + StatLayout.MAX_NAME_LENGTH + " ASCII characters but was " + name);
        }
        Bounds.requireRange("stripes", stripes, 1, 64);
        if (!BitUtil.isPowerOfTwo(stripes))
        {
            throw new IllegalArgumentException("stripes must be a power of two in [1, 64] but was " + stripes);
        }
    }

    /** Refuse a registration that does not fit before any of its counters exists: a reader never sees half of one. */
    private void requireCounters(final String name, final int counterCount)
    {
        if (counters.available() < counterCount)
        {
            throw new IllegalStateException("no counters left: " + name + " needs " + counterCount + ", " +
                counters.available() + " of " + counters.capacity() + " free");
        }
    }

    synchronized int allocate(
        final StatKind kind, final String name, final int limiterId, final int stripe, final int stripes)
    {
        checkOpen();
        if (counters.available() < 1)
        {
            throw new IllegalStateException("no counters left: " + counters.capacity());
        }
        keyScratch.putInt(StatLayout.KEY_LIMITER_ID_OFFSET, limiterId);
        keyScratch.putInt(StatLayout.KEY_STRIPE_OFFSET, stripe);
        keyScratch.putInt(StatLayout.KEY_STRIPES_OFFSET, stripes);
        keyScratch.putInt(StatLayout.KEY_NAME_LENGTH_OFFSET, name.length());
        final int nameLength = keyScratch.putStringWithoutLengthAscii(StatLayout.KEY_NAME_OFFSET, name);
        final String label = name + " " + kind.label() +
            ((kind.isOutcome() || kind.isHits()) && stripes > 1 ? " #" + stripe : "");
        final UnsafeBuffer labelBuffer = new UnsafeBuffer(label.getBytes(StandardCharsets.US_ASCII));
        return counters.allocate(
            kind.typeId(), keyScratch, 0, StatLayout.KEY_NAME_OFFSET + nameLength, labelBuffer, 0,
            labelBuffer.capacity());
    }

    private void checkOpen()
    {
        if (closed)
        {
            throw new IllegalStateException("closed");
        }
    }

    AtomicBuffer valuesBuffer()
    {
        return values;
    }

    /**
     * @return a reader over this file's buffers (this process).
     */
    public StatReader reader()
    {
        return new StatReader(metadata, values, sketches, null);
    }

    /**
     * @return the mapped file's path, or null in memory.
     */
    public Path path()
    {
        return path;
    }

    /**
     * Refuse new registrations and flush a mapped file. The mapping is not unmapped here: a thread still
     * recording must not touch unmapped memory, so it is released with the last {@link LimiterStats} by the
     * garbage collector. The file stays on disk with its last values.
     */
    public synchronized void close()
    {
        if (!closed)
        {
            closed = true;
            if (backing instanceof MappedByteBuffer)
            {
                ((MappedByteBuffer)backing).force();
            }
            if (null != writerLock)
            {
                try
                {
                    writerLock.close(); // releases the lock: the next writer may replace the file
                }
                catch (final java.io.IOException ignored)
                {
                    // the OS releases it with the process
                }
            }
        }
    }
}
