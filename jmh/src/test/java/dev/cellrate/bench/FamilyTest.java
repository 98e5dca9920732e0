package dev.cellrate.bench;

import dev.cellrate.Result;
import dev.cellrate.tcm.Colour;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link FamilyBenchmark} measures the admit path: with its time steps, every call is admitted.
 */
final class FamilyTest
{
    private static final int CALLS = 200_000;

    @Test
    void everyFamilyMemberAdmitsEveryCall()
    {
        final FamilyBenchmark bench = new FamilyBenchmark();
        bench.setUp();
        final FamilyBenchmark.CallerClock[] clocks = new FamilyBenchmark.CallerClock[9];
        for (int i = 0; i < clocks.length; i++)
        {
            clocks[i] = new FamilyBenchmark.CallerClock();
        }
        for (int i = 0; i < CALLS; i++)
        {
            assertEquals(Result.ADMITTED, bench.fixedWindow(clocks[0]), "fixedWindow");
            assertEquals(Result.ADMITTED, bench.slidingCounter(clocks[1]), "slidingCounter at " + i);
            assertEquals(Result.ADMITTED, bench.slidingLog(clocks[2]), "slidingLog at " + i);
            assertEquals(Result.ADMITTED, bench.payLater(clocks[3]), "payLater");
            assertEquals(Result.ADMITTED, bench.warmingUp(clocks[4]), "warmingUp at " + i);
            assertEquals(Result.ADMITTED, bench.composite2Legs(clocks[5]), "composite");
            assertTrue(bench.concurrencyAcquireRelease(), "concurrency");
            assertEquals(Colour.GREEN, bench.srTcm(clocks[7]), "srTcm");
            assertEquals(Colour.GREEN, bench.trTcm(clocks[8]), "trTcm");
        }
        // Across several windows of the windowed limiters (2^40 ns each).
        final FamilyBenchmark.CallerClock counterClock = new FamilyBenchmark.CallerClock();
        final FamilyBenchmark.CallerClock fixedClock = new FamilyBenchmark.CallerClock();
        fixedClock.nowNs = FamilyBenchmark.WINDOW_NS - CALLS;
        for (int i = 0; i < 3 * (1 << 19) + 1_000; i++)
        {
            assertEquals(Result.ADMITTED, bench.slidingCounter(counterClock), "slidingCounter at " + i);
        }
        assertTrue(counterClock.nowNs > 3 * FamilyBenchmark.WINDOW_NS);
        for (int i = 0; i < 2 * CALLS; i++)
        {
            assertEquals(Result.ADMITTED, bench.fixedWindow(fixedClock), "fixedWindow across the boundary");
        }
    }
}
