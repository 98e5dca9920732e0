package dev.cellrate.translate;

import dev.cellrate.Limit;
import dev.cellrate.ShaperMode;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Translators at the edges of their ranges (the cases PIT finds in {@code dev.cellrate.translate}): NGINX's
 * zero values parse, a zero rate is refused by its range rather than as missing, and redis-cell's largest
 * {@code max_burst} is accepted while the next one is refused naming {@code max_burst}.
 */
final class TranslateSpecTest
{
    @Test
    void nginxZeroBurstAndZeroDelayParse()
    {
        final NginxLimitReq zero = Nginx.parse("rate=10r/s burst=0 delay=0");
        assertEquals(0, zero.burst());
        assertEquals(ShaperMode.delay(), zero.mode(), "delay=0 is the default shaping mode");
        assertEquals(Nginx.parse("rate=10r/s"), zero);
    }

    @Test
    void nginxZeroRateIsRefusedByItsRangeNotAsMissing()
    {
        final String message = assertThrows(IllegalArgumentException.class, () -> Nginx.parse("rate=0r/s")).getMessage();
        assertTrue(message.startsWith("rate must be in [1, ") && message.endsWith("but was 0"), message);
        final String missing = assertThrows(IllegalArgumentException.class, () -> Nginx.parse("burst=5")).getMessage();
        assertTrue(missing.contains("rate must be given"), missing);
        final String negative =
            assertThrows(IllegalArgumentException.class, () -> Nginx.parse("rate=10r/s burst=-1")).getMessage();
        assertEquals("burst must be a non-negative integer but was -1", negative);
    }

    @Test
    void nginxRefusesNoParametersByName()
    {
        assertEquals("parameters must not be null",
            assertThrows(IllegalArgumentException.class, () -> Nginx.parse(null)).getMessage());
    }

    @Test
    void guavasToleranceRoundsUpSoThatMPlusOnePermitsPassFromIdle()
    {
        // 3 permits per 7 s: T = ceil(7e9 / 3) = 2,333,333,334 ns; M = 3 / 7 per second, so
        // tau = M * T = 3e9 * T / 7e9 = 1,000,000,000.29 ns, rounded up.
        final Limit limit = Guava.create(3, 7, java.util.concurrent.TimeUnit.SECONDS).limit();
        assertEquals(2_333_333_334L, limit.emissionIntervalNs());
        assertEquals(1_000_000_001L, limit.toleranceNs());
        // An exact case stays exact: 1 permit per second.
        assertEquals(1_000_000_000L, Guava.create(1).limit().toleranceNs());
        // The widest period and the most permits still fit tau + T <= 2^62.
        final Limit widest = Guava.create(1, 1L << 61, java.util.concurrent.TimeUnit.NANOSECONDS).limit();
        assertEquals(1L << 61, widest.emissionIntervalNs());
        assertEquals(1_000_000_000L, widest.toleranceNs());
        final Limit most = Guava.create((1L << 61) - 1, 1L << 61, java.util.concurrent.TimeUnit.NANOSECONDS).limit();
        assertEquals(2, most.emissionIntervalNs());
        assertTrue(most.toleranceNs() <= 2_000_000_000L, most.toString());
    }

    @Test
    void redisCellsLargestMaxBurstIsAcceptedAndTheNextRefusedByName()
    {
        final long emissionIntervalNs = 1_000_000_000L; // 1 per second
        final long largest = Limit.MAX_CEILING_NS / emissionIntervalNs - 1;
        final Limit limit = RedisCell.throttle(largest, 1, 1);
        assertEquals(emissionIntervalNs, limit.emissionIntervalNs());
        assertEquals(largest * emissionIntervalNs, limit.toleranceNs());
        final String message =
            assertThrows(IllegalArgumentException.class, () -> RedisCell.throttle(largest + 1, 1, 1)).getMessage();
        assertTrue(message.startsWith("max_burst must be in [0, " + largest + "]"), message);
        assertFalse(message.contains("toleranceNs"), message);
    }
}
