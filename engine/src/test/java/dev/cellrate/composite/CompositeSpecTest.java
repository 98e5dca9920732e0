package dev.cellrate.composite;

import dev.cellrate.TestFronts;
import dev.cellrate.KeyedCompositeRateLimiter;
import dev.cellrate.layout.CellArray;
import dev.cellrate.Decision;
import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.RateLimiter;
import dev.cellrate.Result;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a user of a composite sees beyond "admit iff every leg conforms": the decision and peek/debit
 * forms, the initial fill, the accessors, the 64-leg bound, and what happens when another thread's charge
 * lands on a leg in the middle of a decision (driven deterministically by a leg step that plays the other thread's write after the leg reads its
 * word, {@link Race}).
 */
class CompositeSpecTest
{
    private static final long T0 = 10_000;
    /** T = 100 ns, burst 3. */
    private static final Limit FAST = Limit.ofGcra(100, 200);
    /** T = 1000 ns, burst 5. */
    private static final Limit SLOW = Limit.ofGcra(1_000, 4_000);

    /**
     * Leg steps that count the reads of the legs' words and, after the next read by one chosen leg, play
     * another caller's write (once) before that leg decides and CASes.
     */
    private static final class Race
    {
        private int attempts;
        private int leg = -1;
        private Runnable write;

        Race afterNextRead(final int leg, final Runnable write)
        {
            this.leg = leg;
            this.write = write;
            return this;
        }

        int attempts()
        {
            return attempts;
        }

        CompositeRateLimiter composite(final CellArray cells, final Limit... limits)
        {
            return new CompositeRateLimiter(cells, limits, new int[] {0, 1}, SystemNanoClock.INSTANCE,
                (composite, i) -> new CompositeRateLimiter.Step(composite, i)
                {
                    protected boolean stale(final int[] cellsOrOffsets)
                    {
                        attempts++;
                        final Runnable write = Race.this.write;
                        if (i == leg && null != write)
                        {
                            Race.this.write = null;
                            write.run();
                        }
                        return false;
                    }
                });
        }
    }

    private static RateLimiter legView(final CompositeRateLimiter composite, final int cell)
    {
        return TestFronts.rateLimiter(composite.limit(cell), composite.cells(), cell, SystemNanoClock.INSTANCE);
    }

    @Test
    void sixtyFourLegsAreAllowedAndEachOneCounts()
    {
        final Limit[] limits = new Limit[64];
        Arrays.fill(limits, Limit.ofGcra(1_000, 1_000)); // burst 2
        limits[63] = Limit.ofGcra(1_000, 0);              // the last leg: burst 1
        final CompositeRateLimiter composite = CompositeRateLimiter.of(limits);
        assertEquals(64, composite.legs());
        assertEquals(Result.ADMITTED, composite.tryAcquire(1, T0));
        assertEquals(1_000, composite.tryAcquire(1, T0), "the 64th leg is full");
    }

    @Test
    void aOneNanosecondLegChargesOnePermit()
    {
        final CompositeRateLimiter composite = CompositeRateLimiter.of(Limit.ofGcra(1, 0));
        assertEquals(Result.ADMITTED, composite.tryAcquire(1, T0));
        assertEquals(1, composite.tryAcquire(1, T0), "1 ns per permit, burst 1: retry after 1 ns");
        assertEquals(Result.ADMITTED, composite.tryAcquire(1, T0 + 1));
    }

    @Test
    void perCallCellsAcceptEveryCellOfTheArrayAndNothingElse()
    {
        final CompositeRateLimiter perCall =
            new CompositeRateLimiter(CellArray.allocate(2), new Limit[] {Limit.ofGcra(1_000, 0)}, null);
        assertEquals(Result.ADMITTED, perCall.tryAcquire(new int[] {0}, 1, T0));
        assertEquals(1_000, perCall.tryAcquire(new int[] {0}, 1, T0));
        assertEquals(Result.ADMITTED, perCall.tryAcquire(new int[] {1}, 1, T0));
        assertEquals(Result.NEVER, perCall.tryAcquire(new int[] {-1}, 1, T0));
        assertEquals(Result.NEVER, perCall.tryAcquire(new int[] {2}, 1, T0));
        assertThrows(IllegalStateException.class, () -> perCall.peek(1, T0), "no fixed cells to peek at");
        assertThrows(IllegalStateException.class, () -> perCall.debit(1, T0), "no fixed cells to debit");
    }

