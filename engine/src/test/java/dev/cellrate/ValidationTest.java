package dev.cellrate;

import dev.cellrate.layout.CellArray;
import dev.cellrate.layout.CellLayout;
import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.NanoClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every configuration the engine rejects fails at construction with an {@link IllegalArgumentException} whose
 * message names the field and its allowed range ({@code "<field> must be in [min, max] but was v"}), and the
 * extreme accepted values really are accepted.
 */
final class ValidationTest
{
    static final long MAX = Limit.MAX_CEILING_NS;

    @Test
    void ofGcraRejectsOutOfRangeEmissionInterval()
    {
        assertRange("emissionIntervalNs", 1, MAX, 0, () -> Limit.ofGcra(0, 0));
        assertRange("emissionIntervalNs", 1, MAX, -1, () -> Limit.ofGcra(-1, 0));
        assertRange("emissionIntervalNs", 1, MAX, Long.MIN_VALUE, () -> Limit.ofGcra(Long.MIN_VALUE, 0));
        assertRange("emissionIntervalNs", 1, MAX, MAX + 1, () -> Limit.ofGcra(MAX + 1, 0));
        assertRange("emissionIntervalNs", 1, MAX, Long.MAX_VALUE, () -> Limit.ofGcra(Long.MAX_VALUE, 0));
    }

    @Test
    void ofGcraRejectsOutOfRangeTolerance()
    {
        assertRange("toleranceNs", 0, MAX - 1, -1, () -> Limit.ofGcra(1, -1));
        assertRange("toleranceNs", 0, MAX - 1, MAX, () -> Limit.ofGcra(1, MAX));
        assertRange("toleranceNs", 0, MAX - 1000, MAX - 999, () -> Limit.ofGcra(1000, MAX - 999));
        assertRange("toleranceNs", 0, 0, 1, () -> Limit.ofGcra(MAX, 1));
        assertRange("toleranceNs", 0, MAX - 7, Long.MAX_VALUE, () -> Limit.ofGcra(7, Long.MAX_VALUE));
    }

    @Test
    void ofGcraAcceptsTheExtremes()
    {
        assertEquals(MAX, Limit.ofGcra(MAX, 0).ceilingNs());
        assertEquals(1, Limit.ofGcra(MAX, 0).burst());
        assertEquals(MAX, Limit.ofGcra(1, MAX - 1).burst());
        assertEquals(1, Limit.ofGcra(1, 0).burst());
        assertEquals(4, Limit.ofGcra(3, 10).burst());
    }

    @Test
    void ofRejectsBadPermitsPeriodUnitAndBurst()
    {
        final IllegalArgumentException nullUnit =
            assertThrows(IllegalArgumentException.class, () -> Limit.of(1, 1, null, 1));
        assertTrue(nullUnit.getMessage().contains("unit"), nullUnit.getMessage());
        assertRange("permits", 1, Long.MAX_VALUE, 0, () -> Limit.of(0, 1, TimeUnit.SECONDS, 1));
        assertRange("permits", 1, Long.MAX_VALUE, -5, () -> Limit.of(-5, 1, TimeUnit.SECONDS, 1));
        assertRange("period", 1, Long.MAX_VALUE, 0, () -> Limit.of(1, 0, TimeUnit.SECONDS, 1));
        assertRange("period", 1, Long.MAX_VALUE, Long.MIN_VALUE, () -> Limit.of(1, Long.MIN_VALUE, TimeUnit.SECONDS, 1));
        // 2^62 ns is about 53,375 days; unit.toNanos saturates at Long.MAX_VALUE, which is also out of range.
        assertRange("period (in ns)", 1, MAX, TimeUnit.DAYS.toNanos(60_000),
            () -> Limit.of(1, 60_000, TimeUnit.DAYS, 1));
        assertRange("period (in ns)", 1, MAX, Long.MAX_VALUE, () -> Limit.of(1, Long.MAX_VALUE, TimeUnit.DAYS, 1));
        assertRange("period (in ns)", 1, MAX, MAX + 1, () -> Limit.of(1, MAX + 1, TimeUnit.NANOSECONDS, 1));
        assertRange("burst", 1, MAX / 100_000_000L, 0, () -> Limit.of(10, 1, TimeUnit.SECONDS, 0));
        assertRange("burst", 1, MAX / 100_000_000L, -1, () -> Limit.of(10, 1, TimeUnit.SECONDS, -1));
        assertRange("burst", 1, MAX / 100_000_000L, MAX / 100_000_000L + 1,
            () -> Limit.of(10, 1, TimeUnit.SECONDS, MAX / 100_000_000L + 1));
        assertRange("burst", 1, MAX, Long.MAX_VALUE, () -> Limit.of(Long.MAX_VALUE, 1, TimeUnit.NANOSECONDS, Long.MAX_VALUE));
    }

