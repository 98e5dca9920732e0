package dev.cellrate.stress.table;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import dev.cellrate.TableFullPolicy;
import dev.cellrate.TestFronts;
import dev.cellrate.table.SlotTable;
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
 * ABA with a bounded refund: a decision on idle key A races key B, which reclaims A's slot and then refunds
 * 10 permits with a time far behind (t = 100), in a table of one slot. T = 100, burst 3 (ceiling 300), grace 10;
 * A was charged at t = 0 (TAT 100, idle at t = 1000). B restarts the slot at 991 (above every word A held) and
 * is charged to 1100; the refund stops at 991 (the shard's reclaim floor + 1), never at 100, a value A's paused
 * decider may hold: a refund that went down to its caller's time would let that decider's CAS 100 -&gt; 1100
 * land on B's cell.
 * Result: (A's code, B's code, ns the refund gave back, owner of the slot (1 = A, 2 = B) * 100000 + its TAT).
 * <p>
 * Run: {@code java -jar jcstress-tests/target/jcstress.jar -t KeyedRefundReclaimStress}
 */
@JCStressTest
@Description("a bounded refund racing a reclaim never brings back a value a paused decider of the earlier key holds")
@Outcome(id = "0, -2, 0, 101100", expect = ACCEPTABLE, desc = "A charged its own cell first; B finds A active, table full, nothing to refund")
@Outcome(id = "-2, 0, 109, 200991", expect = ACCEPTABLE, desc = "B reclaimed idle A, was charged, refunded down to the floor; A finds B active, table full")
@Outcome(id = "0, 0, .*", expect = FORBIDDEN, desc = "ABA: A's charge landed on B's cell after B's refund")
@Outcome(expect = FORBIDDEN, desc = "lost update, duplicate cell, refund below the floor or wrong decision")
@State
public class KeyedRefundReclaimStress
{
    static final long NOW_NS = 1_000;
    static final long KEY_A = 1;
    static final long KEY_B = 2;

    final KeyedRateLimiter limiter = KeyedRateLimiter.builder(Limit.ofGcra(100, 200))
        .shardCount(1).slotCount(1).probeBound(1).idleGraceNs(10).seed(0x5eed)
        .tableFullPolicy(TableFullPolicy.REJECT).build();
    long codeA;
    long codeB;
    long givenNs;

    public KeyedRefundReclaimStress()
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
    public void insertAndRefundB()
    {
        codeB = limiter.tryAcquire(KEY_B, 1, NOW_NS);
        givenNs = limiter.refund(KEY_B, 10, 100);
    }

    @Arbiter
    public void arbiter(final JJJJ_Result r)
    {
        final SlotTable table = TestFronts.tableOf(limiter);
        final long tatA = table.tatNs(table.keyWord(KEY_A));
        final long tatB = table.tatNs(table.keyWord(KEY_B));
        r.r1 = codeA;
        r.r2 = codeB;
        r.r3 = givenNs;
        r.r4 = SlotTable.STALE != tatA ? 100_000 + tatA : (SlotTable.STALE != tatB ? 200_000 + tatB : -1);
    }
}