    @Test
    void theDecisionDescribesTheTightestLeg()
    {
        final CompositeRateLimiter composite = CompositeRateLimiter.of(SLOW, FAST);
        final Decision decision = new Decision();
        assertEquals(Result.ADMITTED, composite.tryAcquire(1, T0, decision));
        assertEquals(Result.ADMITTED, decision.code());
        assertEquals(2, decision.remaining(), "FAST has 2 of 3 left, SLOW 4 of 5");
        assertEquals(1_000, decision.resetAfterNs(), "SLOW is full again last, after 1000 ns");
        assertEquals(3, decision.limit(), "the smaller burst");

        composite.tryAcquire(2, T0, decision);
        assertEquals(0, decision.remaining());
        final long code = composite.tryAcquire(1, T0, decision);
        assertEquals(100, code, "FAST has room again after 100 ns");
        assertEquals(code, decision.code());
        assertEquals(code, decision.retryAfterNs());
        assertEquals(3_000, decision.resetAfterNs());
    }

    @Test
    void peekAnswersLikeTryAcquireAndChargesNothing()
    {
        final CompositeRateLimiter composite = CompositeRateLimiter.of(FAST, Limit.ofGcra(1_000, 0));
        for (int i = 0; i < 3; i++)
        {
            assertEquals(Result.ADMITTED, composite.peek(1, T0));
        }
        assertEquals(Result.ADMITTED, composite.tryAcquire(1, T0));
        assertEquals(1_000, composite.peek(1, T0), "the second leg (burst 1) is full for 1000 ns");
        assertEquals(Result.NEVER, composite.peek(4, T0), "more than FAST's burst");
        assertEquals(Result.ADMITTED, composite.peek(1, T0 + 1_000));
        assertEquals(Result.ADMITTED, composite.tryAcquire(1, T0 + 1_000), "peeking charged nothing");
    }

    @Test
    void debitChargesEveryLegAndAnswersTheLongestWait()
    {
        for (final boolean slowFirst : new boolean[] {true, false})
        {
            final Limit single = Limit.ofGcra(1_000, 0);
            final CompositeRateLimiter composite =
                slowFirst ? CompositeRateLimiter.of(single, FAST) : CompositeRateLimiter.of(FAST, single);
            final int slow = slowFirst ? 0 : 1;
            final int fast = 1 - slow;
            assertEquals(2_000, composite.debit(2, T0), "the burst-1 leg owes 2000 ns, whichever leg it is");
            assertEquals(T0 + 2_000, TestFronts.tatNs(legView(composite, slow)));
            assertEquals(T0 + 200, TestFronts.tatNs(legView(composite, fast)));
            assertEquals(Result.NEVER, composite.debit(0, T0), "a cost below 1");
            assertEquals(T0 + 2_000, TestFronts.tatNs(legView(composite, slow)), "NEVER charges nothing");
            assertEquals(T0 + 200, TestFronts.tatNs(legView(composite, fast)));
        }
        final CompositeRateLimiter roomy = CompositeRateLimiter.of(FAST, SLOW);
        assertEquals(Result.ADMITTED, roomy.debit(1, T0), "one permit still fits on every leg");
    }

    @Test
    void anInitialFillStartsEveryLegWithThatManyPermits()
    {
        final NanoClock clock = () -> T0;
        final CompositeRateLimiter composite = CompositeRateLimiter.of(clock, 1, FAST, SLOW);
        assertSame(clock, composite.clock());
        assertEquals(2, composite.legs());
        assertSame(FAST, composite.limit(0));
        assertSame(SLOW, composite.limit(1));
        assertEquals(Result.ADMITTED, composite.tryAcquire(1, T0));
        assertTrue(composite.tryAcquire(1, T0) > 0, "only one permit at the start");
    }

    @Test
    void aLegThatLosesItsCasIsChargedBehindTheWinner()
    {
        final CellArray cells = CellArray.allocate(2);
        final AtomicBuffer buffer = cells.buffer();
        final int leg0 = CellArray.tatOffset(0);
        buffer.putLongRelease(leg0, T0);
        buffer.putLongRelease(CellArray.tatOffset(1), T0);
        final Race race = new Race().afterNextRead(0, () -> buffer.putLongRelease(leg0, T0 + 100)); // an admission
        final CompositeRateLimiter composite = race.composite(cells, FAST, SLOW);
        assertEquals(Result.ADMITTED, composite.tryAcquire(1, T0));
        assertEquals(3, race.attempts(), "leg 0 lost, leg 0 retried, leg 1");
        assertEquals(T0 + 200, TestFronts.tatNs(legView(composite, 0)), "charged on top of the winner");
        assertEquals(T0 + 1_000, TestFronts.tatNs(legView(composite, 1)));
    }

