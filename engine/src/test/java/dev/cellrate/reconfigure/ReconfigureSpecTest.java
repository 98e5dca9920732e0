package dev.cellrate.reconfigure;

import dev.cellrate.TestFronts;
import dev.cellrate.ReconfigurableKeyedRateLimiter;
import dev.cellrate.layout.CellArray;
import dev.cellrate.Decision;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import dev.cellrate.TableFullPolicy;
import dev.cellrate.ShaperMode;
import dev.cellrate.table.SlotTable;
import dev.cellrate.translate.Guava;
import dev.cellrate.translate.GuavaBursty;
import org.agrona.concurrent.NanoClock;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a user of the reconfigurable fronts sees (the cases PIT finds in {@code dev.cellrate.reconfigure}):
 * a keyed limiter on a full table answers per its policy and fills the holder, under the limit current at the
 * decision; every key form decides; a pay-later limiter switched to unlimited admits once the old debt is
 * served and charges nothing, and back to a finite rate starts as Guava does; accessors; configuration errors
 * name the field.
 */
final class ReconfigureSpecTest
{
    static final NanoClock FAR_CLOCK = () -> Long.MAX_VALUE;
    /** T = 100 ns, tau = 200 ns: a burst of 3. */
    static final Limit THREE = Limit.ofGcra(100, 200);
    static final long SECOND_NS = 1_000_000_000L;

    static SlotTable oneSlotTable()
    {
        return new SlotTable(1, 1, 1, 1L << 62, 7L, FAR_CLOCK);
    }

    static String message(final Class<? extends Throwable> type, final org.junit.jupiter.api.function.Executable run)
    {
        return assertThrows(type, run).getMessage();
    }

    // ---- keyed ----

