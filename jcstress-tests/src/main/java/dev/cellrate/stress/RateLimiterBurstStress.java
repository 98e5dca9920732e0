package dev.cellrate.stress;

import dev.cellrate.TestFronts;
import dev.cellrate.Limit;
import dev.cellrate.RateLimiter;
import dev.cellrate.Result;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;
import org.openjdk.jcstress.infra.results.JJ_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * Concurrent contracts of the single-cell {@link RateLimiter}, one property per nested test.
 * <p>
 * Run: {@code java -jar jcstress-tests/target/jcstress.jar -t RateLimiterBurstStress}
 */
public final class RateLimiterBurstStress
{
    static final long T_NS = 100;
    static final long NOW_NS = 1_000_000;

    private RateLimiterBurstStress()
    {
    }

    /**
     * Two actors (this machine has 2 CPUs, so jcstress runs at most 2 actors) each try twice on a full cell
     * of burst 3 at the same instant: exactly min(4, 3) = 3 are admitted in total.
     */
    @JCStressTest
    @Description("2 actors x 2 tries at one instant on a full cell of burst 3 admit exactly 3")
    @Outcome(id = {"2, 1", "1, 2"}, expect = ACCEPTABLE, desc = "exactly three of four admitted")
    @Outcome(id = "2, 2", expect = FORBIDDEN, desc = "over-admission: four admitted with burst 3")
    @Outcome(expect = FORBIDDEN, desc = "under-admission: a conforming request was rejected or lost")
    @State
    public static class ExactBurst
    {
        final RateLimiter limiter = new RateLimiter(Limit.ofGcra(T_NS, 2 * T_NS));

        @Actor
        public void a1(final II_Result r)
        {
            r.r1 = admitted(limiter) + admitted(limiter);
        }

        @Actor
        public void a2(final II_Result r)
        {
            r.r2 = admitted(limiter) + admitted(limiter);
        }
    }

    static int admitted(final RateLimiter limiter)
    {
        return Result.isAdmitted(limiter.tryAcquire(1, NOW_NS)) ? 1 : 0;
    }

    /**
     * Two admissions from idle advance the TAT by exactly 2T over the arrival time: no lost update.
     */
    @JCStressTest
    @Description("two concurrent admissions advance TAT by exactly 2T")
    @Outcome(id = "2, 200", expect = ACCEPTABLE, desc = "both admitted, TAT = now + 2T")
    @Outcome(expect = FORBIDDEN, desc = "lost update or spurious rejection")
    @State
    public static class NoLostUpdate
    {
        final RateLimiter limiter = new RateLimiter(Limit.ofGcra(T_NS, 10 * T_NS));
        long admitted1;
        long admitted2;

        @Actor
        public void a1()
        {
            admitted1 = Result.isAdmitted(limiter.tryAcquire(1, NOW_NS)) ? 1 : 0;
        }

        @Actor
        public void a2()
        {
            admitted2 = Result.isAdmitted(limiter.tryAcquire(1, NOW_NS)) ? 1 : 0;
        }

        @Arbiter
        public void arbiter(final JJ_Result r)
        {
            r.r1 = admitted1 + admitted2;
            r.r2 = TestFronts.tatNs(limiter) - NOW_NS;
        }
    }
}
