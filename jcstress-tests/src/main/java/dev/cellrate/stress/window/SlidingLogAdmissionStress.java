package dev.cellrate.stress.window;

import dev.cellrate.Result;
import dev.cellrate.window.SlidingLogLimiter;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * Concurrent admission of {@link SlidingLogLimiter}: never more than L in any window under races, one property
 * per nested test.
 * <p>
 * Run: {@code java -jar jcstress-tests/target/jcstress.jar -t SlidingLogAdmissionStress}
 */
public final class SlidingLogAdmissionStress
{
    private SlidingLogAdmissionStress()
    {
    }

    /**
     * Two actors each try twice at one instant on a log of limit 3: exactly 3 of 4 are admitted.
     */
    @JCStressTest
    @Description("2 actors x 2 tries at one instant on a log of limit 3 admit exactly 3")
    @Outcome(id = {"2, 1", "1, 2"}, expect = ACCEPTABLE, desc = "exactly three of four admitted")
    @Outcome(id = "2, 2", expect = FORBIDDEN, desc = "over-admission: four in one window with limit 3")
    @Outcome(expect = FORBIDDEN, desc = "under-admission: a conforming request was rejected or lost")
    @State
    public static class ExactLimit
    {
        final SlidingLogLimiter limiter = new SlidingLogLimiter(3, 1_000);

        @Actor
        public void a1(final II_Result r)
        {
            r.r1 = admitted(limiter, 10) + admitted(limiter, 10);
        }

        @Actor
        public void a2(final II_Result r)
        {
            r.r2 = admitted(limiter, 10) + admitted(limiter, 10);
        }
    }

    /**
     * Limit 2, window 100 ns; actor 1 asks at t = 0 then 60, actor 2 at t = 50 then (backwards) 10. Every
     * request is within 100 ns of every other (also after monotonising), so every serial order admits exactly
     * 2. The arbiter checks the log itself: sequence = admissions, and the two recorded times are in order.
     */
    @JCStressTest
    @Description("racing and backwards admissions within one window: exactly 2 admitted, log consistent")
    @Outcome(id = "2, 1", expect = ACCEPTABLE, desc = "exactly the limit admitted; sequence and ring consistent")
    @Outcome(id = {"3, 1", "4, 1", "3, 0", "4, 0"}, expect = FORBIDDEN, desc = "over-admission within one window")
    @Outcome(expect = FORBIDDEN, desc = "log corrupted (slot lost or out of order) or a conforming request refused")
    @State
    public static class LogInvariant
    {
        final SlidingLogLimiter limiter = new SlidingLogLimiter(2, 100);
        int admitted1;
        int admitted2;

        @Actor
        public void a1()
        {
            admitted1 = admitted(limiter, 0) + admitted(limiter, 60);
        }

        @Actor
        public void a2()
        {
            admitted2 = admitted(limiter, 50) + admitted(limiter, 10);
        }

        @Arbiter
        public void arbiter(final II_Result r)
        {
            final long admissions = limiter.admissions();
            r.r1 = admitted1 + admitted2;
            final boolean ok = admissions == r.r1 && admissions == 2 &&
                limiter.admissionTimeNs(1) >= limiter.admissionTimeNs(0) && limiter.admissionTimeNs(1) <= 60;
            r.r2 = ok ? 1 : 0;
        }
    }

    static int admitted(final SlidingLogLimiter limiter, final long nowNs)
    {
        return Result.isAdmitted(limiter.tryAcquire(1, nowNs)) ? 1 : 0;
    }
}
