package dev.cellrate.stress.tcm;

import dev.cellrate.tcm.Colour;
import dev.cellrate.tcm.TrTcm;
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
 * The two buckets of {@link TrTcm} move together under races: PBS 3, CBS 2 bytes, both full; two actors each
 * mark two 1-byte packets at one instant (no refill). In any serial order the four colours are GREEN, GREEN,
 * YELLOW, RED, and both buckets end empty.
 * <p>
 * Result: (greens, yellows, reds, Tp * 10 + Tc at the end).
 * <p>
 * Run: {@code java -jar jcstress-tests/target/jcstress.jar -t TrTcmBucketsStress}
 */
@JCStressTest
@Description("racing trTCM markings: exactly 2 green, 1 yellow, 1 red; both buckets debited consistently")
@Outcome(id = "2, 1, 1, 0", expect = ACCEPTABLE, desc = "the RFC 2698 colours of any serial order")
@Outcome(expect = FORBIDDEN, desc = "a token spent twice or lost: colours or buckets disagree with the RFC")
@State
public class TrTcmBucketsStress
{
    final TrTcm marker = new TrTcm(1, 3, 1, 2);
    final int[] colours1 = new int[3];
    final int[] colours2 = new int[3];

    @Actor
    public void a1()
    {
        colours1[marker.mark(1, 0)]++;
        colours1[marker.mark(1, 0)]++;
    }

    @Actor
    public void a2()
    {
        colours2[marker.mark(1, 0)]++;
        colours2[marker.mark(1, 0)]++;
    }

    @Arbiter
    public void arbiter(final IIII_Result r)
    {
        r.r1 = colours1[Colour.GREEN] + colours2[Colour.GREEN];
        r.r2 = colours1[Colour.YELLOW] + colours2[Colour.YELLOW];
        r.r3 = colours1[Colour.RED] + colours2[Colour.RED];
        r.r4 = (int)(marker.peakTokens() * 10 + marker.committedTokens());
    }
}
