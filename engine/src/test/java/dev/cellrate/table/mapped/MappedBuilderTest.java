package dev.cellrate.table.mapped;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellrate.KeyedRateLimiter;
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
