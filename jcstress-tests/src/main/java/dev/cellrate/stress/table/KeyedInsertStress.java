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
import org.openjdk.jcstress.infra.results.JJJ_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * Two threads insert the same new key at once: the key ends in exactly one slot and both admissions are
 * charged to its one TAT (now + 2T). Result: (admitted count, slots holding the key, TAT - now).
 * <p>
 * Run: {@code java -jar jcstress-tests/target/jcstress.jar -t KeyedInsertStress}
 */
public final class KeyedInsertStress
{
    static final long T_NS = 100;
    static final long NOW_NS = 1_000_000;
    static final long KEY = 42;

    private KeyedInsertStress()
    {
    }

    static KeyedRateLimiter limiter()
    {
        return KeyedRateLimiter.builder(Limit.ofGcra(T_NS, 10 * T_NS))
            .shardCount(1).slotCount(8).probeBound(8).idleGraceNs(10).seed(0x5eed).build();
    }

    static void arbiter(final KeyedRateLimiter limiter, final long admitted, final JJJ_Result r)
    {
        final SlotTable table = TestFronts.tableOf(limiter);
        final long word = table.keyWord(KEY);
        r.r1 = admitted;
        r.r2 = table.countSlots(word);
        final long tatNs = table.tatNs(word);
        r.r3 = SlotTable.STALE == tatNs ? -1 : tatNs - NOW_NS;
    }

    /** Same new key into an empty table. */
    @JCStressTest
    @Description("two inserts of one new key into free slots end with one cell charged twice")
    @Outcome(id = "2, 1, 200", expect = ACCEPTABLE, desc = "one slot, both admissions on its TAT")
    @Outcome(id = "2, 2, .*", expect = FORBIDDEN, desc = "duplicate cells for one key")
    @Outcome(expect = FORBIDDEN, desc = "lost admission, lost update or duplicate cell")
    @State
    public static class IntoFreeSlots
    {
        final KeyedRateLimiter limiter = limiter();
        long admitted1;
        long admitted2;

        @Actor
        public void a1()
        {
            admitted1 = Result.isAdmitted(limiter.tryAcquire(KEY, 1, NOW_NS)) ? 1 : 0;
        }

        @Actor
        public void a2()
        {
            admitted2 = Result.isAdmitted(limiter.tryAcquire(KEY, 1, NOW_NS)) ? 1 : 0;
        }

        @Arbiter
        public void arbiter(final JJJ_Result r)
        {
            KeyedInsertStress.arbiter(limiter, admitted1 + admitted2, r);
        }
    }

    /** Same new key into a full table of idle keys: both inserts may pick idle slots to reclaim. */
    @JCStressTest
    @Description("two inserts of one new key over idle slots end with one cell charged twice")
    @Outcome(id = "2, 1, 200", expect = ACCEPTABLE, desc = "one slot, both admissions on its TAT")
    @Outcome(id = "2, 2, .*", expect = FORBIDDEN, desc = "duplicate cells for one key")
    @Outcome(expect = FORBIDDEN, desc = "lost admission, lost update or duplicate cell")
    @State
    public static class OverIdleSlots
    {
        final KeyedRateLimiter limiter = limiter();
        long admitted1;
        long admitted2;

        public OverIdleSlots()
        {
            for (long key = 1000; key < 1008; key++)
            {
                limiter.tryAcquire(key, 1, 0);
            }
        }

        @Actor
        public void a1()
        {
            admitted1 = Result.isAdmitted(limiter.tryAcquire(KEY, 1, NOW_NS)) ? 1 : 0;
        }

        @Actor
        public void a2()
        {
            admitted2 = Result.isAdmitted(limiter.tryAcquire(KEY, 1, NOW_NS)) ? 1 : 0;
        }

        @Arbiter
        public void arbiter(final JJJ_Result r)
        {
            KeyedInsertStress.arbiter(limiter, admitted1 + admitted2, r);
        }
    }
}
