package dev.cellrate.stress.table;

import dev.cellrate.KeyedShaper;
import dev.cellrate.Limit;
import dev.cellrate.Reservation;
import dev.cellrate.ShaperMode;
import dev.cellrate.TestFronts;
import dev.cellrate.table.SlotTable;
import dev.cellrate.table.mapped.TestMappedRegions;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.SystemNanoClock;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJJ_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * {@code KeyedCancelReclaimStress} across two openings of one mapped table, as two processes on one table file
 * have: two tables over one region of a real mapped file, each with its own shard lock object and its own view of
 * the high-water marks, which live in the file after the table and are announced by a flag word (as a table
 * file's are). Opening Q reserved 1 for A at t = 0 (A's TAT -900 before, 100 after); one actor decides on A through
 * opening P while the other cancels A's reservation through Q and then inserts B through P. Q's cancel records
 * 100 as the slot's mark in the file; P's reclaim must see it, so B never gets the slot while 100 is not idle, and
 * the decider's stale 100 never lands on B's cell. T = 100, burst 3, grace 10.
 * Result: (decider's code, cancel refunded 1/0, B's code, owner of the slot * 10,000 + its TAT).
 * <p>
 * Run: {@code java -jar jcstress-tests/target/jcstress.jar -t MappedCancelReclaimStress}
 */
@JCStressTest
@Description("a refund in one opening of a mapped table never lets a paused decider charge the key another opening puts in the slot")
@Outcome(id = "100, 0, -2, 10200", expect = ACCEPTABLE,
    desc = "decider first (delay 100); the cancel finds a later reservation and refunds nothing; B table-full")
@Outcome(id = "0, 1, -2, 10100", expect = ACCEPTABLE,
    desc = "cancel first; the decider charges A's refunded cell; B finds A active, table-full")
@Outcome(id = "-2, 1, 0, 20100", expect = FORBIDDEN,
    desc = "P reclaimed the slot for B while 100, the value Q's cancel lowered A's word from, was not idle: " +
        "the mark in the file was not seen")
@Outcome(id = "100, 1, 0, 20200", expect = FORBIDDEN,
    desc = "ABA: the decider's stale CAS of 100 landed on B's cell (B charged twice, A charged nothing)")
@Outcome(expect = FORBIDDEN, desc = "lost update, duplicate cell or wrong decision")
@State
public class MappedCancelReclaimStress
{
    static final long T_NS = 100;
    static final long KEY_A = 1;
    static final long KEY_B = 2;
    static final Limit LIMIT = Limit.ofGcra(T_NS, 2 * T_NS);

    /** One-slot tables in mapped files, shared by every state of this JVM; a state gives its region back. */
    static final TestMappedRegions REGIONS = new TestMappedRegions(1, 1, 4096);

    final AtomicBuffer region = REGIONS.take();
    final KeyedShaper openingP = opening(region);
    final KeyedShaper openingQ = opening(region);
    final Reservation reservation = new Reservation();
    long codeDecider;
    long refunded;
    long codeB;

    private static KeyedShaper opening(final AtomicBuffer region)
    {
        return TestFronts.keyedShaper(LIMIT, ShaperMode.delay(), REGIONS.table(region, 1, 10, 0x5eed,
            2 * LIMIT.ceilingNs(), SystemNanoClock.INSTANCE), SystemNanoClock.INSTANCE);
    }

    public MappedCancelReclaimStress()
    {
        if (0 != openingQ.reserve(KEY_A, 1, -1_000, null) || 0 != openingQ.reserve(KEY_A, 1, 0, reservation))
        {
            throw new IllegalStateException("setup");
        }
    }

    @Actor
    public void decideOnA()
    {
        codeDecider = openingP.reserve(KEY_A, 1, 0, null);
    }

    @Actor
    public void cancelAThenInsertB()
    {
        refunded = openingQ.cancel(KEY_A, reservation, 0) ? 1 : 0;
        codeB = openingP.reserve(KEY_B, 1, 0, null);
    }

    @Arbiter
    public void arbiter(final JJJJ_Result r)
    {
        final SlotTable table = TestFronts.tableOf(openingP);
        final long tatA = table.tatNs(table.keyWord(KEY_A));
        final long tatB = table.tatNs(table.keyWord(KEY_B));
        r.r1 = codeDecider;
        r.r2 = refunded;
        r.r3 = codeB;
        r.r4 = SlotTable.STALE != tatA ? 10_000 + tatA : (SlotTable.STALE != tatB ? 20_000 + tatB : -1);
        REGIONS.give(region);
    }
}
