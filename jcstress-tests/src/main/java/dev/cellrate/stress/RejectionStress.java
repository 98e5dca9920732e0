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
 * Concurrent rejections on an exhausted cell are read-only: both are rejected with the exact retry-after and the
 * TAT is unchanged afterwards.
 * <p>
 * Run: {@code java -jar jcstress-tests/target/jcstress.jar -t RejectionStress -m sanity}
 */
@JCStressTest
@Description("two concurrent rejections on an exhausted cell of burst 2 leave the TAT untouched")
@Outcome(id = "100, 100, 200", expect = ACCEPTABLE, desc = "both rejected, retry-after T, TAT still now + 2T")
@Outcome(id = {"0, 100, 300", "100, 0, 300", "0, 0, 300", "0, 0, 400"}, expect = FORBIDDEN,
    desc = "over-admission: a request was admitted on an exhausted cell")
@Outcome(expect = FORBIDDEN, desc = "a rejection changed the TAT, or a wrong retry-after")
@State
public class RejectionStress
{
    static final long T_NS = 100;
    static final long NOW_NS = 1_000_000;

    final RateLimiter limiter = new RateLimiter(Limit.ofGcra(T_NS, T_NS));

    public RejectionStress()
    {
        if (!Result.isAdmitted(limiter.tryAcquire(2, NOW_NS)))
        {
            throw new IllegalStateException("setup: the fresh cell must admit its burst");
        }
    }

    @Actor
    public void a1(final JJJ_Result r)
    {
        r.r1 = limiter.tryAcquire(1, NOW_NS);
    }

    @Actor
    public void a2(final JJJ_Result r)
    {
        r.r2 = limiter.tryAcquire(1, NOW_NS);
    }

    @Arbiter
    public void arbiter(final JJJ_Result r)
    {
        r.r3 = TestFronts.tatNs(limiter) - NOW_NS;
    }
}
