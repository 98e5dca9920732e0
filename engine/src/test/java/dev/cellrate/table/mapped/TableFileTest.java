package dev.cellrate.table.mapped;

import static dev.cellrate.table.mapped.TableFileLayout.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellrate.table.TableLayout;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.function.Consumer;

/**
 * The table file's creation, validation and time base, in this JVM (the full-disk case in a child JVM).
 */
final class TableFileTest
{
    @TempDir
    Path directory;

    @Test
    void aNewFileIsWholeOwnerOnlyAndReopensWithItsSecret() throws Exception
    {
        final Path path = directory.resolve("t.table");
        final TableFile file = TableFile.open(path, TestSpecs.small(), null);
        assertTrue(file.created);
        assertFalse(file.rebased);
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(path)));
        assertEquals(fileLength(TestSpecs.small().tableLength()), Files.size(path));
        try (var listing = Files.list(directory))
        {
            assertEquals(1, listing.count(), "no temporary file is left beside the table");
        }
        final int slotsOffset = TableLayout.slotsOffset(TestSpecs.SHARDS);
        for (int slot = slotsOffset; slot < file.table.capacity(); slot += TableLayout.SLOT_LENGTH)
        {
            assertEquals(TableLayout.EMPTY_KEY, file.table.getLong(slot));
            assertEquals(TableLayout.FRESH_SLOT_TAT_NS, file.table.getLong(slot + TableLayout.TAT_OFFSET));
        }
        assertEquals(TableLayout.FRESH_SLOT_TAT_NS, file.table.getLong(TableLayout.OVERFLOW_CELL_OFFSET));
        assertEquals(TimeBase.current().bootId(), file.bootId());

        file.table.putLong(slotsOffset, 42);
        final TableFile again = TableFile.open(path, TestSpecs.small(), null);
        assertFalse(again.created);
        assertEquals(file.secret0, again.secret0);
        assertEquals(file.secret1, again.secret1);
        assertEquals(42, again.table.getLong(slotsOffset), "the same bytes");
    }

    /** Processes that create one file at once end on one file: one creates it, the others open it. */
    @Test
    void processesCreatingAtOnceEndOnOneFile() throws Exception
    {
        final Path path = directory.resolve("t.table");
        final ChildJvm[] children = new ChildJvm[3];
        for (int i = 0; i < children.length; i++)
        {
            children[i] = ChildJvm.start(null, LockChild.class, "open", path.toString());
        }
        final java.util.Set<String> secrets = new java.util.HashSet<>();
        int creators = 0;
        for (final ChildJvm child : children)
        {
            try (child)
            {
                final String line = child.awaitLine("SECRET ");
                secrets.add(line.substring(0, line.indexOf(" created")));
                creators += line.endsWith("created true") ? 1 : 0;
                assertEquals(0, child.exitCode());
            }
        }
        assertEquals(1, secrets.size(), "one file, one secret: " + secrets);
        assertEquals(1, creators, "one process linked the file into place");
        final TableFile file = TableFile.open(path, TestSpecs.small(), null);
        assertEquals(secrets.iterator().next(), "SECRET " + file.secret0 + " " + file.secret1);
        try (var listing = Files.list(directory))
        {
            assertEquals(1, listing.count(), "no temporary file is left beside the table");
        }
    }

    @Test
    void anotherLimitOrGeometryIsRefusedNamingWhatDiffers()
    {
        final Path path = directory.resolve("t.table");
        TableFile.open(path, TestSpecs.small(), null);
        final TableSpec slower = new TableSpec(KIND_KEYED_RATE_LIMITER, new long[] {2 * TestSpecs.T_NS, TestSpecs.TAU_NS}, 0,
            1_000_000_000L, 0, TestSpecs.SHARDS, TestSpecs.SLOTS_PER_SHARD, 64);
        assertRefused(path, slower, "limit emissionIntervalNs: the file has 1000000, this limiter asks for 2000000");
        assertRefused(path, TestSpecs.sized(128), "slotsPerShard: the file has 64, this limiter asks for 128");
        final TableSpec otherPolicy = new TableSpec(KIND_KEYED_RATE_LIMITER, new long[] {TestSpecs.T_NS, TestSpecs.TAU_NS}, 0,
            1_000_000_000L, 2, TestSpecs.SHARDS, TestSpecs.SLOTS_PER_SHARD, 64);
        assertRefused(path, otherPolicy, "tableFullPolicy (ordinal): the file has 0, this limiter asks for 2");
        final IllegalStateException secret = assertThrows(IllegalStateException.class,
            () -> TableFile.open(path, TestSpecs.small(), new long[] {1, 2}));
        assertTrue(secret.getMessage().contains("key-hash secret differs"), secret.getMessage());
    }

    @Test
    void aTruncatedFileIsRefused() throws Exception
    {
        final Path path = directory.resolve("t.table");
        TableFile.open(path, TestSpecs.small(), null);
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE))
        {
            channel.truncate(Files.size(path) - 16);
        }
        assertRefused(path, TestSpecs.small(), "it is truncated: ");
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE))
        {
            channel.truncate(100);
        }
        assertRefused(path, TestSpecs.small(), "it is 100 bytes, shorter than a keyed-table header");
    }

    @Test
    void aForeignFileIsRefused() throws Exception
    {
        final Path path = directory.resolve("t.table");
        Files.writeString(path, "#!/bin/sh\necho not a table\n".repeat(400));
        Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rw-------"));
        assertRefused(path, TestSpecs.small(), "it is not a cellrate keyed-table file (magic 0x");
        assertEquals(10800, Files.size(path), "left as it was");
    }

    @Test
    void aCorruptHeaderIsRefused() throws Exception
    {
        final Path path = directory.resolve("t.table");
        TableFile.open(path, TestSpecs.small(), null);
        edit(path, header -> header.putLong(IDLE_GRACE_OFFSET, header.getLong(IDLE_GRACE_OFFSET) ^ 1));
        assertRefused(path, TestSpecs.small(), "its header is corrupt (checksum");
    }

    /**
     * Every other layout version is refused, naming both. Version 2 has this version's bytes, but its engines place
     * a key in the first free slot of its home line and end a probe at the first EMPTY slot; this engine places a
     * key from its preferred slot on. An engine of version 2 sharing a file with this one would not find a key
     * placed past an EMPTY slot of its line and would insert it a second time (two budgets for one key across
     * processes), so the two never share a file.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 4})
    void anotherLayoutVersionIsRefused(final int version) throws Exception
    {
        final Path path = directory.resolve("t.table");
        TableFile.open(path, TestSpecs.small(), null);
        edit(path, header ->
        {
            header.putInt(VERSION_OFFSET, version);
            header.putLong(CHECKSUM_OFFSET, TableFileHeader.checksum(header, MAGIC_OFFSET, CHECKSUM_OFFSET));
        });
        assertRefused(path, TestSpecs.small(),
            "its layout version is " + version + ", and this engine reads version 3 only");
    }

    @Test
    void damagedLimitsAreRefused() throws Exception
    {
        final Path path = directory.resolve("t.table");
        TableFile.open(path, TestSpecs.small(), null);
        edit(path, header -> header.putLong(LIMITS_OFFSET, header.getLong(LIMITS_OFFSET) ^ 1));
        assertRefused(path, TestSpecs.small(), "its limits are corrupt");
    }

    @Test
    void aFileOthersCanReadIsRefused() throws Exception
    {
        final Path path = directory.resolve("t.table");
        TableFile.open(path, TestSpecs.small(), null);
        Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rw-r--r--"));
        assertRefused(path, TestSpecs.small(), "its permissions are rw-r--r--; it holds the key-hash secret");
    }

    @Test
    void aCorruptTimeBaseIsRefused() throws Exception
    {
        final Path path = directory.resolve("t.table");
        TableFile.open(path, TestSpecs.small(), null);
        edit(path, header -> header.putLong(ANCHOR_WALL_OFFSET, header.getLong(ANCHOR_WALL_OFFSET) + 1));
        assertRefused(path, TestSpecs.small(), "its time base is corrupt (checksum");
        edit(path, header -> header.putLong(TIME_STATE_OFFSET, 7));
        assertRefused(path, TestSpecs.small(), "its time base is corrupt (state 0x7)");
    }

    @Test
    void anotherTimeNamespaceIsRefused() throws Exception
    {
        final Path path = directory.resolve("t.table");
        TableFile.open(path, TestSpecs.small(), null);
        edit(path, header ->
        {
            header.putLong(TIMENS_OFFSET, header.getLong(TIMENS_OFFSET) + 5_000_000_000L);
            header.putLong(TIME_CHECKSUM_OFFSET, TableFileHeader.checksum(header, BOOT_ID_HI_OFFSET, TIME_CHECKSUM_OFFSET));
        });
        assertRefused(path, TestSpecs.small(), "processes sharing a table must share a time namespace");
    }

    @Test
    void anotherPidNamespaceIsRefused() throws Exception
    {
        final Path path = directory.resolve("t.table");
        TableFile.open(path, TestSpecs.small(), null);
        edit(path, header -> header.putLong(PID_NS_OFFSET, header.getLong(PID_NS_OFFSET) + 1));
        assertRefused(path, TestSpecs.small(), "processes sharing a table must share a pid namespace");
    }

    @Test
    void aMissingDirectoryIsAClearErrorAndCreatesNothing()
    {
        final Path path = directory.resolve("absent").resolve("t.table");
        final IllegalStateException error = assertThrows(IllegalStateException.class,
            () -> TableFile.open(path, TestSpecs.small(), null));
        assertTrue(error.getMessage().startsWith("cannot create the keyed-table file " + path), error.getMessage());
        assertTrue(error.getMessage().endsWith("; no file was created"), error.getMessage());
    }

    /**
     * Another boot: every keyed word moves by the wall-clock time that passed, capped at an empty bucket; free
     * slots start fresh; locks of the old boot are freed; the file is on this boot afterwards.
     */
    @Test
    void anotherBootRebasesEveryWordByTheWallClock() throws Exception
    {
        // The old boot's latest anchor: written whole, so it is the one the rebase uses.
        rebasesByTheOldAnchor((header, mono, wall) ->
        {
            header.putLong(ANCHOR_MONO_OFFSET, 5);
            header.putLong(ANCHOR_WALL_OFFSET, 7);
            header.putLong(LATEST_MONO_OFFSET, mono);
            header.putLong(LATEST_WALL_OFFSET, wall);
            header.putLong(LATEST_CHECKSUM_OFFSET, TableFileHeader.checksum(header, LATEST_MONO_OFFSET, LATEST_CHECKSUM_OFFSET));
        });
    }

    /** A latest anchor whose write was torn (its checksum fails): the rebase uses the first opener's anchor. */
    @Test
    void aTornLatestAnchorFallsBackToTheFirstOne() throws Exception
    {
        rebasesByTheOldAnchor((header, mono, wall) ->
        {
            header.putLong(ANCHOR_MONO_OFFSET, mono);
            header.putLong(ANCHOR_WALL_OFFSET, wall);
            header.putLong(LATEST_MONO_OFFSET, 5);
            header.putLong(LATEST_WALL_OFFSET, wall);
        });
    }

    interface AnchorEdit
    {
        void apply(AtomicBuffer header, long monoNs, long wallNs);
    }

    private void rebasesByTheOldAnchor(final AnchorEdit anchor) throws Exception
    {
        final Path path = directory.resolve("t.table");
        final TableFile file = TableFile.open(path, TestSpecs.small(), null);
        final long anchorMonoNs = 1_000_000_000_000L;
        final long anchorWallNs = TimeBase.wallNowNs() - 2_000_000_000L; // the old boot's anchor, 2 s ago
        final int first = TableLayout.slotsOffset(TestSpecs.SHARDS);
        final int waiting = first;                                  // wall instant: now + 5 ms
        final int idle = first + TableLayout.SLOT_LENGTH;           // wall instant: now - 1 s
        final int future = first + 2 * TableLayout.SLOT_LENGTH;     // wall instant: now + 98 s
        final int tombstone = first + 3 * TableLayout.SLOT_LENGTH;
        final AtomicBuffer table = file.table;
        table.putLong(waiting, 11);
        table.putLong(waiting + TableLayout.TAT_OFFSET, anchorMonoNs + 2_005_000_000L);
        table.putLong(idle, 12);
        table.putLong(idle + TableLayout.TAT_OFFSET, anchorMonoNs + 1_000_000_000L);
        table.putLong(future, 13);
        table.putLong(future + TableLayout.TAT_OFFSET, anchorMonoNs + 100_000_000_000L);
        table.putLong(tombstone, TableLayout.TOMBSTONE_KEY);
        table.putLong(tombstone + TableLayout.TAT_OFFSET, anchorMonoNs + 50_000_000_000L);
        table.putLong(TableLayout.shardHeaderOffset(0), LockHolder.token(4_000_000, 1)); // a holder of the old boot
        edit(path, header ->
        {
            header.putLong(BOOT_ID_HI_OFFSET, 0x1234);
            anchor.apply(header, anchorMonoNs, anchorWallNs);
            header.putLong(TIME_CHECKSUM_OFFSET, TableFileHeader.checksum(header, BOOT_ID_HI_OFFSET, TIME_CHECKSUM_OFFSET));
        });

        final long beforeNs = System.nanoTime();
        final TableFile rebased = TableFile.open(path, TestSpecs.small(), null);
        final long afterNs = System.nanoTime();
        assertTrue(rebased.rebased);
        assertEquals(1, rebased.rebases());
        assertEquals(TimeBase.current().bootId(), rebased.bootId());
        final AtomicBuffer words = rebased.table;
        final long ceilingNs = TestSpecs.small().maxLagNs();
        // The wall clock is read a little after the anchor was computed, so "now + 5 ms" lands within a few ms.
        assertBetween(beforeNs + 5_000_000L - 200_000_000L, afterNs + 5_000_000L, words.getLong(waiting + TableLayout.TAT_OFFSET));
        assertBetween(beforeNs - 1_200_000_000L, afterNs - 1_000_000_000L + 1, words.getLong(idle + TableLayout.TAT_OFFSET));
        assertBetween(beforeNs + ceilingNs, afterNs + ceilingNs, words.getLong(future + TableLayout.TAT_OFFSET));
        assertEquals(TableLayout.FRESH_SLOT_TAT_NS, words.getLong(tombstone + TableLayout.TAT_OFFSET));
        assertEquals(0, words.getLong(TableLayout.shardHeaderOffset(0)), "the old boot's lock is free");
        assertEquals(3, words.getLong(TableLayout.shardHeaderOffset(0) + TableLayout.LIVE_KEYS_OFFSET));
        assertEquals(0, rebased.header.getLong(LATEST_CHECKSUM_OFFSET), "the old boot's latest anchor is cleared");
        assertFalse(TableFile.open(path, TestSpecs.small(), null).rebased, "once per boot");
    }

    /** A rebase that was interrupted leaves words of two clocks: every keyed word becomes an empty bucket. */
    @Test
    void anInterruptedRebaseLeavesEveryKeyEmpty() throws Exception
    {
        final Path path = directory.resolve("t.table");
        final TableFile file = TableFile.open(path, TestSpecs.small(), null);
        final int slot = TableLayout.slotsOffset(TestSpecs.SHARDS);
        file.table.putLong(slot, 11);
        file.table.putLong(slot + TableLayout.TAT_OFFSET, System.nanoTime() - 60_000_000_000L);
        edit(path, header -> header.putLong(TIME_STATE_OFFSET, REBASING));
        final long beforeNs = System.nanoTime();
        final TableFile reopened = TableFile.open(path, TestSpecs.small(), null);
        final long afterNs = System.nanoTime();
        assertTrue(reopened.rebased);
        final long ceilingNs = TestSpecs.small().maxLagNs();
        assertBetween(beforeNs + ceilingNs, afterNs + ceilingNs, reopened.table.getLong(slot + TableLayout.TAT_OFFSET));
        assertEquals(TableLayout.FRESH_SLOT_TAT_NS,
            reopened.table.getLong(slot + TableLayout.SLOT_LENGTH + TableLayout.TAT_OFFSET), "a free slot stays fresh");
    }

    /**
     * A full disk at creation: the child JVM's file-size limit ({@code ulimit -f}) makes the kernel refuse the
     * writes past it, as a full disk does ({@code EFBIG} here, {@code ENOSPC} there; the same failed write).
     */
    @Test
    void aFullDiskAtCreationIsAClearErrorAndLeavesNoFile() throws Exception
    {
        final Path path = directory.resolve("big.table");
        try (ChildJvm child = ChildJvm.start("ulimit -f 512; exec", LockChild.class, "create", path.toString(), "65536"))
        {
            final String line = child.awaitLine("");
            assertTrue(line.startsWith("ERROR cannot create the keyed-table file " + path + " (" +
                fileLength(TestSpecs.sized(65536).tableLength()) + " bytes): "), line);
            assertTrue(line.endsWith("; no file was created"), line);
            assertEquals(0, child.exitCode());
        }
        try (var listing = Files.list(directory))
        {
            assertEquals(0, listing.count(), "neither the table nor its temporary file");
        }
    }

    /**
     * A read-only mount (as root, a tmpfs remounted read-only; otherwise a file and directory without write
     * permission, which the kernel refuses alike): opening an existing table and creating a new one each give a
     * clear error naming the file.
     */
    @Test
    void aReadOnlyMountIsAClearError() throws Exception
    {
        final Path writable = Files.createDirectory(directory.resolve("rw"));
        final Path mount = Files.createDirectory(directory.resolve("ro"));
        final boolean root = "root".equals(System.getProperty("user.name"));
        if (root)
        {
            run("mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", writable.toString());
        }
        try
        {
            TableFile.open(writable.resolve("t.table"), TestSpecs.small(), null);
            if (root)
            {
                // The same file system, seen through a read-only bind mount.
                run("mount", "--bind", writable.toString(), mount.toString());
                run("mount", "-o", "remount,bind,ro", mount.toString());
            }
            else
            {
                Files.copy(writable.resolve("t.table"), mount.resolve("t.table"));
                Files.setPosixFilePermissions(mount.resolve("t.table"), PosixFilePermissions.fromString("r--------"));
                Files.setPosixFilePermissions(mount, PosixFilePermissions.fromString("r-x------"));
            }
            final Path path = mount.resolve("t.table");
            final IllegalStateException opening = assertThrows(IllegalStateException.class,
                () -> TableFile.open(path, TestSpecs.small(), null));
            assertTrue(opening.getMessage().startsWith("cannot open the keyed-table file " + path +
                " for reading and writing: "), opening.getMessage());
            assertTrue(opening.getMessage().contains(root ? "Read-only file system" : "Permission denied"),
                opening.getMessage());
            final Path fresh = mount.resolve("u.table");
            final IllegalStateException creating = assertThrows(IllegalStateException.class,
                () -> TableFile.open(fresh, TestSpecs.small(), null));
            assertTrue(creating.getMessage().startsWith("cannot create the keyed-table file " + fresh), creating.getMessage());
            assertFalse(Files.exists(fresh));
        }
        finally
        {
            if (root)
            {
                // Lazily: this JVM still maps the table.
                new ProcessBuilder("umount", "-l", mount.toString()).start().waitFor();
                run("umount", "-l", writable.toString());
            }
            else
            {
                Files.setPosixFilePermissions(mount, PosixFilePermissions.fromString("rwx------"));
            }
        }
    }

    private static void run(final String... command) throws Exception
    {
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        final String output = new String(process.getInputStream().readAllBytes());
        assertEquals(0, process.waitFor(), String.join(" ", command) + ": " + output);
    }

    static void edit(final Path path, final Consumer<AtomicBuffer> change) throws Exception
    {
        try (RandomAccessFile raf = new RandomAccessFile(path.toFile(), "rw"); FileChannel channel = raf.getChannel())
        {
            final UnsafeBuffer header = new UnsafeBuffer(channel.map(FileChannel.MapMode.READ_WRITE, 0, HEADER_LENGTH));
            change.accept(header);
        }
    }

    @Test
    void theHighWaterMarksAreWrittenOnceAndTheirLengthIsChecked() throws Exception
    {
        final Path path = directory.resolve("t.table");
        final TableSpec spec = TestSpecs.small();
        final TableFile file = TableFile.open(path, spec, null);
        assertEquals(fileLength(spec.tableLength()), Files.size(path), "no room for marks before a refund");
        final long marksEnd = marksOffset(spec.tableLength()) + marksLength(spec.shardCount * spec.slotsPerShard);
        assertEquals(null, new FileMarks(file).ifCreated(), "no marks before a refund");
        final AtomicBuffer marks = new FileMarks(file).create();
        assertEquals(marksEnd, Files.size(path));
        assertEquals(marksOffset(spec.tableLength()), file.header.getLong(MARKS_OFFSET_OFFSET));
        marks.putLongVolatile(8, 42);
        final TableFile again = TableFile.open(path, spec, null);
        assertEquals(42, new FileMarks(again).ifCreated().getLongVolatile(8), "another opening maps the same marks");
        for (int offset = 16; offset < marks.capacity(); offset += 8)
        {
            assertEquals(TableLayout.NO_HIGH_WATER_NS, marks.getLongVolatile(offset));
        }
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE))
        {
            channel.truncate(marksEnd - 8);
        }
        assertRefused(path, spec, "it is truncated: " + (marksEnd - 8) + " bytes, and its header describes " +
            marksEnd + " (with its high-water marks)");
        // A creation of the marks cut short (length past the table, no offset in the header) is written again.
        edit(path, header -> header.putLong(MARKS_OFFSET_OFFSET, 0));
        final TableFile interrupted = TableFile.open(path, spec, null);
        assertEquals(null, new FileMarks(interrupted).ifCreated());
        assertEquals(TableLayout.NO_HIGH_WATER_NS, new FileMarks(interrupted).create().getLongVolatile(8));
        assertEquals(marksEnd, Files.size(path));
    }

    private static void assertRefused(final Path path, final TableSpec spec, final String why)
    {
        final IllegalStateException error = assertThrows(IllegalStateException.class, () -> TableFile.open(path, spec, null));
        assertTrue(error.getMessage().startsWith("refusing the keyed-table file " + path + ": "), error.getMessage());
        assertTrue(error.getMessage().contains(why), error.getMessage());
    }

    private static void assertBetween(final long low, final long high, final long value)
    {
        assertTrue(value >= low && value <= high, value + " not in [" + low + ", " + high + "]");
    }
}
