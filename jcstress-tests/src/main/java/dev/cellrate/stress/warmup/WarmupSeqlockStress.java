package dev.cellrate.stress.warmup;

import dev.cellrate.Result;
import dev.cellrate.warmup.WarmingUpRateLimiter;
import org.agrona.concurrent.SystemNanoClock;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJJ_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The warm-up cell's seqlock protocol (tryLock from the snapshot's stamp): two actors each try twice at one instant on a cold
 * limiter created at that instant (S = 100 ns, W = 1000 ns). Exactly one permit is admitted (it moves
 * nextFree 280 ns ahead), and the state is the one-admission state: nextFree = now + 280, stored = 900.
 * Results: r1, r2 = admissions of actor 1 and 2; r3 = nextFree - now; r4 = stored.
 * <p>
 * Run: {@code java -jar jcstress-tests/target/jcstress.jar -t WarmupSeqlockStress}
 */
@JCStressTest
@Description("two actors x two tries on a cold warm-up cell at one instant: exactly one admission, consistent state")
@Outcome(id = {"1, 0, 280, 900", "0, 1, 280, 900"}, expect = ACCEPTABLE,
    desc = "one admitted; nextFree and stored both from that one admission")
@Outcome(expect = FORBIDDEN, desc = "over-admission, a lost admission, or a torn two-word state")
@State
public class WarmupSeqlockStress
{
    static final long NOW_NS = 1_000_000;

    final WarmingUpRateLimiter limiter = new WarmingUpRateLimiter(100, 1000, NOW_NS, SystemNanoClock.INSTANCE);
    long admitted1;
    long admitted2;

    @Actor
    public void actor1()
    {
        admitted1 = admitted() + admitted();
    }

    @Actor
    public void actor2()
    {
        admitted2 = admitted() + admitted();
    }

    long admitted()
    {
        return Result.isAdmitted(limiter.tryAcquire(1, NOW_NS)) ? 1 : 0;
    }

    @Arbiter
    public void arbiter(final JJJJ_Result r)
    {
        r.r1 = admitted1;
        r.r2 = admitted2;
        r.r3 = limiter.nextFreeNs() - NOW_NS;
        r.r4 = limiter.storedNs();
    }
}
