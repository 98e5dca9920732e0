package dev.cellrate.stress;

import dev.cellrate.TestFronts;
import dev.cellrate.Limit;
import dev.cellrate.RateLimiter;
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
 * Two requests with different costs at one instant on a fresh cell never exceed the burst: each result is one
 * of the two sequential orders. Results are {@code (code of actor 1, code of actor 2, TAT - now)}, codes being
 * 0 (admitted) or the retry-after in ns. One property per nested test.
 * <p>
 * Run: {@code java -jar jcstress-tests/target/jcstress.jar -t MixedCostStress -m sanity}
 */
public final class MixedCostStress
{
    static final long T_NS = 100;
    static final long NOW_NS = 1_000_000;

    private MixedCostStress()
    {
    }

    /**
     * Burst 3, both ask 2: exactly one is admitted; the other waits T.
     */
    @JCStressTest
    @Description("burst 3, two concurrent requests of 2 permits: exactly one admitted")
    @Outcome(id = {"0, 100, 200", "100, 0, 200"}, expect = ACCEPTABLE, desc = "one admitted, the other waits T")
    @Outcome(id = "0, 0, 200", expect = FORBIDDEN, desc = "over-admission and lost update: 4 permits of burst 3")
    @Outcome(id = "0, 0, 400", expect = FORBIDDEN, desc = "over-admission: 4 permits of burst 3")
    @Outcome(expect = FORBIDDEN, desc = "both rejected, a wrong retry-after or a wrong TAT")
    @State
    public static class TwoAndTwoOfThree
    {
        final RateLimiter limiter = new RateLimiter(Limit.ofGcra(T_NS, 2 * T_NS));

        @Actor
        public void a1(final JJJ_Result r)
        {
            r.r1 = limiter.tryAcquire(2, NOW_NS);
        }

        @Actor
        public void a2(final JJJ_Result r)
        {
            r.r2 = limiter.tryAcquire(2, NOW_NS);
        }

        @Arbiter
        public void arbiter(final JJJ_Result r)
        {
            r.r3 = TestFronts.tatNs(limiter) - NOW_NS;
        }
    }

    /**
     * Burst 2, one asks 1 and the other 2: exactly one is admitted, whichever came first, and the loser's
     * retry-after is T either way.
     */
    @JCStressTest
    @Description("burst 2, concurrent requests of 1 and 2 permits: exactly one admitted")
    @Outcome(id = "0, 100, 100", expect = ACCEPTABLE, desc = "the 1-permit request won; the 2-permit one waits T")
    @Outcome(id = "100, 0, 200", expect = ACCEPTABLE, desc = "the 2-permit request won; the 1-permit one waits T")
    @Outcome(id = {"0, 0, 100", "0, 0, 200", "0, 0, 300"}, expect = FORBIDDEN,
        desc = "over-admission: 3 permits of burst 2")
    @Outcome(expect = FORBIDDEN, desc = "both rejected, a wrong retry-after or a wrong TAT")
    @State
    public static class OneAndTwoOfTwo
    {
        final RateLimiter limiter = new RateLimiter(Limit.ofGcra(T_NS, T_NS));

        @Actor
        public void a1(final JJJ_Result r)
        {
            r.r1 = limiter.tryAcquire(1, NOW_NS);
        }

        @Actor
        public void a2(final JJJ_Result r)
        {
            r.r2 = limiter.tryAcquire(2, NOW_NS);
        }

        @Arbiter
        public void arbiter(final JJJ_Result r)
        {
            r.r3 = TestFronts.tatNs(limiter) - NOW_NS;
        }
    }

    /**
     * Burst 3, one asks 1 and the other 2: both fit, and the TAT advances by exactly 3T.
     */
    @JCStressTest
    @Description("burst 3, concurrent requests of 1 and 2 permits: both admitted, TAT + 3T")
    @Outcome(id = "0, 0, 300", expect = ACCEPTABLE, desc = "both admitted, TAT = now + 3T")
    @Outcome(id = {"0, 0, 100", "0, 0, 200"}, expect = FORBIDDEN, desc = "lost update: a charge vanished")
    @Outcome(expect = FORBIDDEN, desc = "a conforming request was rejected, or a wrong TAT")
    @State
    public static class OneAndTwoOfThree
    {
        final RateLimiter limiter = new RateLimiter(Limit.ofGcra(T_NS, 2 * T_NS));

        @Actor
        public void a1(final JJJ_Result r)
        {
            r.r1 = limiter.tryAcquire(1, NOW_NS);
        }

        @Actor
        public void a2(final JJJ_Result r)
        {
            r.r2 = limiter.tryAcquire(2, NOW_NS);
        }

        @Arbiter
        public void arbiter(final JJJ_Result r)
        {
            r.r3 = TestFronts.tatNs(limiter) - NOW_NS;
        }
    }
}
