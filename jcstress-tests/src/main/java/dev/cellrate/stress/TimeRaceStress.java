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
import org.openjdk.jcstress.infra.results.JJJ_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * A decider with a later time races one with an earlier time (two threads whose clocks were read a little
 * apart). GCRA(T = 100, &tau; = 100), TAT = 1000 before the race; actor 1 decides at 1000, actor 2 at 900.
 * Sequentially: late first admits it (TAT 1100) and the early one is then 200 ahead, rejected with retry-after
 * 100; early first admits both (TAT 1100 then 1200). The result must be one of those two orders.
 * Results are {@code (code of the late actor, code of the early actor, TAT)}.
 * <p>
 * Run: {@code java -jar jcstress-tests/target/jcstress.jar -t TimeRaceStress -m sanity}
 */
@JCStressTest
@Description("a later-time and an earlier-time decider race on one cell: the outcome is a sequential order")
@Outcome(id = "0, 100, 1100", expect = ACCEPTABLE, desc = "the later time went first; the earlier is rejected")
@Outcome(id = "0, 0, 1200", expect = ACCEPTABLE, desc = "the earlier time went first; both admitted")
@Outcome(id = "0, 0, 1100", expect = FORBIDDEN, desc = "lost update: both admitted but only one charged")
@Outcome(expect = FORBIDDEN, desc = "no sequential order explains the codes and the TAT")
@State
public class TimeRaceStress
{
    static final long T_NS = 100;
    static final long LATE_NS = 1_000;
    static final long EARLY_NS = 900;

    final RateLimiter limiter = new RateLimiter(Limit.ofGcra(T_NS, T_NS));

    public TimeRaceStress()
    {
        if (!Result.isAdmitted(limiter.tryAcquire(1, EARLY_NS)) || LATE_NS != TestFronts.tatNs(limiter))
        {
            throw new IllegalStateException("setup: TAT must be 1000 before the race");
        }
    }

    @Actor
    public void late(final JJJ_Result r)
    {
        r.r1 = limiter.tryAcquire(1, LATE_NS);
    }

    @Actor
    public void early(final JJJ_Result r)
    {
        r.r2 = limiter.tryAcquire(1, EARLY_NS);
    }

    @Arbiter
    public void arbiter(final JJJ_Result r)
    {
        r.r3 = TestFronts.tatNs(limiter);
    }
}
