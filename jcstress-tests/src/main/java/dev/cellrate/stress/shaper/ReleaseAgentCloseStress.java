package dev.cellrate.stress.shaper;

import dev.cellrate.Result;
import dev.cellrate.release.ReleaseAgent;
import dev.cellrate.release.ReleaseHandler;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * Submit racing close on a {@link ReleaseAgent}: every item whose submit returned {@link Result#ADMITTED}
 * reaches the handler exactly once (released or handed back), and no refused item ever does. One producer
 * actor submits three items (due at once); the other actor is the agent thread: one duty cycle, then close.
 * <p>
 * Run: {@code java -jar jcstress-tests/target/jcstress.jar -t ReleaseAgentCloseStress -m sanity}
 */
@JCStressTest
@Description("items submitted concurrently with close are delivered exactly once, refused ones never")
@Outcome(id = {"0, 0, 1", "1, 1, 1", "2, 2, 1", "3, 3, 1"}, expect = ACCEPTABLE,
    desc = "every accepted item delivered exactly once (released or handed back)")
@Outcome(expect = FORBIDDEN, desc = "an accepted item was lost or delivered twice, or a refused item was delivered")
@State
public class ReleaseAgentCloseStress implements ReleaseHandler<ReleaseAgentCloseStress.Item>
{
    static final int ITEMS = 3;

    /** A caller's object: its index and how often the handler saw it (agent thread only). */
    static final class Item
    {
        final int index;
        int deliveries;

        Item(final int index)
        {
            this.index = index;
        }
    }

    final Item[] items = {new Item(0), new Item(1), new Item(2)};
    final long[] codes = new long[ITEMS];
    final ReleaseAgent<Item> agent = new ReleaseAgent<>(4, this, () -> 0);
    int events;

    public void onRelease(final Item item, final long dueNs, final long nowNs)
    {
        item.deliveries++;
        events++;
    }

    public void onHandBack(final Item item, final long dueNs)
    {
        item.deliveries++;
        events++;
    }

    @Actor
    public void producer()
    {
        for (int i = 0; i < ITEMS; i++)
        {
            codes[i] = agent.submit(items[i], 0);
        }
    }

    @Actor
    public void agentThread()
    {
        agent.doWork();
        agent.onClose();
    }

    @Arbiter
    public void arbiter(final III_Result r)
    {
        int accepted = 0;
        boolean exact = true;
        for (int i = 0; i < ITEMS; i++)
        {
            final boolean admitted = Result.ADMITTED == codes[i];
            accepted += admitted ? 1 : 0;
            exact &= (admitted ? 1 : 0) == items[i].deliveries && (admitted || Result.CLOSED == codes[i]);
        }
        r.r1 = accepted;
        r.r2 = events;
        r.r3 = exact ? 1 : 0;
    }
}
