package dev.cellrate.stress.composite;

import dev.cellrate.composite.TestComposites;
import dev.cellrate.layout.CellArray;
import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import dev.cellrate.composite.CompositeRateLimiter;
import dev.cellrate.KeyedCompositeRateLimiter;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJJ_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * Concurrent contracts of composite (all-or-nothing) limits and their refunds, one property per nested test.
 * Results: r1, r2 = admissions of actor 1 and 2; r3, r4 = lag of leg A and leg B at quiescence, in units of
 * T (0 = as if never charged).
 * <p>
 * Run: {@code java -jar jcstress-tests/target/jcstress.jar -t CompositeRefundStress}
 */
public final class CompositeRefundStress
{
    static final long T_NS = 100;
    static final long NOW_NS = 1_000_000;

    private CompositeRefundStress()
    {
    }

    static long admitted(final long code)
    {
        return Result.isAdmitted(code) ? 1 : 0;
    }

    static long lagInT(final long tatNs)
    {
        return tatNs > NOW_NS ? (tatNs - NOW_NS) / T_NS : 0;
    }

    /**
     * Two composites over the same two burst-1 legs, charged in opposite orders (A then B, B then A): at most
     * one request is admitted, and a rejected request's refund leaves its first leg exactly as if untouched.
     */
    @JCStressTest
    @Description("crossed composites over two burst-1 legs: never both admitted; refunds exact at quiescence")
    @Outcome(id = {"1, 0, 1, 1", "0, 1, 1, 1"}, expect = ACCEPTABLE,
        desc = "one admitted; each leg holds exactly its one charge")
    @Outcome(id = "0, 0, 0, 0", expect = ACCEPTABLE_INTERESTING,
        desc = "each took its first leg and lost the other; both refunds exact: transient under-admission only")
    @Outcome(expect = FORBIDDEN, desc = "over-admission (both admitted) or a lost, doubled or inexact refund")
    @State
    public static class CrossedOrder
    {
        final CellArray cells = CellArray.allocate(2);
        final Limit limit = Limit.ofGcra(T_NS, 0);
        final CompositeRateLimiter ab = TestComposites.composite(cells, new Limit[] {limit, limit}, new int[] {0, 1});
        final CompositeRateLimiter ba = TestComposites.composite(cells, new Limit[] {limit, limit}, new int[] {1, 0});
        long admitted1;
        long admitted2;

        @Actor
        public void actor1()
        {
            admitted1 = admitted(ab.tryAcquire(1, NOW_NS));
        }

        @Actor
        public void actor2()
        {
            admitted2 = admitted(ba.tryAcquire(1, NOW_NS));
        }

        @Arbiter
        public void arbiter(final JJJJ_Result r)
        {
            r.r1 = admitted1;
            r.r2 = admitted2;
            r.r3 = lagInT(cells.buffer().getLongVolatile(CellArray.tatOffset(0)));
            r.r4 = lagInT(cells.buffer().getLongVolatile(CellArray.tatOffset(1)));
        }
    }

    /**
     * Both actors charge leg A (burst 2, room for both) then leg B (burst 1): exactly one is admitted. The
     * loser's refund on A is exact when its charge is on top; when the winner's charge landed on top of it,
     * the refund is abandoned (one T leaks: under-admission, never over-admission).
     */
    @JCStressTest
    @Description("same-order composites, shared leg with room for both: one admitted; refund exact or abandoned")
    @Outcome(id = {"1, 0, 1, 1", "0, 1, 1, 1"}, expect = ACCEPTABLE,
        desc = "one admitted; the loser's charge on A was on top and was refunded exactly")
    @Outcome(id = {"1, 0, 2, 1", "0, 1, 2, 1"}, expect = ACCEPTABLE_INTERESTING,
        desc = "one admitted; the winner's charge was kept on top of the loser's, whose refund was abandoned")
    @Outcome(expect = FORBIDDEN, desc = "over-admission, none admitted, or a refund below the true state")
    @State
    public static class StackedRefund
    {
        final CellArray cells = CellArray.allocate(2);
        final Limit[] limits = {Limit.ofGcra(T_NS, T_NS), Limit.ofGcra(T_NS, 0)};
        final CompositeRateLimiter first = TestComposites.composite(cells, limits, new int[] {0, 1});
        final CompositeRateLimiter second = TestComposites.composite(cells, limits, new int[] {0, 1});
        long admitted1;
        long admitted2;

        @Actor
        public void actor1()
        {
            admitted1 = admitted(first.tryAcquire(1, NOW_NS));
        }

        @Actor
        public void actor2()
        {
            admitted2 = admitted(second.tryAcquire(1, NOW_NS));
        }

        @Arbiter
        public void arbiter(final JJJJ_Result r)
        {
            r.r1 = admitted1;
            r.r2 = admitted2;
            r.r3 = lagInT(cells.buffer().getLongVolatile(CellArray.tatOffset(0)));
            r.r4 = lagInT(cells.buffer().getLongVolatile(CellArray.tatOffset(1)));
        }
    }

    /**
     * Crossed composites across keys over two keyed tables (user key 1, tenant key 2), burst 1 each: as
     * {@link CrossedOrder}, through the table's slot API.
     */
    @JCStressTest
    @Description("crossed keyed composites (user, tenant) vs (tenant, user): never both; refunds exact")
    @Outcome(id = {"1, 0, 1, 1", "0, 1, 1, 1"}, expect = ACCEPTABLE,
        desc = "one admitted; each key holds exactly its one charge")
    @Outcome(id = "0, 0, 0, 0", expect = ACCEPTABLE_INTERESTING,
        desc = "both lost their second leg; both refunds exact: transient under-admission only")
    @Outcome(expect = FORBIDDEN, desc = "over-admission (both admitted) or a lost, doubled or inexact refund")
    @State
    public static class KeyedCrossedOrder
    {
        final Limit limit = Limit.ofGcra(T_NS, 0);
        final KeyedRateLimiter users = KeyedRateLimiter.builder(limit).slotCount(16).shardCount(1).build();
        final KeyedRateLimiter tenants = KeyedRateLimiter.builder(limit).slotCount(16).shardCount(1).build();
        final KeyedCompositeRateLimiter userFirst = new KeyedCompositeRateLimiter(users, tenants);
        final KeyedCompositeRateLimiter tenantFirst = new KeyedCompositeRateLimiter(tenants, users);
        final long[] userTenant = {1, 2};
        final long[] tenantUser = {2, 1};
        long admitted1;
        long admitted2;

        @Actor
        public void actor1()
        {
            admitted1 = admitted(userFirst.tryAcquire(userTenant, 1, NOW_NS));
        }

        @Actor
        public void actor2()
        {
            admitted2 = admitted(tenantFirst.tryAcquire(tenantUser, 1, NOW_NS));
        }

        @Arbiter
        public void arbiter(final JJJJ_Result r)
        {
            r.r1 = admitted1;
            r.r2 = admitted2;
            // one more permit on a key is admitted iff its cell is back to "as if untouched"
            r.r3 = Result.isAdmitted(users.tryAcquire(1, 1, NOW_NS)) ? 0 : 1;
            r.r4 = Result.isAdmitted(tenants.tryAcquire(2, 1, NOW_NS)) ? 0 : 1;
        }
    }
}
