package dev.cellrate.stress.shaper;

import dev.cellrate.TestFronts;
import dev.cellrate.Result;
import dev.cellrate.Limit;
import dev.cellrate.KeyedShaper;
import dev.cellrate.Shaper;
import dev.cellrate.ShaperMode;
import dev.cellrate.table.SlotTable;
import org.agrona.concurrent.SystemNanoClock;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;
import org.openjdk.jcstress.infra.results.JJ_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * Concurrent reservations on one {@link Shaper} cell, one property per nested test. Two actors (this machine
 * has 2 CPUs), each reserving twice at the same instant.
 * <p>
 * Run: {@code java -jar jcstress-tests/target/jcstress.jar -t ShaperSlotStress -m sanity}
 */
public final class ShaperSlotStress
{
    static final long T_NS = 100;
    static final long NOW_NS = 1_000_000;

    private ShaperSlotStress()
    {
    }

    /** @return the slot index (slot - now) / T as a bit, or 0 if rejected. */
    static long slotBit(final Shaper shaper)
    {
        final long code = shaper.reserve(1, NOW_NS);
        return Result.isReserved(code) ? 1L << (code / T_NS) : 0;
    }

    /**
     * Four concurrent reservations with room for ten: the four slots are exactly now, now + T, now + 2T and
     * now + 3T (bits 0..3), each taken once.
     */
    @JCStressTest
    @Description("4 concurrent reservations get 4 distinct slots now + kT, k = 0..3")
    @Outcome(id = "4, 15", expect = ACCEPTABLE, desc = "four admissions on four distinct consecutive slots")
    @Outcome(expect = FORBIDDEN, desc = "two reservations shared a release slot, or one was lost or rejected")
    @State
    public static class DistinctSlots
    {
        final Shaper shaper = new Shaper(Limit.ofGcra(T_NS, 10 * T_NS), ShaperMode.delay());
        long slot11;
        long slot12;
        long slot21;
        long slot22;

        @Actor
        public void a1()
        {
            slot11 = slotBit(shaper);
            slot12 = slotBit(shaper);
        }

        @Actor
        public void a2()
        {
            slot21 = slotBit(shaper);
            slot22 = slotBit(shaper);
        }

        @Arbiter
        public void arbiter(final JJ_Result r)
        {
            distinct(r, slot11, slot12, slot21, slot22);
        }
    }

    /**
     * The same on one key of a {@link KeyedShaper} (the table's slot API instead of a plain cell).
     */
    @JCStressTest
    @Description("4 concurrent reservations on one key get 4 distinct slots now + kT, k = 0..3")
    @Outcome(id = "4, 15", expect = ACCEPTABLE, desc = "four admissions on four distinct consecutive slots")
    @Outcome(expect = FORBIDDEN, desc = "two reservations of one key shared a release slot, or one was lost")
    @State
    public static class KeyedDistinctSlots
    {
        final KeyedShaper shaper = TestFronts.keyedShaper(Limit.ofGcra(T_NS, 10 * T_NS), ShaperMode.delay(),
            new SlotTable(1, 4, 4, 1_000_000_000L, 42), SystemNanoClock.INSTANCE);
        long slot11;
        long slot12;
        long slot21;
        long slot22;

        long slotBit()
        {
            final long code = shaper.reserve(7L, 1, NOW_NS);
            return Result.isReserved(code) ? 1L << (code / T_NS) : 0;
        }

        @Actor
        public void a1()
        {
            slot11 = slotBit();
            slot12 = slotBit();
        }

        @Actor
        public void a2()
        {
            slot21 = slotBit();
            slot22 = slotBit();
        }

        @Arbiter
        public void arbiter(final JJ_Result r)
        {
            distinct(r, slot11, slot12, slot21, slot22);
        }
    }

    static void distinct(final JJ_Result r, final long... slots)
    {
        long union = 0;
        long admitted = 0;
        for (final long slot : slots)
        {
            admitted += 0 != slot ? 1 : 0;
            union = (union & slot) != 0 ? Long.MIN_VALUE : union | slot;
        }
        r.r1 = admitted;
        r.r2 = union;
    }

    /**
     * Four concurrent reservations on a full cell of burst 3 (&tau; = 2T): exactly three are admitted.
     */
    @JCStressTest
    @Description("2 actors x 2 reservations at one instant on burst 3 admit exactly 3")
    @Outcome(id = {"2, 1", "1, 2"}, expect = ACCEPTABLE, desc = "exactly three of four admitted")
    @Outcome(id = "2, 2", expect = FORBIDDEN, desc = "over-admission: four reservations with burst 3")
    @Outcome(expect = FORBIDDEN, desc = "under-admission: a conforming reservation was rejected or lost")
    @State
    public static class BurstBound
    {
        final Shaper shaper = new Shaper(Limit.ofGcra(T_NS, 2 * T_NS), ShaperMode.delay());

        @Actor
        public void a1(final II_Result r)
        {
            r.r1 = admitted(shaper) + admitted(shaper);
        }

        @Actor
        public void a2(final II_Result r)
        {
            r.r2 = admitted(shaper) + admitted(shaper);
        }

        static int admitted(final Shaper shaper)
        {
            return Result.isReserved(shaper.reserve(1, NOW_NS)) ? 1 : 0;
        }
    }
}