    @Test
    void aLegWhoseLastRoomIsTakenMidDecisionRejectsAndChargesNoOtherLeg()
    {
        final CellArray cells = CellArray.allocate(2);
        final AtomicBuffer buffer = cells.buffer();
        final int leg0 = CellArray.tatOffset(0);
        buffer.putLongRelease(leg0, T0 + 100);
        buffer.putLongRelease(CellArray.tatOffset(1), T0);
        final Race race = new Race().afterNextRead(0, () -> buffer.putLongRelease(leg0, T0 + 300)); // last room
        final CompositeRateLimiter composite = race.composite(cells, FAST, SLOW);
        assertEquals(100, composite.tryAcquire(1, T0));
        assertEquals(2, race.attempts(), "leg 0 lost its CAS and rejected on the winner's TAT; leg 1 never read");
        assertEquals(T0 + 300, TestFronts.tatNs(legView(composite, 0)));
        assertEquals(T0, TestFronts.tatNs(legView(composite, 1)), "leg 1 untouched");
        assertEquals(0, composite.leakedRefunds());
    }

    @Test
    void aRefundUnderAnotherCallersChargeIsAbandonedAndCounted()
    {
        final CellArray cells = CellArray.allocate(2);
        final AtomicBuffer buffer = cells.buffer();
        final int leg0 = CellArray.tatOffset(0);
        final int leg1 = CellArray.tatOffset(1);
        buffer.putLongRelease(leg0, T0);
        buffer.putLongRelease(leg1, T0 + 1_000); // leg 1 full: it will reject
        // between our charge of leg 0 and its refund, another caller is admitted on leg 0 on top of ours
        final Race race = new Race().afterNextRead(1, () -> buffer.putLongRelease(leg0, T0 + 200));
        final CompositeRateLimiter composite = race.composite(cells, FAST, Limit.ofGcra(1_000, 0));
        assertEquals(1_000, composite.tryAcquire(1, T0));
        assertEquals(1, composite.leakedRefunds(), "the refund would have erased the other admission");
        assertEquals(T0 + 200, TestFronts.tatNs(legView(composite, 0)), "the other caller's charge is kept whole");
        // without interference a rejection refunds exactly and leaks nothing more
        assertEquals(1_000, composite.tryAcquire(1, T0));
        assertEquals(1, composite.leakedRefunds());
        assertEquals(T0 + 200, TestFronts.tatNs(legView(composite, 0)));
    }

    @Test
    void keyedCompositesAllowSixtyFourLegsAndDescribeThemselves()
    {
        final KeyedRateLimiter[] legs = new KeyedRateLimiter[64];
        for (int i = 0; i < legs.length; i++)
        {
            legs[i] = KeyedRateLimiter.builder(Limit.ofGcra(1_000, 0)).slotCount(64).shardCount(1)
                .clock(() -> T0).build();
        }
        final KeyedCompositeRateLimiter composite = new KeyedCompositeRateLimiter(legs);
        assertEquals(64, composite.legs());
        assertSame(legs[5], composite.leg(5));
        final long[] keys = new long[64];
        assertEquals(Result.ADMITTED, composite.tryAcquire(keys, 1), "by leg 0's clock");
        assertEquals(1_000, composite.tryAcquire(keys, 1), "T0 again: every leg is full");
        assertEquals(1_000, composite.tryAcquire(keys, 1, T0));
        assertEquals(0, composite.leakedRefunds());
        final KeyedCompositeRateLimiter single = new KeyedCompositeRateLimiter(legs[0]);
        assertEquals(1, single.legs());
        assertEquals("legs.length must be in [1, 64] but was null", assertThrows(IllegalArgumentException.class,
            () -> new KeyedCompositeRateLimiter((KeyedRateLimiter[])null)).getMessage());
        assertEquals("legs.length must be in [1, 64] but was 65", assertThrows(IllegalArgumentException.class,
            () -> new KeyedCompositeRateLimiter(new KeyedRateLimiter[65])).getMessage());
    }
}
