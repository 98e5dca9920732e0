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
import org.openjdk.jcstress.infra.results.JJJ_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * Guava's {@code setRate} leaving the unlimited rate, racing decisions: a cold warm-up cell (S = 100 ns,
 * W = 1000 ns, store full) switched to unlimited; actor 1 sets S = 100 ns again at {@code NOW} (Guava: the store
 * is emptied, nextFree = max(nextFree, now)), actor 2 tries twice at {@code NOW}. Each decision must be wholly
 * under the unlimited rate (admitted, nothing charged) or wholly under the new one on the rewritten state (warm:
 * the first admission waits S = 100). A decision that saw the new S with the old, cold store would wait
 * S + 180 = 280 ns.
 * Results: r1 = admissions of actor 2; r2 = nextFree - now; r3 = stored.
 * <p>
 * Run: {@code java -jar jcstress-tests/target/jcstress.jar -t WarmupSetRateStress}
 */
@JCStressTest
@Description("setRate leaving unlimited vs two decisions: every decision wholly under the old or the new rate")
@Outcome(id = "1, 100, 0", expect = ACCEPTABLE, desc = "the change first: one admitted, warm (S = 100)")
@Outcome(id = "2, 100, 0", expect = ACCEPTABLE, desc = "between: one admitted unlimited, one under the new rate")
@Outcome(id = "2, 0, 0", expect = ACCEPTABLE, desc = "the change last: both admitted unlimited, nothing charged")
@Outcome(expect = FORBIDDEN, desc = "a decision mixed the new rate with the old (cold) store, or lost the rewrite")
@State
public class WarmupSetRateStress
{
    static final long NOW_NS = 1_000_000;

    final WarmingUpRateLimiter limiter = unlimited();
    long admitted;

    static WarmingUpRateLimiter unlimited()
    {
        final WarmingUpRateLimiter limiter = new WarmingUpRateLimiter(100, 1000, NOW_NS, SystemNanoClock.INSTANCE);
        limiter.setUnlimited();
        return limiter;
    }

    @Actor
    public void change()
    {
        limiter.setStableIntervalNs(100, NOW_NS);
    }

    @Actor
    public void decide()
    {
        admitted = (Result.isAdmitted(limiter.tryAcquire(1, NOW_NS)) ? 1 : 0) +
            (Result.isAdmitted(limiter.tryAcquire(1, NOW_NS)) ? 1 : 0);
    }

    @Arbiter
    public void arbiter(final JJJ_Result r)
    {
        r.r1 = admitted;
        r.r2 = limiter.nextFreeNs() - NOW_NS;
        r.r3 = limiter.storedNs();
    }
}