    @Test
    void aFullTableUnderRejectAnswersTableFullAndFillsTheHolder()
    {
        final ReconfigurableKeyedRateLimiter limiter =
            TestFronts.reconfigurableKeyed(THREE, oneSlotTable(), TableFullPolicy.REJECT);
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1L, 1, 0));
        final Decision decision = new Decision();
        assertEquals(Result.TABLE_FULL, limiter.tryAcquire(2L, 1, 0, decision));
        assertEquals(Result.TABLE_FULL, decision.code());
        assertFalse(decision.admitted());
        assertEquals(Long.MAX_VALUE, decision.retryAfterNs());
        assertEquals(3, decision.limit());
        assertEquals(Result.TABLE_FULL, limiter.tryAcquire(2L, 1, 0));
        assertEquals(Result.TABLE_FULL, limiter.tryAcquire("other", 1, 0));
        assertEquals(SlotTable.STALE, TestFronts.tatNs(limiter, 2L), "a rejected new key gets no cell");
        assertEquals(100, TestFronts.tatNs(limiter, 1L), "the held key is untouched");
    }

    @Test
    void aFullTableUnderAdmitAnswersAdmittedTableFullWithAFullBucket()
    {
        final ReconfigurableKeyedRateLimiter limiter =
            TestFronts.reconfigurableKeyed(THREE, oneSlotTable(), TableFullPolicy.ADMIT);
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1L, 1, 0));
        final Decision decision = new Decision();
        for (int i = 0; i < 5; i++)
        {
            assertEquals(Result.ADMITTED_TABLE_FULL, limiter.tryAcquire(2L, 1, 0, decision));
            assertEquals(Result.ADMITTED, decision.code());
            assertTrue(decision.admitted());
            assertEquals(0, decision.retryAfterNs());
            assertEquals(3, decision.remaining(), "a full bucket of the current limit");
        }
        limiter.setLimit(Limit.ofGcra(100, 400));
        assertEquals(Result.ADMITTED_TABLE_FULL, limiter.tryAcquire(2L, 1, 0, decision));
        assertEquals(5, decision.limit(), "filled under the new limit");
    }

    @Test
    void aFullTableUnderOverflowDecidesTheSharedCellUnderTheCurrentLimit()
    {
        final SlotTable table = oneSlotTable();
        final ReconfigurableKeyedRateLimiter limiter =
            TestFronts.reconfigurableKeyed(THREE, table, TableFullPolicy.OVERFLOW);
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1L, 1, 0));
        final Decision decision = new Decision();
        for (int i = 0; i < 3; i++)
        {
            assertEquals(Result.ADMITTED_OVERFLOW, limiter.tryAcquire(2L + i, 1, 0, decision));
            assertEquals(Result.ADMITTED, decision.code());
            assertEquals(2 - i, decision.remaining());
        }
        assertEquals(300, table.overflowTatNs());
        assertEquals(Result.REJECTED_OVERFLOW, limiter.tryAcquire(9L, 1, 0, decision));
        assertFalse(Result.isAdmitted(Result.REJECTED_OVERFLOW));
        assertEquals(100, decision.code(), "the overflow cell's retry-after");
        assertEquals(100, decision.retryAfterNs());
        assertEquals(Result.REJECTED_OVERFLOW, limiter.tryAcquire("x", 1, 0));
        // a larger tolerance: the overflow cell keeps its TAT (300) and decides under the new limit
        limiter.setLimit(Limit.ofGcra(50, 500));
        assertEquals(Result.ADMITTED_OVERFLOW, limiter.tryAcquire(9L, 1, 0, decision));
        assertEquals(350, table.overflowTatNs());
        assertEquals(11, decision.limit());
    }

    @Test
    void everyKeyFormDecidesItsOwnKeyUnderTheCurrentLimit()
    {
        final SlotTable table = new SlotTable(1, 8, 8, 1L << 62, 7L, FAR_CLOCK);
        final ReconfigurableKeyedRateLimiter limiter =
            TestFronts.reconfigurableKeyed(THREE, table, TableFullPolicy.REJECT);
        final Decision decision = new Decision();
        final byte[] bytes = "bytes".getBytes(StandardCharsets.UTF_8);
        final byte[] padded = "xbytesx".getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < 3; i++)
        {
            assertEquals(Result.ADMITTED, limiter.tryAcquire(1L, 1, 0));
            assertEquals(Result.ADMITTED, limiter.tryAcquire(2L, 1, 0, decision));
            assertEquals(2 - i, decision.remaining());
            assertEquals(Result.ADMITTED, limiter.tryAcquire("s", 1, 0));
            assertEquals(Result.ADMITTED, limiter.tryAcquire("d", 1, 0, decision));
            assertEquals(Result.ADMITTED, limiter.tryAcquire(bytes, 0, bytes.length, 1, 0));
            assertEquals(Result.ADMITTED, TestFronts.tryAcquireKeyWord(limiter, table.keyWord(3L), 1, 0));
        }
        assertEquals(100, limiter.tryAcquire(1L, 1, 0));
        assertEquals(100, limiter.tryAcquire(2L, 1, 0, decision));
        assertEquals(100, decision.retryAfterNs());
        assertFalse(decision.admitted());
        assertEquals(100, limiter.tryAcquire("s", 1, 0));
        assertEquals(100, limiter.tryAcquire("d", 1, 0, decision));
        assertEquals(100, decision.code());
        assertEquals(100, limiter.tryAcquire(padded, 1, bytes.length, 1, 0), "the same key bytes at an offset");
        assertEquals(100, TestFronts.tryAcquireKeyWord(limiter, table.keyWord(3L), 1, 0));
        assertEquals(300, TestFronts.tatNs(limiter, 1L));
        assertEquals(300, TestFronts.tatNs(limiter, 3L));
        assertEquals(SlotTable.STALE, TestFronts.tatNs(limiter, 4L));
        // debt kept in time: 300 - 0 = 300 ns of lag; under T = 100, tau = 400 two more fit, at 500 the third not
        limiter.setLimit(Limit.ofGcra(100, 400));
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1L, 2, 0));
        assertEquals(100, limiter.tryAcquire(1L, 1, 0));
        assertEquals(Result.NEVER, limiter.tryAcquire(5L, 6, 0), "more than the new burst of 5");
        assertEquals(Result.ADMITTED, limiter.tryAcquire(5L, 5, 0));
    }

    @Test
    void keyedAccessorsAndRefusals()
    {
        final SlotTable table = oneSlotTable();
        final ReconfigurableKeyedRateLimiter limiter =
            TestFronts.reconfigurableKeyed(THREE, table, TableFullPolicy.OVERFLOW);
        assertSame(table, TestFronts.tableOf(limiter));
        assertSame(TableFullPolicy.OVERFLOW, limiter.policy());
        assertSame(FAR_CLOCK, limiter.clock());
        assertEquals(THREE, limiter.limit());
        final Limit five = Limit.ofGcra(100, 400);
        limiter.setLimit(five);
        assertSame(five, limiter.limit());
        assertTrue(message(IllegalArgumentException.class, () -> limiter.setLimit(null)).contains("limit"));
        assertSame(five, limiter.limit(), "a refused change keeps the limit");
        assertTrue(message(IllegalArgumentException.class,
            () -> TestFronts.reconfigurableKeyed(null, table, TableFullPolicy.REJECT)).contains("limit"));
        assertTrue(message(IllegalArgumentException.class,
            () -> TestFronts.reconfigurableKeyed(THREE, null, TableFullPolicy.REJECT)).contains("table"));
        assertTrue(message(IllegalArgumentException.class,
            () -> TestFronts.reconfigurableKeyed(THREE, table, null)).contains("policy"));
    }

    // ---- pay-later ----

    @Test
    void payLaterStartsEmptyAndChargesTheWholeCost()
    {
        final GuavaBursty one = Guava.create(1);
        final long tauNs = one.limit().toleranceNs();
        final ReconfigurablePayLaterRateLimiter limiter = new ReconfigurablePayLaterRateLimiter(one, 0);
        assertFalse(limiter.isUnlimited());
        assertEquals(tauNs, limiter.tatNs());
        assertEquals(Result.NEVER, limiter.tryAcquire(0, 0));
        assertEquals(Result.ADMITTED, limiter.tryAcquire(5, 0), "the first request pays later");
        assertEquals(tauNs + 5 * SECOND_NS, limiter.tatNs());
        assertEquals(5 * SECOND_NS - 1, limiter.tryAcquire(1, 1), "the debt of 5 s is served first");
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 5 * SECOND_NS));
        assertEquals(tauNs + 6 * SECOND_NS, limiter.tatNs());
        assertTrue(message(IllegalArgumentException.class, () -> new ReconfigurablePayLaterRateLimiter(null, 0))
            .contains("guava"));
        assertTrue(message(IllegalArgumentException.class, () -> limiter.setRate(null, 0)).contains("guava"));
    }

    @Test
    void payLaterCostsAreBoundedByWhatFitsTheCeiling()
    {
        final GuavaBursty slow = Guava.create(1, 10, TimeUnit.SECONDS);
        final long maxPermits = Limit.MAX_CEILING_NS / slow.limit().emissionIntervalNs();
        assertTrue(maxPermits < Integer.MAX_VALUE);
        final ReconfigurablePayLaterRateLimiter limiter = new ReconfigurablePayLaterRateLimiter(slow, 0);
        assertEquals(Result.NEVER, limiter.tryAcquire(maxPermits + 1, 0));
        assertEquals(Result.ADMITTED, limiter.tryAcquire(maxPermits, 0));
        final ReconfigurablePayLaterRateLimiter fast = new ReconfigurablePayLaterRateLimiter(Guava.create(1000), 0);
        assertEquals(Result.NEVER, fast.tryAcquire(Integer.MAX_VALUE + 1L, 0));
        assertEquals(Result.ADMITTED, fast.tryAcquire(Integer.MAX_VALUE, 0));
    }

    @Test
    void aChargePastTheEndOfTimeIsNeverAndChargesNothing()
    {
        final GuavaBursty one = Guava.create(1);
        final long createdNs = Long.MAX_VALUE - 3 * SECOND_NS;
        final ReconfigurablePayLaterRateLimiter limiter = new ReconfigurablePayLaterRateLimiter(one, createdNs);
        final long tatNs = limiter.tatNs();
        assertEquals(Result.NEVER, limiter.tryAcquire(3, createdNs));
        assertEquals(tatNs, limiter.tatNs());
        assertEquals(Result.ADMITTED, limiter.tryAcquire(2, createdNs));
    }

    @Test
    void unlimitedAdmitsOnceTheOldDebtIsServedAndChargesNothing()
    {
        final GuavaBursty one = Guava.create(1);
        final long tauNs = one.limit().toleranceNs();
        final ReconfigurablePayLaterRateLimiter limiter = new ReconfigurablePayLaterRateLimiter(one, 0);
        assertEquals(Result.ADMITTED, limiter.tryAcquire(4, 0));
        limiter.setUnlimited();
        assertTrue(limiter.isUnlimited());
        limiter.setUnlimited();
        assertTrue(limiter.isUnlimited(), "a second switch keeps it unlimited");
        final long tatNs = limiter.tatNs();
        assertEquals(tauNs + 4 * SECOND_NS, tatNs);
        assertEquals(4 * SECOND_NS - SECOND_NS, limiter.tryAcquire(1, SECOND_NS), "the old debt still runs");
        for (int i = 0; i < 1000; i++)
        {
            assertEquals(Result.ADMITTED, limiter.tryAcquire(Integer.MAX_VALUE, 4 * SECOND_NS));
        }
        assertEquals(tatNs, limiter.tatNs(), "unlimited charges nothing");
        assertEquals(Result.NEVER, limiter.tryAcquire(0, 4 * SECOND_NS));
        assertEquals(Result.NEVER, limiter.tryAcquire(Integer.MAX_VALUE + 1L, 4 * SECOND_NS));
    }

    @Test
    void backToAFiniteRateAfterTheDebtIsServedRefillsTheStore()
    {
        final GuavaBursty one = Guava.create(1);
        final GuavaBursty ten = Guava.create(10);
        final ReconfigurablePayLaterRateLimiter limiter = new ReconfigurablePayLaterRateLimiter(one, 0);
        assertEquals(Result.ADMITTED, limiter.tryAcquire(2, 0));
        limiter.setUnlimited();
        final long nowNs = 10 * SECOND_NS;
        limiter.setRate(ten, nowNs);
        assertFalse(limiter.isUnlimited());
        assertEquals(2 * SECOND_NS, limiter.tatNs(), "TAT = nextFree: a full store of 10");
        // a full store of M = 10 at rate 10: 11 single permits now (pay later), the 12th waits
        for (int i = 0; i < 11; i++)
        {
            assertEquals(Result.ADMITTED, limiter.tryAcquire(1, nowNs), "request " + i);
        }
        assertEquals(SECOND_NS / 10, limiter.tryAcquire(1, nowNs));
    }

    @Test
    void backToAFiniteRateExactlyWhenTheDebtIsServedRefillsTheStore()
    {
        final GuavaBursty one = Guava.create(1);
        final ReconfigurablePayLaterRateLimiter limiter = new ReconfigurablePayLaterRateLimiter(one, 0);
        assertEquals(Result.ADMITTED, limiter.tryAcquire(3, 0));
        limiter.setUnlimited();
        final long nextFreeNs = 3 * SECOND_NS;
        limiter.setRate(Guava.create(10), nextFreeNs);
        assertEquals(nextFreeNs, limiter.tatNs(), "served by now: a full store, not an empty one");
        for (int i = 0; i < 11; i++)
        {
            assertEquals(Result.ADMITTED, limiter.tryAcquire(1, nextFreeNs), "request " + i);
        }
    }

    @Test
    void backToAFiniteRateWhileTheDebtRunsWaitsForItWithAnEmptyStore()
    {
        final GuavaBursty one = Guava.create(1);
        final GuavaBursty ten = Guava.create(10);
        final long tauNs = one.limit().toleranceNs();
        final ReconfigurablePayLaterRateLimiter limiter = new ReconfigurablePayLaterRateLimiter(one, 0);
        assertEquals(Result.ADMITTED, limiter.tryAcquire(5, 0));
        limiter.setUnlimited();
        limiter.setRate(ten, SECOND_NS);
        final long nextFreeNs = tauNs + 5 * SECOND_NS - tauNs;
        assertEquals(nextFreeNs + ten.limit().toleranceNs(), limiter.tatNs());
        assertEquals(nextFreeNs - SECOND_NS, limiter.tryAcquire(1, SECOND_NS));
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, nextFreeNs));
        assertEquals(SECOND_NS / 10, limiter.tryAcquire(1, nextFreeNs), "an empty store after nextFree");
    }

    @Test
    void aFiniteChangeKeepsTheTat()
    {
        final ReconfigurablePayLaterRateLimiter limiter = new ReconfigurablePayLaterRateLimiter(Guava.create(1), 0);
        assertEquals(Result.ADMITTED, limiter.tryAcquire(3, 0));
        final long tatNs = limiter.tatNs();
        limiter.setRate(Guava.create(10), SECOND_NS);
        assertEquals(tatNs, limiter.tatNs());
        assertFalse(limiter.isUnlimited());
    }

    @Test
    void leavingUnlimitedNearTheStartOfTimeDoesNotWrap()
    {
        // created at Long.MIN_VALUE under a tolerance of 1 s, switched off under a slightly larger tolerance:
        // nextFree = TAT - tau' would be before the start of time, it is clamped there (a full store)
        final GuavaBursty one = Guava.create(1);
        final GuavaBursty three = Guava.create(3);
        assertTrue(three.limit().toleranceNs() > one.limit().toleranceNs());
        final ReconfigurablePayLaterRateLimiter limiter = new ReconfigurablePayLaterRateLimiter(one, Long.MIN_VALUE);
        limiter.setRate(three, Long.MIN_VALUE);
        limiter.setUnlimited();
        limiter.setRate(one, 0);
        assertEquals(Long.MIN_VALUE, limiter.tatNs());
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 0));
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 0));
    }

    @Test
    void leavingUnlimitedNearTheEndOfTimeSaturates()
    {
        // the debt runs up to the end of time; the new, larger tolerance would carry the TAT past it
        final GuavaBursty one = Guava.create(1);
        final GuavaBursty three = Guava.create(3);
        assertTrue(three.limit().toleranceNs() > one.limit().toleranceNs());
        final ReconfigurablePayLaterRateLimiter limiter =
            new ReconfigurablePayLaterRateLimiter(one, Long.MAX_VALUE - 10);
        assertEquals(Long.MAX_VALUE, limiter.tatNs());
        limiter.setUnlimited();
        limiter.setRate(three, 0);
        assertEquals(Long.MAX_VALUE, limiter.tatNs());
        assertTrue(limiter.tryAcquire(1, 0) > 0, "still in debt: rejected");
    }

    // ---- single cell and shaper ----

    @Test
    void singleCellAccessorsHolderAndRefusals()
    {
        final NanoClock clock = () -> 42;
        final CellArray cells = CellArray.allocate(2);
        final ReconfigurableRateLimiter limiter = new ReconfigurableRateLimiter(THREE, cells, 1, clock);
        assertSame(clock, limiter.clock());
        final Decision decision = new Decision();
        assertEquals(Result.ADMITTED, limiter.tryAcquire(3, 0, decision));
        assertEquals(0, decision.remaining());
        assertEquals(300, limiter.tatNs());
        assertEquals(100, limiter.tryAcquire(1, 0, decision));
        assertEquals(100, decision.retryAfterNs());
        limiter.setLimit(Limit.ofGcra(100, 300));
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 0, decision));
        assertEquals(4, decision.limit());
        assertEquals(Limit.ofGcra(100, 300), limiter.limit());
        assertEquals(100, limiter.tryAcquire(1, 0), "the cell's TAT kept across the change");
        assertTrue(message(IllegalArgumentException.class, () -> limiter.setLimit(null)).contains("limit"));
        assertTrue(message(IllegalArgumentException.class,
            () -> new ReconfigurableRateLimiter(THREE, cells, 2, clock)).contains("cellIndex"));
        assertTrue(message(IllegalArgumentException.class,
            () -> new ReconfigurableRateLimiter(THREE, cells, -1, clock)).contains("cellIndex"));
        assertTrue(message(IllegalArgumentException.class,
            () -> new ReconfigurableRateLimiter(null, cells, 0, clock)).contains("limit"));
        assertTrue(message(IllegalArgumentException.class,
            () -> new ReconfigurableRateLimiter(THREE, null, 0, clock)).contains("cells"));
        assertTrue(message(IllegalArgumentException.class,
            () -> new ReconfigurableRateLimiter(THREE, cells, 0, null)).contains("clock"));
        assertEquals(Result.ADMITTED, new ReconfigurableRateLimiter(THREE).tryAcquire(3, 0));
    }

    @Test
    void shaperRefusalsAndAccessors()
    {
        assertTrue(message(IllegalArgumentException.class, () -> new ReconfigurableShaper(THREE, null))
            .contains("mode"));
        assertTrue(message(IllegalArgumentException.class,
            () -> new ReconfigurableShaper(null, ShaperMode.nodelay())).contains("limit"));
        final ReconfigurableShaper shaper = new ReconfigurableShaper(THREE, ShaperMode.delay());
        assertEquals(THREE, shaper.limit());
        assertEquals(0, shaper.reserve(1, 1_000));
        assertEquals(1_100, TestReconfigurables.tatNs(shaper));
        assertEquals(100, shaper.reserve(2, 1_000), "smooth delay: waits for the slot after the first");
        assertEquals(1_300, TestReconfigurables.tatNs(shaper));
        final Limit five = Limit.ofGcra(100, 400);
        shaper.setLimit(five);
        assertSame(five, shaper.limit());
        assertTrue(message(IllegalArgumentException.class, () -> shaper.setLimit(null)).contains("limit"));
        assertSame(five, shaper.limit());
    }
}
