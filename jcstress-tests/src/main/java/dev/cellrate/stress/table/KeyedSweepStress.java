package dev.cellrate.stress.table;

import dev.cellrate.TestFronts;
import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.Result;
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
 * A sweep racing a decision on the idle key it may tombstone: the decision is never lost and the key ends
 * in exactly one slot with its charge. Key A was charged at t = 0 (TAT 100, idle at t = 1000 with grace 10);
 * at t = 1000 one actor charges A, the other sweeps the one-slot table.
 * Result: (A's code, slots holding A, A's TAT, evictions).
 * <p>
 * Run: {@code java -jar jcstress-tests/target/jcstress.jar -t KeyedSweepStress}
 */
@JCStressTest
@Description("a sweep racing a decision on an idle key never loses the decision or duplicates the key")
@Outcome(id = "0, 1, 1100, 0", expect = ACCEPTABLE, desc = "A charged first; the sweep saw an active key")
@Outcome(id = "0, 1, 1100, 1", expect = ACCEPTABLE, desc = "the sweep tombstoned idle A; A was re-inserted and charged")
@Outcome(expect = FORBIDDEN, desc = "lost charge, lost key, duplicate slot or wrong decision")
@State
public class KeyedSweepStress
{
    static final long NOW_NS = 1_000;
    static final long KEY_A = 1;

    final KeyedRateLimiter limiter = KeyedRateLimiter.builder(Limit.ofGcra(100, 200))
        .shardCount(1).slotCount(1).probeBound(1).idleGraceNs(10).seed(0x5eed).build();
    long codeA;

    public KeyedSweepStress()
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
    public void sweep()
    {
        limiter.sweep(NOW_NS, 1);
    }

    @Arbiter
    public void arbiter(final JJJJ_Result r)
    {
        final SlotTable table = TestFronts.tableOf(limiter);
        final long word = table.keyWord(KEY_A);
        final long tatNs = table.tatNs(word);
        r.r1 = codeA;
        r.r2 = table.countSlots(word);
        r.r3 = SlotTable.STALE == tatNs ? -1 : tatNs;
        r.r4 = limiter.evictions();
    }
}
