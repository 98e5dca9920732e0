package dev.cellrate;

import dev.cellrate.layout.CellArray;
import dev.cellrate.ShaperMode;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the top-level fronts answer where the broad suites do not look: every key form of the keyed limiter on
 * its rejecting path, keyed peeks and debits (a debit that is split at the debt ceiling, a debit on a full
 * table), batch counts out of range, the single-threaded and pay-later fronts' small costs, {@link Limit} and
 * {@link Decision} as values, and the names of the codes at the edges of their ranges.
 */
class FrontSpecTest
{
    private static final long T_NS = 100;
    private static final Limit BURST_1 = Limit.ofGcra(T_NS, 0);
    private static final Limit BURST_3 = Limit.ofGcra(T_NS, 2 * T_NS);

    private static KeyedRateLimiterBuilder keyed(final Limit limit)
    {
        return KeyedRateLimiter.builder(limit).slotCount(16).shardCount(1).probeBound(16).idleGraceNs(1_000)
            .seed(3).clock(() -> Long.MAX_VALUE);
    }

    @Test
    void everyKeyFormIsRejectedOnceItsBudgetIsSpentAndFillsTheDecision()
    {
        final KeyedRateLimiter limiter = keyed(BURST_1).build();
        final byte[] bytes = "user-7".getBytes(StandardCharsets.UTF_8);
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[32]);
        buffer.putBytes(4, bytes);
        final Decision decision = new Decision();

        assertEquals(Result.ADMITTED, limiter.tryAcquire("user-7", 1, 0));
        assertEquals(T_NS, limiter.tryAcquire("user-7", 1, 0), "CharSequence");
        assertEquals(T_NS, limiter.tryAcquire(bytes, 0, bytes.length, 1, 0), "byte[]: the same key");
        assertEquals(T_NS, limiter.tryAcquire(bytes, 0, bytes.length, 1, 0, decision), "byte[] with a decision");
        assertEquals(T_NS, decision.retryAfterNs());
        assertEquals(T_NS, limiter.tryAcquire(buffer, 4, bytes.length, 1, 0), "DirectBuffer: the same key");
        assertEquals(T_NS, limiter.tryAcquire(buffer, 4, bytes.length, 1, 0, decision));
        assertEquals(T_NS, limiter.tryAcquire("user-7", 1, 0, decision));
        assertEquals(0, decision.remaining());
        assertFalse(decision.admitted());

