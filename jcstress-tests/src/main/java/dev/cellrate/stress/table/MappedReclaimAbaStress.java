package dev.cellrate.stress.table;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import dev.cellrate.TableFullPolicy;
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
 * ABA on a mapped table: a decision on key A races the reclamation of A's idle slot for key B, in a one-slot
 * table whose bytes are a region of a real mapped file and whose shard lock is a mapped table's (the holder's
 * process token, as {@code mappedFile} tables use). The rule under test is the table's ABA rule: a reclaimed slot
 * starts above every value a decider on that slot can hold, so A's CAS on a word it read before the reclaim
 * fails, and A's decision lands on A's cell or nowhere, never on B's.
 * <p>
 * Both requests are at t = 1000 with T = 100, burst 3 (ceiling 300); A was charged at t = 0 (TAT 100, idle:
 * 100 &lt;= 1000 - grace 10). Result: (A's code, B's code, owner of the slot: 1 = A, 2 = B, its TAT).
 * <p>
 * Run: {@code java -jar jcstress-tests/target/jcstress.jar -t MappedReclaimAbaStress}
 */
@JCStressTest
@Description("on a mapped file, a decision racing the reclamation of an idle slot never lands on the new key's cell")
@Outcome(id = "0, -2, 1, 1100", expect = ACCEPTABLE, desc = "A charged its own cell first; B finds A active, table full")
@Outcome(id = "-2, 0, 2, 1200", expect = ACCEPTABLE, desc = "B reclaimed idle A and was charged 2T; A finds B active, table full")
@Outcome(id = "0, 0, 2, 1300", expect = FORBIDDEN, desc = "ABA: A's charge landed on B's cell (stale slot reused)")
@Outcome(id = "0, 0, 2, 1200", expect = FORBIDDEN, desc = "A admitted, yet its charge is on no cell: lost across the reclaim")
@Outcome(expect = FORBIDDEN, desc = "lost update, duplicate cell or wrong decision")
@State
public class MappedReclaimAbaStress
{
    static final long NOW_NS = 1_000;
    static final long KEY_A = 1;
    static final long KEY_B = 2;
    static final Limit LIMIT = Limit.ofGcra(100, 200);

    /** One-slot tables in mapped files, shared by every state of this JVM; a state gives its region back. */
    static final TestMappedRegions REGIONS = new TestMappedRegions(1, 1, 4096);

    final AtomicBuffer region = REGIONS.take();
    final KeyedRateLimiter limiter = TestFronts.keyedRateLimiter(LIMIT, TableFullPolicy.REJECT,
        SystemNanoClock.INSTANCE, REGIONS.table(region, 1, 10, 0x5eed,
            2 * (LIMIT.toleranceNs() + LIMIT.emissionIntervalNs()), SystemNanoClock.INSTANCE));
    long codeA;
    long codeB;

    public MappedReclaimAbaStress()
    {
        if (Result.ADMITTED != limiter.tryAcquire(KEY_A, 1, 0))
        {
            throw new IllegalStateException("setup");
        }
    }

    @Actor
    public void decideOnA()
    {
        codeA = limiter.tryAcquire(KEY_A, 1, NOW_NS);
    }

    @Actor
    public void insertB()
    {
        codeB = limiter.tryAcquire(KEY_B, 2, NOW_NS);
    }

    @Arbiter
    public void arbiter(final JJJJ_Result r)
    {
        final SlotTable table = TestFronts.tableOf(limiter);
        final long tatA = table.tatNs(table.keyWord(KEY_A));
        final long tatB = table.tatNs(table.keyWord(KEY_B));
        r.r1 = codeA;
        r.r2 = codeB;
        r.r3 = (SlotTable.STALE != tatA ? 1 : 0) + (SlotTable.STALE != tatB ? 2 : 0);
        r.r4 = SlotTable.STALE != tatA ? tatA : (SlotTable.STALE != tatB ? tatB : -1);
        REGIONS.give(region);
    }
}
