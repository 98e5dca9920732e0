package dev.cellrate.stress.shaper;

import dev.cellrate.TestFronts;
import dev.cellrate.Limit;
import dev.cellrate.Reservation;
import dev.cellrate.Shaper;
import dev.cellrate.ShaperMode;
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
 * Cancel racing a reservation on one {@link Shaper} cell: a refund succeeds only while no later reservation
 * is live, so it never pulls the TAT under a slot another thread already holds. Actor 1 reserves A and
 * cancels it; actor 2 reserves B. Result: (A's delay, A refunded 1/0, B's delay, final TAT - now).
 * <p>
 * Run: {@code java -jar jcstress-tests/target/jcstress.jar -t ShaperCancelStress -m sanity}
 */
@JCStressTest
@Description("a cancel never refunds a reservation that a concurrent later reservation depends on")
@Outcome(id = "0, 1, 0, 100", expect = ACCEPTABLE, desc = "A, cancel A, then B takes A's old slot")
@Outcome(id = "0, 0, 100, 200", expect = ACCEPTABLE, desc = "A, B after A, so cancelling A refunds nothing")
@Outcome(id = "100, 1, 0, 100", expect = ACCEPTABLE, desc = "B, then A after B; A is latest and is refunded")
@Outcome(id = "0, 1, 100, 100", expect = FORBIDDEN, desc = "A refunded under B: the next request would share B's slot")
@Outcome(expect = FORBIDDEN, desc = "lost update, double slot or wrong refund")
@State
public class ShaperCancelStress
{
    static final long T_NS = 100;
    static final long NOW_NS = 1_000_000;

    final Shaper shaper = new Shaper(Limit.ofGcra(T_NS, 10 * T_NS), ShaperMode.delay());
    final Reservation reservation = new Reservation();

    @Actor
    public void reserveAndCancel(final JJJJ_Result r)
    {
        r.r1 = shaper.reserve(1, NOW_NS, reservation);
        r.r2 = shaper.cancel(reservation) ? 1 : 0;
    }

    @Actor
    public void reserve(final JJJJ_Result r)
    {
        r.r3 = shaper.reserve(1, NOW_NS);
    }

    @Arbiter
    public void arbiter(final JJJJ_Result r)
    {
        r.r4 = TestFronts.tatNs(shaper) - NOW_NS;
    }
}
