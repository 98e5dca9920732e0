package dev.cellrate.stress.window;

import dev.cellrate.Decision;
import dev.cellrate.Result;
import dev.cellrate.window.FixedWindowLimiter;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * Window roll-over of {@link FixedWindowLimiter} under a race: limit 2, window 100 ns. Actor 1 asks twice at
 * t = 99 (the last ns of window 0) through the {@link Decision} path, which tells which window charged it
 * (reset-after 1 ns: window 0; 101 ns: window 1, after the roll). Actor 2 asks twice at t = 100 (the first
 * ns of window 1) through the plain path; its first request always rolls the window.
 * <p>
 * Result: (actor 1 admitted in window 0, actor 1 admitted in window 1, actor 2 admitted, final count of
 * window 1). The six serial orders give exactly the five ACCEPTABLE outcomes. A lost update (an increment
 * overwriting a roll, two rolls, two increments from one count) breaks {@code a1InW1 + a2 == final <= 2}.
 * <p>
 * Run: {@code java -jar jcstress-tests/target/jcstress.jar -t FixedWindowRollOverStress}
 */
@JCStressTest
@Description("two actors around a window boundary: no window over its limit, no lost roll or increment")
@Outcome(id = "2, 0, 2, 2", expect = ACCEPTABLE, desc = "actor 1 filled window 0, then actor 2 filled window 1")
@Outcome(id = "1, 1, 1, 2", expect = ACCEPTABLE, desc = "alternating: actor 1's second request went to window 1")
@Outcome(id = "1, 0, 2, 2", expect = ACCEPTABLE, desc = "actor 1 once in window 0, actor 2 filled window 1 first")
@Outcome(id = "0, 1, 1, 2", expect = ACCEPTABLE, desc = "roll first; window 1 shared one-one")
@Outcome(id = "0, 0, 2, 2", expect = ACCEPTABLE, desc = "actor 2 filled window 1 before actor 1 arrived")
@Outcome(expect = FORBIDDEN, desc = "lost update or over-admission: window counts disagree with the admissions")
@State
public class FixedWindowRollOverStress
{
    static final long LIMIT = 2;
    static final long WINDOW_NS = 100;

    final FixedWindowLimiter limiter = new FixedWindowLimiter(LIMIT, WINDOW_NS);
    final Decision decision = new Decision();
    int a1InWindow0;
    int a1InWindow1;
    int a2Admitted;

    @Actor
    public void endOfWindowZero()
    {
        for (int i = 0; i < 2; i++)
        {
            if (Result.isAdmitted(limiter.tryAcquire(1, 99, decision)))
            {
                if (1 == decision.resetAfterNs())
                {
                    a1InWindow0++;
                }
                else if (101 == decision.resetAfterNs())
                {
                    a1InWindow1++;
                }
                else
                {
                    a1InWindow0 += 100;
                }
            }
        }
    }

    @Actor
    public void startOfWindowOne()
    {
        a2Admitted = (Result.isAdmitted(limiter.tryAcquire(1, 100)) ? 1 : 0) +
            (Result.isAdmitted(limiter.tryAcquire(1, 100)) ? 1 : 0);
    }

    @Arbiter
    public void arbiter(final IIII_Result r)
    {
        r.r1 = a1InWindow0;
        r.r2 = a1InWindow1;
        r.r3 = a2Admitted;
        r.r4 = limiter.windowIndex() == 1 ? (int)limiter.count() : -1;
    }
}
