package dev.cellrate.table.mapped;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.KeyedRateLimiterBuilder;
import dev.cellrate.TestFronts;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import dev.cellrate.ShaperMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

/** {@code KeyedRateLimiter.builder(limit).mappedFile(path)} as a user meets it, in one JVM. */
final class MappedBuilderTest
{
    private static final Limit LIMIT = Limit.perSecond(10, 5);

    @TempDir
    Path directory;

    @Test
    void twoLimitersOnOneFileShareEveryKey()
    {
        final Path file = directory.resolve("k.table");
        final KeyedRateLimiter a = KeyedRateLimiter.builder(LIMIT).slotCount(1024).mappedFile(file).build();
        final KeyedRateLimiter b = KeyedRateLimiter.builder(LIMIT).slotCount(1024).mappedFile(file).build();
        final long nowNs = System.nanoTime();
        for (int i = 0; i < 5; i++)
        {
            assertTrue(Result.isAdmitted(a.tryAcquire("client-1", 1, nowNs)));
        }
        assertFalse(Result.isAdmitted(b.tryAcquire("client-1", 1, nowNs)), "b sees the burst a spent");
        assertEquals(1, b.liveKeys());
        assertTrue(Result.isAdmitted(b.tryAcquire("client-1", 1, nowNs + 100_000_000L)), "and the refill");
        assertFalse(Result.isAdmitted(a.tryAcquire("client-1", 1, nowNs + 100_000_000L)));
    }

    @Test
    void aRefundGivesBackToEveryLimiterOnTheFile()
    {
        final Path file = directory.resolve("k.table");
        final KeyedRateLimiter a = KeyedRateLimiter.builder(LIMIT).slotCount(1024).mappedFile(file).build();
        final KeyedRateLimiter b = KeyedRateLimiter.builder(LIMIT).slotCount(1024).mappedFile(file).build();
        final long nowNs = System.nanoTime();
        for (int i = 0; i < 5; i++)
        {
            assertTrue(Result.isAdmitted(a.tryAcquire("client-1", 1, nowNs)));
        }
        assertEquals(2 * LIMIT.emissionIntervalNs(), a.refund("client-1", 2, nowNs), "two permits given back");
        assertTrue(Result.isAdmitted(b.tryAcquire("client-1", 1, nowNs)), "b sees the refund");
        assertTrue(Result.isAdmitted(b.tryAcquire("client-1", 1, nowNs)));
        assertFalse(Result.isAdmitted(b.tryAcquire("client-1", 1, nowNs)), "exactly two");
    }

    @Test
    void aRefundNeverGoesBelowTheShardsReclaimFloorOnAFile()
    {
        final Path file = directory.resolve("k.table");
        final KeyedRateLimiter a = KeyedRateLimiter.builder(LIMIT).shardCount(1).slotCount(1).probeBound(1)
            .mappedFile(file).build();
        final KeyedRateLimiter b = KeyedRateLimiter.builder(LIMIT).shardCount(1).slotCount(1).probeBound(1)
            .mappedFile(file).build();
        final long t0Ns = System.nanoTime() - 60_000_000_000L;
        final long t1Ns = t0Ns + 10_000_000_000L; // key 1 is idle by then (grace 1 s)
        assertEquals(Result.ADMITTED, a.tryAcquire(1, 5, t0Ns));
        assertEquals(Result.ADMITTED, b.tryAcquire(2, 1, t1Ns), "key 2 reclaims key 1's slot");
        final long floorNs = t1Ns - KeyedRateLimiterBuilder.DEFAULT_IDLE_GRACE_NS;
        assertEquals(t1Ns + LIMIT.emissionIntervalNs() - (floorNs + 1), a.refund(2, 100, t0Ns),
            "a, in another opening, refunds key 2 down to the floor b's reclaim wrote into the file, not below");
        assertEquals(floorNs + 1, TestFronts.tableOf(b).tatNs(TestFronts.tableOf(b).keyWord(2)));
    }

    @Test
    void anotherLimitOnTheFileIsRefusedNamingIt()
    {
        final Path file = directory.resolve("k.table");
        KeyedRateLimiter.builder(LIMIT).slotCount(1024).mappedFile(file).build();
        final IllegalStateException error = assertThrows(IllegalStateException.class,
            () -> KeyedRateLimiter.builder(Limit.perSecond(20, 5)).slotCount(1024).mappedFile(file).build());
        assertTrue(error.getMessage().contains(
            "limit emissionIntervalNs: the file has 100000000, this limiter asks for 50000000"), error.getMessage());
    }

    @Test
    void aMappedTableNeedsTheSystemClock()
    {
        final Path file = directory.resolve("k.table");
        final IllegalArgumentException clock = assertThrows(IllegalArgumentException.class,
            () -> KeyedRateLimiter.builder(LIMIT).mappedFile(file).clock(() -> System.nanoTime()).build());
        assertTrue(clock.getMessage().startsWith("clock must be the system clock for a mappedFile table"),
            clock.getMessage());
        final IllegalArgumentException shaper = assertThrows(IllegalArgumentException.class,
            () -> KeyedRateLimiter.builder(LIMIT).mappedFile(file).clock(() -> 0).buildShaper(ShaperMode.delay()));
        assertTrue(shaper.getMessage().startsWith("clock must be the system clock for a mappedFile table"),
            shaper.getMessage());
    }
}
