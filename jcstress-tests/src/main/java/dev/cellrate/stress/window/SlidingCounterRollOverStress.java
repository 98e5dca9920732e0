package dev.cellrate.stress.window;

import dev.cellrate.Result;
import dev.cellrate.window.SlidingCounterLimiter;
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
 * Roll-over of {@link SlidingCounterLimiter} under a race: limit 2, window 100 ns. Actor 1 asks twice at
 * t = 99 (end of window 0), actor 2 twice at t = 100 (start of window 1, where window 0 weighs fully). Every
 * serial order admits exactly 2 (e.g. 2 in window 0 then none; or 1 and 1; or 0 and 2 after the roll, actor 1
 * being charged to window 1), and the final word's {@code prev + curr} equals the admissions.
 * <p>
 * Result: (total admitted, prev + curr of the final word).
 * <p>
 * Run: {@code java -jar jcstress-tests/target/jcstress.jar -t SlidingCounterRollOverStress}
 */
@JCStressTest
@Description("two actors around a counter window boundary: exactly 2 admitted, counts equal admissions")
@Outcome(id = "2, 2", expect = ACCEPTABLE, desc = "the limit admitted; roll and increments all recorded")
@Outcome(expect = FORBIDDEN, desc = "over-admission, lost increment or double roll")
@State
public class SlidingCounterRollOverStress
{
    final SlidingCounterLimiter limiter = new SlidingCounterLimiter(2, 100);
    int admitted1;
    int admitted2;

    @Actor
    public void endOfWindowZero()
    {
        admitted1 = admitted(99) + admitted(99);
    }

    @Actor
    public void startOfWindowOne()
    {
        admitted2 = admitted(100) + admitted(100);
    }

    @Arbiter
    public void arbiter(final II_Result r)
    {
        r.r1 = admitted1 + admitted2;
        r.r2 = (int)(limiter.previousCount() + limiter.currentCount());
    }

    private int admitted(final long nowNs)
    {
        return Result.isAdmitted(limiter.tryAcquire(1, nowNs)) ? 1 : 0;
    }
}