    @Test
    void ofRoundsTheEmissionIntervalUpAndAcceptsTheExtremes()
    {
        assertEquals(333_333_334, Limit.of(3, 1, TimeUnit.SECONDS, 1).emissionIntervalNs());
        assertEquals(1, Limit.of(Long.MAX_VALUE, 1, TimeUnit.NANOSECONDS, 1).emissionIntervalNs());
        assertEquals(MAX, Limit.of(1, MAX, TimeUnit.NANOSECONDS, 1).emissionIntervalNs());
        assertEquals(MAX, Limit.of(1, 1, TimeUnit.NANOSECONDS, MAX).burst());
        final Limit widest = Limit.of(10, 1, TimeUnit.SECONDS, MAX / 100_000_000L);
        assertTrue(widest.ceilingNs() <= MAX);
    }

    @Test
    void perSecondRejectsBadRateAndBurst()
    {
        assertRange("permits", 1, Long.MAX_VALUE, 0, () -> Limit.perSecond(0, 1));
        assertRange("permits", 1, Long.MAX_VALUE, -1, () -> Limit.perSecond(-1, 1));
        assertRange("burst", 1, MAX / 1_000_000_000L, 0, () -> Limit.perSecond(1, 0));
        assertRange("burst", 1, MAX / 1_000_000_000L, MAX / 1_000_000_000L + 1,
            () -> Limit.perSecond(1, MAX / 1_000_000_000L + 1));
        assertEquals(MAX / 1_000_000_000L, Limit.perSecond(1, MAX / 1_000_000_000L).burst());
    }

    /**
     * Regression: MAX_CELLS used to be {@code Integer.MAX_VALUE / 128}, whose aligned allocation asks for
     * {@code MAX_CELLS * 128 + 128} bytes, an {@code int} overflow inside Agrona; the failure then came from
     * {@code ByteBuffer.allocateDirect} with a message that named neither field nor range.
     */
    @Test
    void cellArrayRejectsOutOfRangeCounts()
    {
        assertRange("cellCount", 1, CellArray.MAX_CELLS, 0, () -> CellArray.allocate(0));
        assertRange("cellCount", 1, CellArray.MAX_CELLS, -1, () -> CellArray.allocate(-1));
        assertRange("cellCount", 1, CellArray.MAX_CELLS, Integer.MAX_VALUE / CellLayout.CELL_LENGTH,
            () -> CellArray.allocate(Integer.MAX_VALUE / CellLayout.CELL_LENGTH));
        assertRange("cellCount", 1, CellArray.MAX_CELLS, Integer.MAX_VALUE, () -> CellArray.allocate(Integer.MAX_VALUE));
        assertTrue((long)CellArray.MAX_CELLS * CellLayout.CELL_LENGTH + CellLayout.CELL_ALIGNMENT <= Integer.MAX_VALUE);
    }

    @Test
    void rateLimiterRejectsNullsAndBadCellIndex()
    {
        final Limit limit = Limit.perSecond(10, 10);
        final CellArray cells = CellArray.allocate(3);
        final NanoClock clock = new CachedNanoClock();
        assertNullRejected(() -> new RateLimiter(null));
        assertNullRejected(() -> new RateLimiter(limit, (NanoClock)null));
        assertNullRejected(() -> new RateLimiter(null, clock));
        assertNullRejected(() -> new RateLimiter(null, cells, 0, clock));
        assertNullRejected(() -> new RateLimiter(limit, null, 0, clock));
        assertNullRejected(() -> new RateLimiter(limit, cells, 0, null));
        assertRange("cellIndex", 0, 2, -1, () -> new RateLimiter(limit, cells, -1, clock));
        assertRange("cellIndex", 0, 2, 3, () -> new RateLimiter(limit, cells, 3, clock));
        assertRange("cellIndex", 0, 2, Integer.MIN_VALUE, () -> new RateLimiter(limit, cells, Integer.MIN_VALUE, clock));
        assertRange("cellIndex", 0, 2, Integer.MAX_VALUE, () -> new RateLimiter(limit, cells, Integer.MAX_VALUE, clock));
    }

    @Test
    void singleThreadedRateLimiterRejectsNullsAndBadCellIndex()
    {
        final Limit limit = Limit.perSecond(10, 10);
        final CellArray cells = CellArray.allocate(1);
        final NanoClock clock = new CachedNanoClock();
        assertNullRejected(() -> new SingleThreadedRateLimiter(null));
        assertNullRejected(() -> new SingleThreadedRateLimiter(limit, null));
        assertNullRejected(() -> new SingleThreadedRateLimiter(null, clock));
        assertNullRejected(() -> new SingleThreadedRateLimiter(null, cells, 0, clock));
        assertNullRejected(() -> new SingleThreadedRateLimiter(limit, null, 0, clock));
        assertNullRejected(() -> new SingleThreadedRateLimiter(limit, cells, 0, null));
        assertRange("cellIndex", 0, 0, -1, () -> new SingleThreadedRateLimiter(limit, cells, -1, clock));
        assertRange("cellIndex", 0, 0, 1, () -> new SingleThreadedRateLimiter(limit, cells, 1, clock));
    }

    static void assertRange(
        final String field, final long min, final long max, final long value, final Executable executable)
    {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, executable);
        assertEquals(field + " must be in [" + min + ", " + max + "] but was " + value, e.getMessage());
    }

    static void assertNullRejected(final Executable executable)
    {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, executable);
        assertTrue(e.getMessage().contains("must not be null"), e.getMessage());
    }
}
