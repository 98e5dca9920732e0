package dev.cellrate.stress.table;

import dev.cellrate.TestFronts;
import dev.cellrate.Limit;
import dev.cellrate.KeyedShaper;
import dev.cellrate.Reservation;
import dev.cellrate.ShaperMode;
import dev.cellrate.table.SlotTable;
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
 * A decision on key A races A's cancel and the reclamation of A's slot by key B, in a keyed
 * shaper of one slot. T = 100, burst 3, grace 10, every request at t = 0. A was charged long ago (TAT -900,
 * idle) and then reserved 1 at t = 0 (TAT 100, the value a decider of A reads); the cancel restores -900,
 * which looks idle, and B's reservation at t = 0 would start the slot at -9 and charge it to exactly 100.
 * The decider, if it read 100 before the cancel, must never CAS that 100 on B's cell: the cancel records 100
 * as the slot's high-water mark and the slot stays A's until 100 itself is idle.
 * Result: (decider's code, cancel refunded 1/0, B's code, owner of the slot * 10,000 + its TAT).
 * <p>
 * Run: {@code java -jar jcstress-tests/target/jcstress.jar -t KeyedCancelReclaimStress -m sanity}. Before the
 * fix (no high-water mark) {@code -2, 1, 0, 20100} was a third of the outcomes in {@code -m sanity}: B's cell
 * passed through 100, so the decider's stale CAS ({@code 100, 1, 0, 20200}, too narrow a window to show up
 * here; {@code RefundAbaTest} plays it step by step) would have landed.
 */
@JCStressTest
@Description("a refund that lowers a word never lets a paused decider charge the key that reclaims the slot")
@Outcome(id = "100, 0, -2, 10200", expect = ACCEPTABLE,
    desc = "decider first (delay 100); the cancel finds a later reservation and refunds nothing; B table-full")
@Outcome(id = "0, 1, -2, 10100", expect = ACCEPTABLE,
    desc = "cancel first; the decider charges A's refunded cell; B finds A active, table-full")
@Outcome(id = "-2, 1, 0, 20100", expect = FORBIDDEN,
    desc = "B reclaimed the slot while 100, the value A's word was lowered from, was not idle: B's TAT is 100, " +
        "a value a paused decider of A may still hold")
@Outcome(id = "100, 1, 0, 20200", expect = FORBIDDEN,
    desc = "ABA: the decider's stale CAS of 100 landed on B's cell (B charged twice, A charged nothing)")
@Outcome(expect = FORBIDDEN, desc = "lost update, duplicate cell or wrong decision")
@State
public class KeyedCancelReclaimStress
{
    static final long T_NS = 100;
    static final long KEY_A = 1;
    static final long KEY_B = 2;

    final KeyedShaper shaper = TestFronts.keyedShaper(Limit.ofGcra(T_NS, 2 * T_NS), ShaperMode.delay(),
        new SlotTable(1, 1, 1, 10, 0x5eed), SystemNanoClock.INSTANCE);
    final Reservation reservation = new Reservation();
    long codeDecider;
    long refunded;
    long codeB;

    public KeyedCancelReclaimStress()
    {
        if (0 != shaper.reserve(KEY_A, 1, -1_000, null) || 0 != shaper.reserve(KEY_A, 1, 0, reservation))
        {
            throw new IllegalStateException("setup");
        }
    }

    @Actor
    public void decideOnA()
    {
        codeDecider = shaper.reserve(KEY_A, 1, 0, null);
    }

    @Actor
    public void cancelAThenInsertB()
    {
        refunded = shaper.cancel(KEY_A, reservation, 0) ? 1 : 0;
        codeB = shaper.reserve(KEY_B, 1, 0, null);
    }

    @Arbiter
    public void arbiter(final JJJJ_Result r)
    {
        final SlotTable table = TestFronts.tableOf(shaper);
        final long tatA = table.tatNs(table.keyWord(KEY_A));
        final long tatB = table.tatNs(table.keyWord(KEY_B));
        r.r1 = codeDecider;
        r.r2 = refunded;
        r.r3 = codeB;
        r.r4 = SlotTable.STALE != tatA ? 10_000 + tatA : (SlotTable.STALE != tatB ? 20_000 + tatB : -1);
    }
}
