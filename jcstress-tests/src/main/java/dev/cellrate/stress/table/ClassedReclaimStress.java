package dev.cellrate.stress.table;

import dev.cellrate.TestFronts;
import dev.cellrate.ClassedKeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import dev.cellrate.TableFullPolicy;
import dev.cellrate.table.SlotTable;
import dev.cellrate.table.TableLayout;
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
 * Classes and reclaim: a decision on key A (class 0: T = 100, tau = 200) races the reclamation of A's idle
 * slot for key B (class 1: T = 1000, tau = 1000), A and B sharing one slot (4 shards of one slot, probe bound 1).
 * A was charged at t = 0 (TAT 100, idle at t = 1000 with grace 10). A reclaimed slot must be decided under its
 * new key's class, never the previous key's, and a paused decision on A must never land on B's cell.
 * Result: (A's code, B's code, owner of the slot: 1 = A, 2 = B, its TAT).
 * <p>
 * Run: {@code java -jar jcstress-tests/target/jcstress.jar -t ClassedReclaimStress -m sanity}
 */
@JCStressTest
@Description("a reclaimed slot is decided under its new key's class; a racing decision never lands on it")
@Outcome(id = "0, -2, 1, 1100", expect = ACCEPTABLE, desc = "A charged its own cell (class 0); B finds A active, table full")
@Outcome(id = "-2, 0, 2, 3000", expect = ACCEPTABLE, desc = "B reclaimed idle A and was charged 2 T of class 1; A finds B active")
@Outcome(id = "-2, 0, 2, 1200", expect = FORBIDDEN, desc = "B decided under A's class (the reclaimed slot kept the old class)")
@Outcome(expect = FORBIDDEN, desc = "ABA (A's charge on B's cell), a lost update, a duplicate cell or a wrong class")
@State
public class ClassedReclaimStress
{
    static final long NOW_NS = 1_000;
    static final long SEED = 0x5eed;
    static final long KEY_A = 1;
    static final long KEY_B = sameShard(KEY_A);

    final ClassedKeyedRateLimiter limiter = TestFronts.classed(
        new Limit[] {Limit.ofGcra(100, 200), Limit.ofGcra(1_000, 1_000)},
        key -> KEY_A == key ? 0 : 1,
        new SlotTable(4, 1, 1, 10, SEED, () -> NOW_NS), TableFullPolicy.REJECT);
    long codeA;
    long codeB;

    public ClassedReclaimStress()
    {
        if (Result.ADMITTED != limiter.tryAcquire(KEY_A, 1, 0))
        {
            throw new IllegalStateException("setup");
        }
    }

    static long sameShard(final long key)
    {
        final SlotTable table = new SlotTable(4, 1, 1, 10, SEED, () -> 0);
        final long shard = (table.keyWord(key) >>> TableLayout.SHARD_SHIFT) & 3;
        long other = key + 1;
        while (((table.keyWord(other) >>> TableLayout.SHARD_SHIFT) & 3) != shard)
        {
            other++;
        }
        return other;
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
        final long tatA = TestFronts.tatNs(limiter, KEY_A);
        final long tatB = TestFronts.tatNs(limiter, KEY_B);
        r.r1 = codeA;
        r.r2 = codeB;
        r.r3 = (SlotTable.STALE != tatA ? 1 : 0) + (SlotTable.STALE != tatB ? 2 : 0);
        r.r4 = SlotTable.STALE != tatA ? tatA : (SlotTable.STALE != tatB ? tatB : -1);
    }
}
