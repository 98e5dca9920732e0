package dev.cellrate.stress.reconfigure;

import dev.cellrate.TestFronts;
import dev.cellrate.ClassedKeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.TableFullPolicy;
import dev.cellrate.ReconfigurableKeyedRateLimiter;
import dev.cellrate.table.SlotTable;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJ_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * A keyed table's limit change racing a decision on a key: the decision is wholly under the old limit or
 * wholly under the new one, and the key's cell keeps its TAT across the change. Old limit GCRA(T = 100,
 * tau = 200), the key already at TAT = now + 200; new limit GCRA(T = 1000, tau = 1000). Old: admitted, TAT now +
 * 300; new: admitted, TAT now + 1200. The new T with the old ceiling would reject (retry-after 900, TAT kept
 * at now + 200); the old T with the new ceiling cannot be told from the old limit. Two fronts: the whole
 * table's limit ({@link ReconfigurableKeyedRateLimiter}) and one class's limit ({@link ClassedKeyedRateLimiter}).
 * <p>
 * Run: {@code java -jar jcstress-tests/target/jcstress.jar -t KeyedReconfigureRaceStress -m sanity}
 */
public final class KeyedReconfigureRaceStress
{
    static final long NOW_NS = 1_000_000;
    static final long KEY = 42;
    static final Limit OLD = Limit.ofGcra(100, 200);
    static final Limit NEW = Limit.ofGcra(1_000, 1_000);

    private KeyedReconfigureRaceStress()
    {
    }

    /** The limit of every key of the table. */
    @JCStressTest
    @Description("a keyed table's limit change racing a decision on a key: old or new limit, whole; TAT kept")
    @Outcome(id = "0, 300", expect = ACCEPTABLE, desc = "decided under the old limit (change came after)")
    @Outcome(id = "0, 1200", expect = ACCEPTABLE, desc = "decided under the new limit (change came first)")
    @Outcome(id = "900, 200", expect = FORBIDDEN, desc = "mixed limit: the new T under the old ceiling")
    @Outcome(expect = FORBIDDEN, desc = "a mixed limit, a lost update, or the key's state reset by the change")
    @State
    public static class Table
    {
        final ReconfigurableKeyedRateLimiter limiter = TestFronts.reconfigurableKeyed(
            OLD, new SlotTable(1, 4, 4, 1L << 40, 0x5eedL, () -> NOW_NS), TableFullPolicy.REJECT);

        public Table()
        {
            limiter.tryAcquire(KEY, 2, NOW_NS);
        }

        @Actor
        public void change()
        {
            limiter.setLimit(NEW);
        }

        @Actor
        public void decide(final JJ_Result r)
        {
            r.r1 = limiter.tryAcquire(KEY, 1, NOW_NS);
        }

        @Arbiter
        public void arbiter(final JJ_Result r)
        {
            r.r2 = TestFronts.tatNs(limiter, KEY) - NOW_NS;
        }
    }

    /** One class's limit in a classed table (the key is of class 1; class 0 is never changed). */
    @JCStressTest
    @Description("a class's limit change racing a decision on a key of that class: old or new limit, whole; TAT kept")
    @Outcome(id = "0, 300", expect = ACCEPTABLE, desc = "decided under the old limit (change came after)")
    @Outcome(id = "0, 1200", expect = ACCEPTABLE, desc = "decided under the new limit (change came first)")
    @Outcome(id = "900, 200", expect = FORBIDDEN, desc = "mixed limit: the new T under the old ceiling")
    @Outcome(expect = FORBIDDEN, desc = "a mixed limit, another class's limit, a lost update or a reset")
    @State
    public static class Classed
    {
        final ClassedKeyedRateLimiter limiter = TestFronts.classed(new Limit[] {Limit.ofGcra(7, 0), OLD},
            key -> 1, new SlotTable(4, 4, 4, 1L << 40, 0x5eedL, () -> NOW_NS), TableFullPolicy.REJECT);

        public Classed()
        {
            limiter.tryAcquire(KEY, 2, NOW_NS);
        }

        @Actor
        public void change()
        {
            limiter.setLimit(1, NEW);
        }

        @Actor
        public void decide(final JJ_Result r)
        {
            r.r1 = limiter.tryAcquire(KEY, 1, NOW_NS);
        }

        @Arbiter
        public void arbiter(final JJ_Result r)
        {
            r.r2 = TestFronts.tatNs(limiter, KEY) - NOW_NS;
        }
    }
}
