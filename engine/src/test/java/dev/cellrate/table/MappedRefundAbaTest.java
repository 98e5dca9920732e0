package dev.cellrate.table;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.KeyedShaper;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import dev.cellrate.ShaperMode;
import dev.cellrate.TestFronts;
import dev.cellrate.table.mapped.ChildJvm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The ABA rule of refunds across processes, on a table file: a decider D in this JVM stopped between its
 * validated read and its CAS (the test plays D's two steps with the table's own steps), a refund in a child JVM
 * that lowers the word (a keyed shaper's cancel), and a new key in this JVM that would reclaim the slot. The
 * child's high-water mark is in the file, so this JVM's reclaim sees it: B is refused the slot while the value D
 * holds is not idle, and D's CAS fails. T = 1 ms, burst 100, grace 1 s, one slot; the instants are the callers'
 * own, in the past of the clock, so nothing depends on timing.
 */
final class MappedRefundAbaTest
{
    static final long MS = 1_000_000L;
    static final long GRACE_NS = 1_000_000_000L;
    static final long KEY_A = 1;
    static final long KEY_B = 2;
    static final Limit LIMIT = Limit.ofGcra(MS, 99 * MS);

    @TempDir
    Path directory;

    static KeyedShaper shaperOn(final Path file)
    {
        return KeyedRateLimiter.builder(LIMIT).shardCount(1).slotCount(1).probeBound(1).idleGraceNs(GRACE_NS)
            .mappedFile(file).buildShaper(ShaperMode.delay());
    }

    @Test
    @Timeout(120)
    void aStaleDeciderNeverChargesTheKeyThatReclaimedASlotAnotherProcessRefunded() throws Exception
    {
        final Path file = directory.resolve("s.table");
        final KeyedShaper shaper = shaperOn(file);
        final SlotTable table = TestFronts.tableOf(shaper);
        final long wordA = table.keyWord(KEY_A);
        final long t0Ns = System.nanoTime() - 60_000 * MS; // a minute behind the clock: E = min(now, clock) = now
        final long fileLength = Files.size(file);
        try (ChildJvm child = ChildJvm.start(null, RefundChild.class, file.toString(), Long.toString(t0Ns), "2"))
        {
            assertEquals("reserved 0", child.awaitLine("reserved"));
            // D: reserve(A, 50, t0) reads A's word (validated) and stops before its CAS.
            final int offset = table.claimSlot(wordA, t0Ns);
            final long seenNs = table.loadTat(offset, wordA);
            assertEquals(t0Ns + 2 * MS, seenNs);

            child.process.getOutputStream().write("cancel\n".getBytes(StandardCharsets.US_ASCII));
            child.process.getOutputStream().flush();
            assertEquals("cancelled true", child.awaitLine("cancelled"), "the child's refund gives back");
            assertEquals(0, child.exitCode());
            assertTrue(Files.size(file) > fileLength, "the refund wrote the high-water marks into the file");

            final long codeB = shaper.reserve(KEY_B, 1, t0Ns + MS);
            // D resumes: its CAS must not succeed on a cell that now belongs to B.
            final long witnessNs = table.compareAndExchangeTat(offset, seenNs, seenNs + 50 * MS);
            assertNotEquals(seenNs, witnessNs, "stale CAS landed on B's cell (B's code " + codeB + ")");
            assertEquals(Result.TABLE_FULL, codeB, "A's slot is not idle while the value D may hold is not");

            // Once the value A's word was lowered from is idle too, B gets the slot, above that value.
            final long laterNs = seenNs + GRACE_NS;
            assertEquals(0, shaper.reserve(KEY_B, 1, laterNs));
            assertTrue(table.tatNs(table.keyWord(KEY_B)) > seenNs);
            assertEquals(SlotTable.STALE, table.loadTat(offset, wordA));
        }
    }

    @Test
    void aRefundGivesBackOnAMappedTableAndEveryOpeningSeesIt()
    {
        final Path file = directory.resolve("s.table");
        final KeyedShaper p = shaperOn(file);
        final KeyedShaper q = shaperOn(file);
        final long nowNs = System.nanoTime() - 60_000 * MS;
        final SlotTable table = TestFronts.tableOf(q);
        assertEquals(0, p.reserve(KEY_A, 1, nowNs, null));
        final long beforeNs = table.tatNs(table.keyWord(KEY_A));
        final dev.cellrate.Reservation reservation = new dev.cellrate.Reservation();
        assertTrue(p.reserve(KEY_A, 50, nowNs, reservation) >= 0);
        assertEquals(beforeNs + 50 * MS, table.tatNs(table.keyWord(KEY_A)), "q sees the 50 p reserved");
        assertTrue(p.cancel(KEY_A, reservation, nowNs), "the cancel gives the 50 back");
        assertEquals(beforeNs, table.tatNs(table.keyWord(KEY_A)), "q sees the word restored: the refund is in the file");
    }
}
