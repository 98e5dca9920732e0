package dev.cellrate.stress.table;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * Concurrent admits on one key of the table (first touch included: the key is inserted by the race) admit
 * exactly the burst: 2 actors x 2 tries at one instant, burst 3, admit 3.
 * <p>
 * Run: {@code java -jar jcstress-tests/target/jcstress.jar -t KeyedBurstStress}
 */
@JCStressTest
@Description("2 actors x 2 tries on one new key of burst 3 admit exactly 3")
@Outcome(id = {"2, 1", "1, 2"}, expect = ACCEPTABLE, desc = "exactly three of four admitted")
@Outcome(id = "2, 2", expect = FORBIDDEN, desc = "over-admission: four admitted with burst 3")
@Outcome(expect = FORBIDDEN, desc = "under-admission: a conforming request was rejected or lost")
@State
public class KeyedBurstStress
{
    static final long NOW_NS = 1_000_000;
    static final String KEY = "client-203.0.113.7";

    final KeyedRateLimiter limiter = KeyedRateLimiter.builder(Limit.ofGcra(100, 200))
        .shardCount(2).slotCount(16).idleGraceNs(10).seed(0x5eed).build();

    @Actor
    public void a1(final II_Result r)
    {
        r.r1 = admitted() + admitted();
    }

    @Actor
    public void a2(final II_Result r)
    {
        r.r2 = admitted() + admitted();
    }

    private int admitted()
    {
        return Result.isAdmitted(limiter.tryAcquire(KEY, 1, NOW_NS)) ? 1 : 0;
    }
}
