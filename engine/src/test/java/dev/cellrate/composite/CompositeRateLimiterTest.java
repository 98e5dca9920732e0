package dev.cellrate.composite;

import dev.cellrate.TestFronts;
import dev.cellrate.layout.CellArray;
import dev.cellrate.Limit;
import dev.cellrate.RateLimiter;
import dev.cellrate.Result;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Single-threaded, a composite is exactly "admit iff every leg conforms, then charge every leg", and a
 * rejection leaves every leg as it would be had the request never come. Checked against an independent
 * per-leg model on random traces, on one key (10/s AND 1000/h) and across keys (user AND tenant AND global).
 */
public class CompositeRateLimiterTest
{
    /** Independent GCRA model: TAT per cell, check all legs first, then charge all. */
    public static final class Model
    {
        final long[] tatNs;

        public Model(final int cells)
        {
            tatNs = new long[cells];
            java.util.Arrays.fill(tatNs, Long.MIN_VALUE / 4);
        }

        public boolean offer(final Limit[] limits, final int[] cells, final long permits, final long nowNs)
        {
            for (int leg = 0; leg < limits.length; leg++)
            {
                final long lag = Math.max(0, tatNs[cells[leg]] - nowNs);
                if (permits > limits[leg].burst() || lag + permits * limits[leg].emissionIntervalNs() >
                    limits[leg].ceilingNs())
                {
                    return false;
                }
            }
            for (int leg = 0; leg < limits.length; leg++)
            {
                tatNs[cells[leg]] = Math.max(tatNs[cells[leg]], nowNs) + permits * limits[leg].emissionIntervalNs();
            }
            return true;
        }
    }

    @Test
    void oneKeyTenPerSecondAndThousandPerHour()
    {
        final Limit[] limits = {Limit.perSecond(10, 10), Limit.of(1000, 1, TimeUnit.HOURS, 1000)};
        final CompositeRateLimiter composite = CompositeRateLimiter.of(limits);
        final Model model = new Model(2);
        final int[] cells = {0, 1};
        final SplittableRandom random = new SplittableRandom(5);
        long nowNs = 0;
        long admitted = 0;
        for (int i = 0; i < 20_000; i++)
        {
            nowNs += random.nextLong(0, 400_000_000L);
            final long permits = random.nextInt(5) == 0 ? random.nextLong(1, 12) : 1;
            final boolean expected = model.offer(limits, cells, permits, nowNs);
            assertEquals(expected, Result.isAdmitted(composite.tryAcquire(permits, nowNs)), "request " + i);
            admitted += expected ? 1 : 0;
        }
        // the hourly leg binds: about 1000 per hour over ~1.1 h of trace, plus its burst
        assertTrue(admitted > 1000 && admitted < 3200, "admitted " + admitted);
        assertEquals(0, composite.leakedRefunds());
    }

    @Test
    void acrossKeysUserTenantGlobal()
    {
        final Limit[] limits = {Limit.perSecond(5, 3), Limit.perSecond(20, 10), Limit.perSecond(50, 25)};
        final CellArray cells = CellArray.allocate(16);
        final CompositeRateLimiter composite = new CompositeRateLimiter(cells, limits, null);
        final Model model = new Model(16);
        final int[] legCells = new int[3];
        final SplittableRandom random = new SplittableRandom(6);
        long nowNs = -1_000_000_000_000L;
        long admitted = 0;
        for (int i = 0; i < 30_000; i++)
        {
            nowNs += random.nextLong(0, 30_000_000L);
            final int user = random.nextInt(12);
            legCells[0] = user;
            legCells[1] = 12 + user % 3;
            legCells[2] = 15;
            final boolean expected = model.offer(limits, legCells, 1, nowNs);
            assertEquals(expected, Result.isAdmitted(composite.tryAcquire(legCells, 1, nowNs)), "request " + i);
            admitted += expected ? 1 : 0;
        }
        assertTrue(admitted > 3000 && admitted < 27_000, "admitted " + admitted);
        for (int cell = 0; cell < 16; cell++)
        {
            assertEquals(model.tatNs[cell] < nowNs - 1_000_000_000L, cells.buffer().getLong(CellArray.tatOffset(cell))
                < nowNs - 1_000_000_000L, "cell " + cell);
        }
    }

    @Test
    void aRejectionByALaterLegLeavesEarlierLegsAsIfUntouched()
    {
        final Limit[] limits = {Limit.ofGcra(100, 1000), Limit.ofGcra(100, 0)};
        final CompositeRateLimiter composite = CompositeRateLimiter.of(limits);
        final RateLimiter first = TestFronts.rateLimiter(limits[0], composite.cells(), 0, org.agrona.concurrent.SystemNanoClock.INSTANCE);
        assertEquals(Result.ADMITTED, composite.tryAcquire(1, 5_000));
        assertEquals(5_100, TestFronts.tatNs(first));
        // leg 1 (burst 1) rejects at the same instant: leg 0 gets its charge back exactly
        assertEquals(100, composite.tryAcquire(1, 5_000));
        assertEquals(5_100, TestFronts.tatNs(first));
        // a plain charge on leg 0 meanwhile is kept; the refund restores max(TAT0, t)
        assertEquals(Result.ADMITTED, first.tryAcquire(1, 7_000));
        assertEquals(7_100, TestFronts.tatNs(first));
        assertEquals(Result.ADMITTED, composite.tryAcquire(1, 8_000));
        assertEquals(30, composite.tryAcquire(1, 8_070));
        assertEquals(8_100, TestFronts.tatNs(first));
        assertEquals(Result.NEVER, composite.tryAcquire(2, 9_000));
        assertEquals(Result.NEVER, composite.tryAcquire(0, 9_000));
        assertEquals(0, composite.leakedRefunds());
    }

    @Test
    void validation()
    {
        assertThrows(IllegalArgumentException.class, () -> CompositeRateLimiter.of());
        final IllegalArgumentException tooMany = assertThrows(IllegalArgumentException.class,
            () -> CompositeRateLimiter.of(new Limit[65]));
        assertEquals("limits.length must be in [1, 64] but was 65", tooMany.getMessage());
        assertEquals("limits[1] must not be null", assertThrows(IllegalArgumentException.class,
            () -> CompositeRateLimiter.of(Limit.perSecond(1, 1), null)).getMessage());
        assertEquals("cellIndices must be in [0, 1] but was 2", assertThrows(IllegalArgumentException.class,
            () -> new CompositeRateLimiter(CellArray.allocate(2), new Limit[] {Limit.perSecond(1, 1)}, new int[] {2}))
            .getMessage());
        assertEquals("cellIndices.length must be in [1, 1] but was 2", assertThrows(IllegalArgumentException.class,
            () -> new CompositeRateLimiter(CellArray.allocate(2), new Limit[] {Limit.perSecond(1, 1)}, new int[] {0, 1}))
            .getMessage());
        final CompositeRateLimiter perCall =
            new CompositeRateLimiter(CellArray.allocate(2), new Limit[] {Limit.perSecond(1, 1)}, null);
        assertThrows(IllegalStateException.class, () -> perCall.tryAcquire(1, 0));
        assertEquals(Result.NEVER, perCall.tryAcquire(new int[] {2}, 1, 0));
        assertEquals(Result.NEVER, perCall.tryAcquire(new int[0], 1, 0));
        assertEquals(Result.ADMITTED, perCall.tryAcquire(new int[] {1}, 1, 0));
    }
}
