package dev.cellrate;

import dev.cellrate.layout.CellLayout;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The heap cell of {@link RateLimiter}: on the running JVM the TAT word has at least 128 bytes of the limiter's
 * own object on each side, and a limiter with its own word decides exactly as one over an array cell, in every
 * method, from fresh, from an initial fill and at odd times.
 */
final class HeapTatCellTest
{
    @Test
    void theWordIsAloneOnItsLinePairInsideTheLimiter()
    {
        final long word = HeapTatCell.WORD_OFFSET;
        long firstField = Long.MAX_VALUE;
        long endOfFields = 0;
        for (Class<?> c = RateLimiter.class; c != Object.class; c = c.getSuperclass())
        {
            for (final Field field : c.getDeclaredFields())
            {
                if (Modifier.isStatic(field.getModifiers()))
                {
                    continue;
                }
                final long offset = UnsafeApi.objectFieldOffset(field);
                final long size = field.getType() == long.class ? 8 : 4;
                firstField = Math.min(firstField, offset);
                endOfFields = Math.max(endOfFields, offset + size);
                if (offset != word && !field.getName().matches("[pq]\\d\\d"))
                {
                    // Read-only fields of the limiter: never on the word's 128 bytes' line pair either way.
                    assertTrue(Math.abs(offset - word) >= 8, field.getName() + " at " + offset);
                }
            }
        }
        assertTrue(firstField <= 16, "fields start right after the header, at " + firstField);
        assertTrue(word >= CellLayout.CELL_LENGTH, "128 bytes of this object before the word, at " + word);
        assertTrue(endOfFields - (word + 8) >= CellLayout.CELL_LENGTH,
            "128 bytes of this object after the word: word at " + word + ", fields end at " + endOfFields);
    }

    @Test
    void ownCellModeAnswersNullCellsAndReadsItsWord()
    {
        final Limit limit = Limit.ofGcra(10, 20);
        final RateLimiter own = new RateLimiter(limit);
        assertNull(own.cells(), "own cell: no CellArray");
        assertEquals(CellArray.FRESH_TAT_NS, own.tatNs());
        assertEquals(Result.ADMITTED, own.tryAcquire(1, 100));
        assertEquals(110, own.tatNs());
        final CellArray cells = CellArray.allocate(2);
        final RateLimiter shared = new RateLimiter(limit, cells, 1, SystemNanoClock.INSTANCE);
        assertSame(cells, shared.cells());
        assertEquals(CellArray.FRESH_TAT_NS, shared.tatNs());
    }

    @Test
    void ownAndArrayCellsDecideAlikeInEveryMethod()
    {
        final SplittableRandom random = new SplittableRandom(14);
        final Limit[] limits = {Limit.ofGcra(1, 0), Limit.ofGcra(7, 20), Limit.ofGcra(1_000, 1L << 40),
            Limit.ofGcra(Long.MAX_VALUE / 4, Long.MAX_VALUE / 4)};
        final long[] starts = {0, -1, Long.MIN_VALUE, Long.MAX_VALUE - 1_000_000, 123_456_789};
        for (final Limit limit : limits)
        {
            for (final long start : starts)
            {
                final CellArray cells = CellArray.allocate(1);
                final RateLimiter own = new RateLimiter(limit, SystemNanoClock.INSTANCE);
                final RateLimiter array = new RateLimiter(limit, cells, 0, SystemNanoClock.INSTANCE);
                final Decision ownDecision = new Decision();
                final Decision arrayDecision = new Decision();
                long nowNs = start;
                for (int i = 0; i < 2_000; i++)
                {
                    nowNs += random.nextInt(4) == 0 ? -random.nextLong(50) : random.nextLong(limit.emissionIntervalNs() * 2 + 1);
                    final long permits = random.nextInt(8) == 0 ? random.nextLong() : 1 + random.nextLong(limit.burst() + 2);
                    final String at = limit + " start " + start + " step " + i + " now " + nowNs + " permits " + permits;
                    switch (random.nextInt(4))
                    {
                        case 0 -> assertEquals(array.tryAcquire(permits, nowNs), own.tryAcquire(permits, nowNs), at);
                        case 1 ->
                        {
                            assertEquals(array.tryAcquire(permits, nowNs, arrayDecision),
                                own.tryAcquire(permits, nowNs, ownDecision), at);
                            assertEquals(arrayDecision.toString(), ownDecision.toString(), at);
                        }
                        case 2 -> assertEquals(array.peek(permits, nowNs), own.peek(permits, nowNs), at);
                        default -> assertEquals(array.debit(permits, nowNs), own.debit(permits, nowNs), at);
                    }
                    assertEquals(array.tatNs(), own.tatNs(), at);
                }
            }
        }
    }

    @Test
    void initialFillGoesToTheOwnWord()
    {
        final Limit limit = Limit.ofGcra(10, 40);
        final org.agrona.concurrent.CachedNanoClock clock = new org.agrona.concurrent.CachedNanoClock();
        clock.update(1_000);
        final RateLimiter empty = new RateLimiter(limit, clock, 0);
        assertTrue(empty.tryAcquire(1, 1_000) > 0, "empty at creation");
        final RateLimiter two = new RateLimiter(limit, clock, 2);
        assertEquals(Result.ADMITTED, two.tryAcquire(2, 1_000));
        assertTrue(two.tryAcquire(1, 1_000) > 0, "two permits, no more");
    }
}
