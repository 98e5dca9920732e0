package dev.cellrate.stress.window;

import dev.cellrate.Result;
import dev.cellrate.window.FixedWindowLimiter;
import dev.cellrate.window.SlidingCounterLimiter;
import dev.cellrate.window.SlidingLogLimiter;
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
 * A debit racing an admission on each window front: limit 3, one window; actor 1 debits 1 permit, actor 2 asks
 * for 2, both at the same instant. In either order the request fits (1 + 2 = 3) and the window ends up holding
 * all three: (admitted, charged) = (1, 3). A lost debit shows as (1, 2), a lost admission as (1, 1).
 * <p>
 * Run: {@code java -jar jcstress-tests/target/jcstress.jar -t WindowDebitStress}
 */
public class WindowDebitStress
{
    static final long LIMIT = 3;
    static final long WINDOW_NS = 1_000;
    static final long NOW_NS = 500;

    @JCStressTest
    @Description("fixed window: a debit and an admission racing are both charged, once")
    @Outcome(id = "1, 3", expect = ACCEPTABLE, desc = "both charged, in either order")
    @Outcome(expect = FORBIDDEN, desc = "a lost debit or a lost admission")
    @State
    public static class FixedWindowDebit
    {
        final FixedWindowLimiter limiter = new FixedWindowLimiter(LIMIT, WINDOW_NS);

        @Actor
        public void debit()
        {
            limiter.debit(1, NOW_NS);
        }

        @Actor
        public void acquire(final JJ_Result r)
        {
            r.r1 = Result.isAdmitted(limiter.tryAcquire(2, NOW_NS)) ? 1 : 0;
        }

        @Arbiter
        public void arbiter(final JJ_Result r)
        {
            r.r2 = limiter.count();
        }
    }

    @JCStressTest
    @Description("sliding counter: a debit and an admission racing are both charged, once")
    @Outcome(id = "1, 3", expect = ACCEPTABLE, desc = "both charged, in either order")
    @Outcome(expect = FORBIDDEN, desc = "a lost debit or a lost admission")
    @State
    public static class SlidingCounterDebit
    {
        final SlidingCounterLimiter limiter = new SlidingCounterLimiter(LIMIT, WINDOW_NS);

        @Actor
        public void debit()
        {
            limiter.debit(1, NOW_NS);
        }

        @Actor
        public void acquire(final JJ_Result r)
        {
            r.r1 = Result.isAdmitted(limiter.tryAcquire(2, NOW_NS)) ? 1 : 0;
        }

        @Arbiter
        public void arbiter(final JJ_Result r)
        {
            r.r2 = limiter.currentCount();
        }
    }

    @JCStressTest
    @Description("sliding log: a debit and an admission racing are both logged, once")
    @Outcome(id = "1, 3", expect = ACCEPTABLE, desc = "both logged, in either order")
    @Outcome(expect = FORBIDDEN, desc = "a lost debit or a lost admission")
    @State
    public static class SlidingLogDebit
    {
        final SlidingLogLimiter limiter = new SlidingLogLimiter(LIMIT, WINDOW_NS);

        @Actor
        public void debit()
        {
            limiter.debit(1, NOW_NS);
        }

        @Actor
        public void acquire(final JJ_Result r)
        {
            r.r1 = Result.isAdmitted(limiter.tryAcquire(2, NOW_NS)) ? 1 : 0;
        }

        @Arbiter
        public void arbiter(final JJ_Result r)
        {
            r.r2 = limiter.admissions();
        }
    }
}
