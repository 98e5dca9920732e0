package dev.cellrate.translate;

import dev.cellrate.Limit;
import dev.cellrate.shaper.ShaperMode;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Translators at the edges of their ranges (issue 15, PIT survivors of {@code dev.cellrate.translate}): NGINX's
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
