package dev.cellrate.stress.reconfigure;

import dev.cellrate.reconfigure.TestReconfigurables;
import dev.cellrate.Limit;

import dev.cellrate.reconfigure.ReconfigurableRateLimiter;
import dev.cellrate.reconfigure.ReconfigurableShaper;
import dev.cellrate.ShaperMode;
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
 * A limit change racing a decision: the decision is wholly under the old limit or wholly under the new one
 * (never the old T with the new tolerance or the reverse), and the cell's state is kept (TAT unchanged by the
 * change). Old limit GCRA(T = 100, tau = 200), cell already at TAT = now + 200; new limit GCRA(T = 1000,
 * tau = 1000). Under the old limit one permit is admitted and TAT becomes now + 300; under the new one it is
 * admitted and TAT becomes now + 1200. A mix (new T with the old ceiling) would reject; (old T with the new
 * ceiling) would give the old outcome, so it cannot be told apart and is not forbidden.
 * <p>
 * Run: {@code java -jar jcstress-tests/target/jcstress.jar -t ReconfigureRaceStress}
 */
public final class ReconfigureRaceStress
{
    static final long NOW_NS = 1_000_000;
    static final Limit OLD = Limit.ofGcra(100, 200);
    static final Limit NEW = Limit.ofGcra(1_000, 1_000);

    private ReconfigureRaceStress()
    {
    }

    /** Raising the tolerance while a decision runs on a nearly full cell. */
    @JCStressTest
    @Description("a limit change racing a decision: old or new limit, whole; state kept")
    @Outcome(id = "0, 300", expect = ACCEPTABLE, desc = "decided under the old limit (change came after)")
    @Outcome(id = "0, 1200", expect = ACCEPTABLE, desc = "decided under the new limit (change came first)")
    @Outcome(expect = FORBIDDEN, desc = "a mixed limit, a lost update, or state reset by the change")
    @State
    public static class Limiter
    {
        final ReconfigurableRateLimiter limiter = new ReconfigurableRateLimiter(OLD);

        public Limiter()
        {
            limiter.tryAcquire(2, NOW_NS);
        }

        @Actor
        public void change()
        {
            limiter.setLimit(NEW);
        }

        @Actor
        public void decide(final JJ_Result r)
        {
            r.r1 = limiter.tryAcquire(1, NOW_NS);
        }

        @Arbiter
        public void arbiter(final JJ_Result r)
        {
            r.r2 = TestReconfigurables.tatNs(limiter) - NOW_NS;
        }
    }

    /** The same race on the shaper: the delay is the kept backlog (200), the TAT old or new. */
    @JCStressTest
    @Description("a limit change racing a reservation: backlog kept, old or new limit, whole")
    @Outcome(id = "200, 300", expect = ACCEPTABLE, desc = "reserved under the old limit")
    @Outcome(id = "200, 1200", expect = ACCEPTABLE, desc = "reserved under the new limit")
    @Outcome(expect = FORBIDDEN, desc = "a mixed limit, a lost update, or the backlog reset by the change")
    @State
    public static class Shaper
    {
        final ReconfigurableShaper shaper = new ReconfigurableShaper(OLD, ShaperMode.delay());

        public Shaper()
        {
            shaper.reserve(2, NOW_NS);
        }

        @Actor
        public void change()
        {
            shaper.setLimit(NEW);
        }

        @Actor
        public void reserve(final JJ_Result r)
        {
            r.r1 = shaper.reserve(1, NOW_NS);
        }

        @Arbiter
        public void arbiter(final JJ_Result r)
        {
            r.r2 = TestReconfigurables.tatNs(shaper) - NOW_NS;
        }
    }
}
