package dev.cellrate.stress.shaper;

import dev.cellrate.TestFronts;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import dev.cellrate.Reservation;
import dev.cellrate.ReservingLimiter;
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
 * A {@link ReservingLimiter} cancel racing another caller's reservation on the same cell (T = 10 ns, burst 1,
 * maximum wait 100 ns, both at t = 100). Actor 1 reserves and cancels at once; actor 2 reserves. Whatever the
 * order, the cell must end holding exactly the reservations that were not refunded: TAT = 100 + 10 * (granted -
 * refunded), and a refund may give back only actor 1's own permit.
 * <p>
 * Run: {@code java -jar jcstress-tests/target/jcstress.jar -t ReservingCancelStress -m sanity}
 */
@JCStressTest
@Description("cancel of one reservation racing another reservation refunds only its own permit")
@Outcome(id = "110, 1, 0", expect = ACCEPTABLE,
    desc = "actor 1 was the latest reservation when it cancelled (before actor 2, or behind it): refunded; " +
        "actor 2 went at once")
@Outcome(id = "120, 0, 10", expect = ACCEPTABLE,
    desc = "actor 2 reserved between actor 1's reserve and cancel: no refund (a later reservation holds the cell)")
@Outcome(expect = FORBIDDEN,
    desc = "a cancel refunded someone else's permit, a refund was lost, or a charge vanished")
@State
public class ReservingCancelStress
{
    final ReservingLimiter limiter = new ReservingLimiter(Limit.ofGcra(10, 0), SystemNanoClock.INSTANCE);
    final Reservation reservation = new Reservation();
    long refunded;
    long wait2;

    public ReservingCancelStress()
    {
        // Charge once so the cell holds TAT = 100 at t = 100 (a full bucket with a known value).
        limiter.reserve(1, 90, 0);
    }

    @Actor
    public void reserveThenCancel()
    {
        if (Result.isReserved(limiter.reserve(1, 100, 100, reservation)))
        {
            refunded = limiter.cancel(reservation, 100) ? 1 : 0;
        }
    }

    @Actor
    public void reserve()
    {
        wait2 = limiter.reserve(1, 100, 100);
    }

    @Arbiter
    public void arbiter(final JJJ_Result r)
    {
        r.r1 = TestFronts.tatNs(limiter);
        r.r2 = refunded;
        r.r3 = wait2;
    }
}
