package dev.cellrate.stress.concurrency;

import dev.cellrate.concurrency.ConcurrencyLimiter;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;
import org.openjdk.jcstress.infra.results.II_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * Concurrent contracts of {@link ConcurrencyLimiter}, one property per nested test.
 * <p>
 * Run: {@code java -jar jcstress-tests/target/jcstress.jar -t ConcurrencyReleaseStress}
 */
public final class ConcurrencyReleaseStress
{
    private ConcurrencyReleaseStress()
    {
    }

    /**
     * N = 1 and two actors acquire at once: exactly one gets a ticket.
     */
    @JCStressTest
    @Description("two racing acquires on N = 1: exactly one admitted")
    @Outcome(id = {"1, 0", "0, 1"}, expect = ACCEPTABLE, desc = "exactly one in flight")
    @Outcome(id = "1, 1", expect = FORBIDDEN, desc = "in flight exceeded N: two admitted with N = 1")
    @Outcome(expect = FORBIDDEN, desc = "both rejected while nothing was in flight")
    @State
    public static class InFlightNeverExceedsLimit
    {
        final ConcurrencyLimiter limiter = new ConcurrencyLimiter(1);

        @Actor
        public void a1(final II_Result r)
        {
            r.r1 = limiter.tryAcquire() >= 0 ? 1 : 0;
        }

        @Actor
        public void a2(final II_Result r)
        {
            r.r2 = limiter.tryAcquire() >= 0 ? 1 : 0;
        }
    }

    /**
     * N = 1. Actor 1 acquires, releases, then releases the same ticket again (a bug in the caller); actor 2
     * tries to acquire up to 100 times and keeps its ticket. Actor 1 waits (bounded) for the slot to be taken
     * before its second release, so the stale ticket often meets the same slot re-acquired by actor 2. The double release must fail and must not free actor 2's permit,
     * even though actor 2 may hold the very same slot by then.
     * <p>
     * Result: (actor 1 admitted, actor 1's successful releases, actor 2 admitted, final in-flight count).
     */
    @JCStressTest
    @Description("a double release never succeeds, never frees another holder's permit, never goes negative")
    @Outcome(id = "1, 1, 1, 1", expect = ACCEPTABLE, desc = "actor 2 acquired after actor 1's release")
    @Outcome(id = "1, 1, 0, 0", expect = ACCEPTABLE, desc = "actor 2 came while actor 1 held the permit")
    @Outcome(id = "0, 0, 1, 1", expect = ACCEPTABLE, desc = "actor 2 came first; actor 1's releases were no-ops")
    @Outcome(id = {"1, 2, 1, 0", "1, 2, 0, -1", "1, 2, 1, 1"}, expect = FORBIDDEN, desc = "double release succeeded")
    @Outcome(expect = FORBIDDEN, desc = "count disagrees with the holders (lost or extra capacity)")
    @State
    public static class NoDoubleRelease
    {
        final ConcurrencyLimiter limiter = new ConcurrencyLimiter(1);
        int acquired1;
        int releases1;
        int acquired2;

        @Actor
        public void holderThatReleasesTwice()
        {
            final long ticket = limiter.tryAcquire();
            acquired1 = ticket >= 0 ? 1 : 0;
            releases1 = limiter.release(ticket) ? 1 : 0;
            for (int i = 0; i < 1_000 && 0 == limiter.inFlight(); i++)
            {
                Thread.onSpinWait(); // bounded: give actor 2 a chance to take the slot before the bad release
            }
            releases1 += limiter.release(ticket) ? 1 : 0;
        }

        @Actor
        public void holderThatKeeps()
        {
            for (int i = 0; i < 100 && 0 == acquired2; i++)
            {
                acquired2 = limiter.tryAcquire() >= 0 ? 1 : 0;
            }
        }

        @Arbiter
        public void arbiter(final IIII_Result r)
        {
            r.r1 = acquired1;
            r.r2 = releases1;
            r.r3 = acquired2;
            r.r4 = (int)limiter.inFlight();
        }
    }
}