        assertEquals(Result.ADMITTED, limiter.tryAcquire(9L, 1, 0, decision));
        assertTrue(decision.admitted());
        final long word = limiter.table().keyWord(9L);
        assertEquals(T_NS, limiter.tryAcquireKeyWord(word, 1, 0), "a key word is the key it was computed from");
        assertEquals(limiter.table().tatNs(word), limiter.tatNsOf(word));
        assertEquals(T_NS, limiter.tatNsOf(word));
    }

    @Test
    void keyedPeeksAnswerWithoutCharging()
    {
        final KeyedRateLimiter limiter = keyed(BURST_1).build();
        final byte[] bytes = {1, 2, 3};
        assertEquals(Result.ADMITTED, limiter.tryAcquire(5L, 1, 0));
        assertEquals(Result.ADMITTED, limiter.tryAcquire(bytes, 0, 3, 1, 0));
        for (int i = 0; i < 2; i++)
        {
            assertEquals(T_NS, limiter.peek(5L, 1, 0));
            assertEquals(T_NS, limiter.peek(bytes, 0, 3, 1, 0));
            assertEquals(Result.ADMITTED, limiter.peek("absent", 1, 0), "an absent key is a full bucket");
        }
        assertEquals(Result.NEVER, limiter.peek(5L, 0, 0));
        assertEquals(Result.ADMITTED, limiter.peek(5L, 1, T_NS));
        // T = 1 ns: one permit is an increment of exactly 1.
        final KeyedRateLimiter fine = keyed(Limit.ofGcra(1, 0)).build();
        assertEquals(Result.ADMITTED, fine.peek(5L, 1, 0));
        assertEquals(1, fine.debit(5L, 1, 0), "a 1-ns debit is charged: the next permit conforms 1 ns later");
        assertEquals(1, fine.peek(5L, 1, 0));
    }

    @Test
    void aKeyedDebitBeyondTheDebtCeilingIsChargedUpToItExactly()
    {
        // T = 100, tau = 200: ceiling 300, debt ceiling 600.
        final KeyedRateLimiter limiter = keyed(BURST_3).build();
        assertEquals(400, limiter.debit(1L, 6, 0), "600 owed: a permit conforms once the lag is back to 200");
        assertEquals(600, limiter.table().tatNs(limiter.table().keyWord(1L)));
        // At t = 1 the lag is 599: of a 100-ns debit only 1 ns still fits under the 600 ceiling.
        assertEquals(601 - 1 + 100 - 300, limiter.debit(1L, 1, 1));
        assertEquals(601, limiter.table().tatNs(limiter.table().keyWord(1L)), "charged to the ceiling, to the ns");
        final byte[] key = {9};
        assertEquals(Result.ADMITTED, limiter.debit(key, 0, 1, 1, 0));
        assertEquals(T_NS, limiter.table().tatNs(limiter.table().keyWord(key, 0, 1)));
        assertEquals(Result.NEVER, limiter.debit(key, 0, 1, 0, 0));
    }

    @Test
    void aShardCountThatIsNotAPowerOfTwoIsRefusedNamingTheFieldAndItsRange()
    {
        for (final int shards : new int[]{3, 6, 12})
        {
            assertEquals("shardCount must be a power of two in [1, 12] but was " + shards,
                assertThrows(IllegalArgumentException.class,
                    () -> KeyedRateLimiter.builder(BURST_3).slotCount(12).shardCount(shards).build()).getMessage());
        }
        assertEquals(4, KeyedRateLimiter.builder(BURST_3).slotCount(12).shardCount(4).build().table().shardCount());
    }

    @Test
    void cellsOverABufferNotAlignedForAtomicAccessAreRefused()
    {
        final int cell = dev.cellrate.layout.CellLayout.CELL_LENGTH;
        final java.nio.ByteBuffer direct = java.nio.ByteBuffer.allocateDirect(3 * cell);
        assertThrows(IllegalStateException.class, () -> CellArray.over(new UnsafeBuffer(direct, 4, 2 * cell), 1));
        assertEquals(2, CellArray.over(new UnsafeBuffer(direct, 0, 2 * cell), 2).cellCount());
    }

    @Test
    void aKeyedDebitOfNoPermitIsNeverAndClaimsNoSlotChargesNothing()
    {
        final KeyedRateLimiter limiter = keyed(BURST_3).build();
        final byte[] key = {4};
        for (final long permits : new long[]{0, -1, Long.MIN_VALUE})
        {
            assertEquals(Result.NEVER, limiter.debit(7L, permits, 0));
            assertEquals(Result.NEVER, limiter.debit("seven", permits, 0));
            assertEquals(Result.NEVER, limiter.debit(key, 0, 1, permits, 0));
        }
        assertEquals(0, limiter.liveKeys(), "an absent key stays absent");
        assertEquals(Result.ADMITTED, limiter.debit(7L, 1, 0));
        assertEquals(Result.NEVER, limiter.debit(7L, 0, 0));
        assertEquals(T_NS, limiter.table().tatNs(limiter.table().keyWord(7L)), "a present key is not charged");
        assertEquals(1, limiter.liveKeys());
    }

    @Test
    void aKeyedDebitOnAFullTableAnswersTheTableFullCode()
    {
        final KeyedRateLimiter limiter = KeyedRateLimiter.builder(BURST_3).slotCount(1).shardCount(1).probeBound(1)
            .idleGraceNs(1_000).seed(3).clock(() -> Long.MAX_VALUE).tableFullPolicy(TableFullPolicy.REJECT).build();
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1L, 1, 0));
        assertEquals(Result.TABLE_FULL, limiter.debit(2L, 1, 0), "no cell to charge: not an admission");
        assertEquals(Result.TABLE_FULL, limiter.debit("two", 1, 0));
        assertEquals(Result.NEVER, limiter.debit(1L, 1, Long.MAX_VALUE - 10),
            "a debit that would pass the end of time is NEVER");
        assertEquals(TableFullPolicy.REJECT, limiter.policy());
        assertSame(BURST_3, limiter.limit());
    }

    @Test
    void batchCountsOutsideTheArraysAreRefusedByName()
    {
        final KeyedRateLimiter limiter = keyed(BURST_3).build();
        final long[] codes = new long[2];
        final byte[] bytes = new byte[4];
        final int[] offsets = {0, 2};
        final int[] lengths = {2, 2};
        final UnsafeBuffer buffer = new UnsafeBuffer(bytes);
        for (final int count : new int[] {-1, 3})
        {
            assertCountRefused(() -> limiter.tryAcquire(new long[] {1, 2, 3}, count, 1, 0, codes));
            assertCountRefused(() -> limiter.tryAcquire(new long[] {1, 2}, count, 1, 0, new long[3]));
            assertCountRefused(() -> limiter.tryAcquire(bytes, offsets, lengths, count, 1, 0, codes));
            assertCountRefused(() -> limiter.tryAcquire(buffer, offsets, lengths, count, 1, 0, codes));
        }
        assertCountRefused(() -> limiter.tryAcquire(bytes, offsets, new int[] {2}, 2, 1, 0, codes));
        assertEquals(0, limiter.liveKeys(), "nothing decided");
    }

    private static void assertCountRefused(final org.junit.jupiter.api.function.Executable call)
    {
        final IndexOutOfBoundsException ex = assertThrows(IndexOutOfBoundsException.class, call);
        assertTrue(ex.getMessage().startsWith("count must be in [0, "), ex.getMessage());
    }

    @Test
    void theBuilderRefusesMissingPartsByName()
    {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> keyed(BURST_3).buildShaper(null))
            .getMessage().startsWith("mode "));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> keyed(BURST_3).tableFullPolicy(null).build())
            .getMessage().contains("olicy must not be null"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> keyed(BURST_3).clock(null).build())
            .getMessage().startsWith("clock "));
        final IllegalArgumentException rounded = assertThrows(IllegalArgumentException.class,
            () -> KeyedRateLimiter.builder(BURST_3).slotCount(dev.cellrate.table.TableLayout.MAX_SLOTS).shardCount(2)
                .build());
        assertTrue(rounded.getMessage().contains("but was " + 2L * (dev.cellrate.table.TableLayout.MAX_SLOTS / 2 + 1)),
            rounded.getMessage());
        assertEquals(0, keyed(BURST_3).buildShaper(ShaperMode.delay()).reserve(1L, 1, 0), "reserved, no delay");
    }

    @Test
    void slotCountsAreRoundedToWholeLinesFromFourSlotsPerShardOn()
    {
        assertEquals(3, KeyedRateLimiter.builder(BURST_3).slotCount(3).shardCount(1).seed(3).build().table()
            .slotCount(), "three slots in one shard: not rounded up to a line");
        assertEquals(4, KeyedRateLimiter.builder(BURST_3).slotCount(4).shardCount(1).seed(3).build().table()
            .slotCount());
        assertEquals(8, KeyedRateLimiter.builder(BURST_3).slotCount(5).shardCount(1).seed(3).build().table()
            .slotCount(), "five slots: two whole lines");
        assertEquals(6, KeyedRateLimiter.builder(BURST_3).slotCount(5).shardCount(2).seed(3).build().table()
            .slotCount(), "three per shard after rounding up to the shard count");
        assertEquals(16, KeyedRateLimiter.builder(BURST_3).slotCount(9).shardCount(2).seed(3).build().table()
            .slotCount(), "five per shard: two lines each");
    }

    @Test
    void singleThreadedSmallCostsAndGetters()
    {
        final Limit fine = Limit.ofGcra(1, 2);
        final CellArray cells = CellArray.allocate(1);
        final SingleThreadedRateLimiter limiter =
            new SingleThreadedRateLimiter(fine, cells, 0, org.agrona.concurrent.SystemNanoClock.INSTANCE);
        assertSame(cells, limiter.cells());
        assertSame(fine, limiter.limit());
        assertEquals(Result.ADMITTED, limiter.peek(1, 0), "a 1-ns permit");
        assertEquals(Result.ADMITTED, limiter.debit(1, 0), "a 1-ns debit is charged");
        assertEquals(1, limiter.tatNs());
        assertEquals(Result.ADMITTED, limiter.tryAcquire(2, 0));
        assertEquals(3, limiter.tatNs());
        limiter.debit(10, 0);
        assertEquals(6, limiter.tatNs(), "debt ceiling 2 (tau + T) = 6");
        assertEquals(Result.NEVER, limiter.peek(0, 0), "no cost below one permit, even on a cell deep in debt");
        assertEquals(Result.NEVER, limiter.peek(-1, 0));
    }

    @Test
    void payLaterAdmitsOneRequestLargerThanTheBurstFromIdle()
    {
        final PayLaterRateLimiter limiter = new PayLaterRateLimiter(BURST_1, 10);
        assertEquals(10, limiter.maxPermits());
        assertSame(BURST_1, limiter.limit());
        assertEquals(Result.ADMITTED, limiter.tryAcquire(10, 0), "burst 1, but a caller may take 10 and pay later");
        assertEquals(1_000, limiter.tatNs());
        assertEquals(1_000, limiter.tryAcquire(1, 0), "paid back after 10 T");
        assertEquals(Result.NEVER, limiter.tryAcquire(11, 5_000), "above maxPermits");
        assertThrows(IllegalArgumentException.class,
            () -> new PayLaterRateLimiter(BURST_1, 1, (org.agrona.concurrent.NanoClock)null));
        assertThrows(IllegalArgumentException.class,
            () -> new PayLaterRateLimiter(null, 1, org.agrona.concurrent.SystemNanoClock.INSTANCE));
        assertThrows(IllegalArgumentException.class,
            () -> PayLaterRateLimiter.startingEmpty(null, 1, 0, org.agrona.concurrent.SystemNanoClock.INSTANCE));
        assertThrows(IllegalArgumentException.class, () -> PayLaterRateLimiter.startingEmpty(BURST_1, 1, 0, null));
        assertThrows(IllegalArgumentException.class,
            () -> ReservingLimiter.payLaterStartingEmpty(null, 1, 0, org.agrona.concurrent.SystemNanoClock.INSTANCE));
        assertThrows(IllegalArgumentException.class,
            () -> ReservingLimiter.payLaterStartingEmpty(BURST_1, 0, 0, org.agrona.concurrent.SystemNanoClock.INSTANCE));
    }

    @Test
    void newKeysStartWithTheBuildersInitialFill()
    {
        // initialPermits(1) of a burst of 3: a new key admits one permit, then waits 2 T for the next.
        final KeyedRateLimiter limiter = keyed(BURST_3).initialPermits(1).build();
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1L, 1, 1_000));
        assertEquals(T_NS, limiter.tryAcquire(1L, 1, 1_000), "the one initial permit is spent");
        assertEquals(Result.ADMITTED, limiter.tryAcquire(2L, 1, 5_000), "each new key gets its own fill");
        assertEquals(0, keyed(BURST_3).buildShaper(ShaperMode.delay()).reserve(1L, 1, 1_000), "full: at once");
        final dev.cellrate.KeyedShaper shaper = keyed(BURST_3).initialPermits(1).buildShaper(ShaperMode.delay());
        assertEquals(2 * T_NS, shaper.reserve(1L, 1, 1_000), "started at lag 200: the first permit is delayed");
    }

    /**
     * A peek at a key the table does not hold answers what an insert-and-charge at the same time would: under
     * the builder's initial fill, not a full bucket (found by this test: peek answered ADMITTED where
     * tryAcquire answered a retry-after).
     */
    @Test
    void aPeekAtANewKeyAnswersWhatTryAcquireWouldUnderAnInitialFill()
    {
        final KeyedRateLimiter limiter = keyed(BURST_3).initialPermits(1).build();
        final long peeked = limiter.peek("new", 2, 1_000);
        assertEquals(limiter.tryAcquire("new", 2, 1_000), peeked, "lag 200 + 2 T is 100 ns over the ceiling");
        assertEquals(Result.ADMITTED, limiter.peek(7L, 1, 1_000), "one permit of the fill");
        assertEquals(Result.ADMITTED, limiter.tryAcquire(7L, 1, 1_000));
        assertEquals(T_NS, limiter.peek(7L, 1, 1_000), "the fill used: one interval to wait");
        assertEquals(T_NS, limiter.tryAcquire(7L, 1, 1_000));
        assertEquals(Result.ADMITTED, KeyedRateLimiter.builder(BURST_3).build().peek("new", 3, 1_000), "default: full");
    }

    @Test
    void aStringKeyPeekAnswersItsRetryAfter()
    {
        final KeyedRateLimiter limiter = keyed(BURST_1).build();
        assertEquals(Result.ADMITTED, limiter.tryAcquire("k", 1, 0));
        assertEquals(T_NS, limiter.peek("k", 1, 0));
        assertEquals(T_NS, limiter.peek("k", 1, 0), "a peek charges nothing");
    }

    @Test
    void aPayLaterFrontStartingEmptyLetsItsFirstRequestPayLaterAtTheGivenTime()
    {
        final org.agrona.concurrent.CachedNanoClock clock = new org.agrona.concurrent.CachedNanoClock();
        final Limit limit = Limit.ofGcra(100, 300);
        final PayLaterRateLimiter limiter = PayLaterRateLimiter.startingEmpty(limit, 10, 1_000, clock);
        assertEquals(1_300, limiter.tatNs(), "now + tau: no stored permits");
        assertEquals(Result.ADMITTED, limiter.tryAcquire(5, 1_000), "the first request passes and pays later");
        assertEquals(500, limiter.tryAcquire(1, 1_000), "the next waits for the 5 charged");
        final ReservingLimiter reserving = ReservingLimiter.payLaterStartingEmpty(limit, 10, 1_000, clock);
        assertEquals(1_300, reserving.tatNs());
        assertEquals(0, reserving.reserve(5, 1_000, 0));
        assertEquals(500, reserving.reserve(1, 1_000, Long.MAX_VALUE));
        final ReservingLimiter full = ReservingLimiter.payLater(limit, 10, clock);
        assertEquals(Long.MIN_VALUE, full.tatNs(), "the plain pay-later form starts full");
        assertEquals(0, full.reserve(10, 1_000, 0));

        // tau < T (burst 1): empty is not k = 1, which is a full cell
        final Limit slow = Limit.ofGcra(1_000, 400);
        final PayLaterRateLimiter empty = PayLaterRateLimiter.startingEmpty(slow, 3, 0, clock);
        final PayLaterRateLimiter one = new PayLaterRateLimiter(slow, 3, clock, 1);
        assertEquals(Result.ADMITTED, empty.tryAcquire(1, 0));
        assertEquals(Result.ADMITTED, one.tryAcquire(1, 0));
        assertEquals(1_000, empty.tryAcquire(1, 0), "Guava: the next permit after one interval");
        assertEquals(600, one.tryAcquire(1, 0), "a full cell stores tau more");

        assertEquals(Long.MAX_VALUE, PayLaterRateLimiter.startingEmpty(limit, 1, Long.MAX_VALUE - 5, clock).tatNs(),
            "saturated at the end of the long range");
    }

    @Test
    void payLaterStartsFromTheGivenTatAndFillsTheDecision()
    {
        final PayLaterRateLimiter limiter =
            PayLaterRateLimiter.atTat(BURST_1, 10, 1_000, org.agrona.concurrent.SystemNanoClock.INSTANCE);
        assertEquals(1_000, limiter.tatNs());
        final Decision decision = new Decision();
        assertEquals(1_000, limiter.tryAcquire(1, 0, decision), "owes 1000 ns from the start");
        assertEquals(1_000, decision.retryAfterNs());
        assertEquals(Result.ADMITTED, limiter.tryAcquire(10, 1_000, decision), "then 10 at once, paid later");
        assertTrue(decision.admitted());
        assertEquals(2_000, limiter.tatNs());
    }

    @Test
    void aLimitIsAValue()
    {
        final Limit a = Limit.ofGcra(T_NS, 2 * T_NS);
        assertEquals(a, Limit.ofGcra(T_NS, 2 * T_NS));
        assertEquals(a.hashCode(), Limit.ofGcra(T_NS, 2 * T_NS).hashCode());
        assertTrue(a.equals(a));
        assertNotEquals(a, Limit.ofGcra(T_NS, T_NS));
        assertNotEquals(a, Limit.ofGcra(2 * T_NS, 2 * T_NS));
        assertNotEquals(a.hashCode(), Limit.ofGcra(T_NS, T_NS).hashCode());
        assertNotEquals(a.hashCode(), Limit.ofGcra(2 * T_NS, 2 * T_NS).hashCode());
        assertFalse(a.equals(null));
        assertFalse(a.equals("Limit"));
        assertTrue(a.toString().contains("emissionIntervalNs=100"), a.toString());
        assertTrue(a.toString().contains("toleranceNs=200"), a.toString());
    }

    @Test
    void aDebitIncrementIsNeverBelowOnePermitAndClampedAtTheDebtCeiling()
    {
        // T = 100, tau = 25: ceiling 125, debt ceiling 250, which T does not divide.
        final Limit limit = Limit.ofGcra(T_NS, 25);
        assertEquals(250, limit.debtCeilingNs());
        assertEquals(200, limit.debitIncrementNs(2), "2 permits fit under the debt ceiling: 2 T");
        assertEquals(250, limit.debitIncrementNs(3), "3 do not: clamped");
        assertEquals(Result.NEVER, limit.debitIncrementNs(0));
        assertEquals(Result.NEVER, limit.debitIncrementNs(-1));
        assertEquals(Result.NEVER, limit.debitIncrementNs(Long.MIN_VALUE));
    }

    @Test
    void aDecisionDescribesItselfAndChains()
    {
        final Decision decision = new Decision();
        assertSame(decision, decision.set(Result.ADMITTED, 200, BURST_3));
        assertTrue(decision.admitted());
        assertEquals(1, decision.remaining());
        assertEquals(200, decision.resetAfterNs());
        assertEquals(3, decision.limit());
        assertTrue(decision.toString().contains("ADMITTED"), decision.toString());
        assertTrue(decision.toString().contains("remaining=1"), decision.toString());

        assertSame(decision, decision.setOutcome(500, 0, 700, 10));
        assertEquals(500, decision.retryAfterNs(), "a positive code is the retry-after");
        assertFalse(decision.admitted());
        assertEquals(700, decision.resetAfterNs());
        assertEquals(10, decision.limit());
        assertTrue(decision.toString().contains("retryAfterNs=500"), decision.toString());
        decision.setOutcome(Result.ADMITTED_TABLE_FULL, 4, 0, 10);
        assertEquals(0, decision.retryAfterNs(), "an admission has no retry-after");
        assertTrue(decision.admitted());
        decision.setOutcome(Result.NEVER, 0, 0, 10);
        assertEquals(Long.MAX_VALUE, decision.retryAfterNs(), "NEVER: never");
        decision.set(Result.TABLE_FULL, 0, BURST_3);
        assertEquals(Long.MAX_VALUE, decision.retryAfterNs());
        assertEquals(3, decision.remaining(), "a full cell: the whole burst");
        decision.set(Result.ADMITTED, -5, BURST_3);
        assertEquals(0, decision.resetAfterNs(), "a negative reset-after counts as 0");
        assertEquals(3, decision.remaining());
        decision.set(Result.ADMITTED, Long.MAX_VALUE, BURST_3);
        assertEquals(0, decision.remaining(), "far in debt: nothing remains");
    }

    @Test
    void codesAtTheEdgesOfTheirRangesAreNamedByTheirRange()
    {
        assertFalse(Result.isEncodedRetryAfter(Result.ENCODED_RETRY_AFTER_BASE), "the base itself encodes nothing");
        assertEquals(0, Result.decodeRetryAfterNs(Result.ENCODED_RETRY_AFTER_BASE));
        assertEquals("RESERVED", Result.name(Result.ENCODED_RETRY_AFTER_BASE));
        assertTrue(Result.isEncodedRetryAfter(Result.ENCODED_RETRY_AFTER_BASE - 1));
        assertEquals(1, Result.decodeRetryAfterNs(Result.ENCODED_RETRY_AFTER_BASE - 1));
        assertEquals("RESERVED", Result.name(Result.DISTRIBUTED_RANGE_LAST - 1));
        assertEquals("UNASSIGNED", Result.name(Result.DISTRIBUTED_RANGE_LAST), "inside the distributed range");
        assertEquals("POSITIVE_NS", Result.name(1));
    }

    @Test
    void cellsOverATestBufferMustFitInIt()
    {
        assertThrows(IllegalArgumentException.class, () -> TestCells.interposing(TestCells.buffer(1), 2));
        final CellArray cells = TestCells.interposing(TestCells.buffer(2), 2);
        assertEquals(2, cells.cellCount());
        assertEquals(CellArray.FRESH_TAT_NS, cells.buffer().getLongVolatile(CellArray.tatOffset(1)));
    }
}
