package dev.cellrate.gcra;

import org.junit.jupiter.api.Test;

import java.math.BigInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Edge cases of the pure GCRA functions at the ends of the long range (the random differential tests cover the
 * middle).
 */
final class GcraTest
{
    static final long T_NS = 1_000;
    static final long CEILING_NS = 3 * T_NS;

    @Test
    void lagSaturatesWhenTheTrueLagExceedsTheLongRange()
    {
        assertEquals(Long.MAX_VALUE, Gcra.lagNs(Long.MAX_VALUE, Long.MIN_VALUE));
        assertEquals(Long.MAX_VALUE, Gcra.lagNs(1, Long.MIN_VALUE + 1));
        assertEquals(Long.MAX_VALUE - 1, Gcra.lagNs(Long.MAX_VALUE - 1, 0));
        assertEquals(0, Gcra.lagNs(Long.MIN_VALUE, Long.MIN_VALUE));
        assertEquals(0, Gcra.lagNs(Long.MIN_VALUE, Long.MAX_VALUE));
    }

    /**
     * Regression: the retry-after used to be computed from the saturated lag, so when the true lag exceeded
     * 2^63 - 1 (time far behind the TAT) it returned {@code Long.MAX_VALUE - (ceiling - I)} instead of the
     * documented {@code min(Long.MAX_VALUE, exact)}.
     */
    @Test
    void retryAfterIsTheExactValueClampedToLongMax()
    {
        final long[][] cases = {
            {Long.MAX_VALUE, Long.MIN_VALUE, T_NS},
            {0, Long.MIN_VALUE, T_NS},
            {-1, Long.MIN_VALUE, T_NS},
            {CEILING_NS - T_NS - 1, Long.MIN_VALUE, T_NS},
            {Long.MAX_VALUE, -1, T_NS},
            {Long.MAX_VALUE, 0, T_NS},
            {Long.MAX_VALUE, 0, CEILING_NS},
            {Long.MAX_VALUE, -CEILING_NS, CEILING_NS},
            {1L << 62, -(1L << 62), T_NS},
            {1L << 62, -(1L << 62) - 1, 2 * T_NS},
            {5 * T_NS, 0, T_NS},
            {2 * T_NS, 0, T_NS},
        };
        for (final long[] c : cases)
        {
            final long exact = BigInteger.valueOf(c[0]).subtract(BigInteger.valueOf(c[1])).max(BigInteger.ZERO)
                .add(BigInteger.valueOf(c[2])).subtract(BigInteger.valueOf(CEILING_NS))
                .max(BigInteger.ZERO).min(BigInteger.valueOf(Long.MAX_VALUE)).longValueExact();
            assertEquals(exact, Gcra.retryAfterNs(c[0], c[1], c[2], CEILING_NS),
                "tat " + c[0] + ", now " + c[1] + ", increment " + c[2]);
            assertEquals(0 == exact, Gcra.conforms(c[0], c[1], c[2], CEILING_NS));
        }
    }

    @Test
    void retryAfterWhenTheTrueExcessJustFitsALong()
    {
        // True lag 2^63 + 2^62 - 1 with slack 2^62: excess 2^63 - 1 exactly.
        final long slackNs = 1L << 62;
        final long ceilingNs = slackNs + 1;
        assertEquals(Long.MAX_VALUE, Gcra.retryAfterNs(Long.MAX_VALUE, -(1L << 62), 1, ceilingNs));
        // True lag 2^63 with slack 2^62: excess 2^62.
        assertEquals(1L << 62, Gcra.retryAfterNs(0, Long.MIN_VALUE, 1, ceilingNs));
    }

    @Test
    void nextTatIsUnrepresentableOnlyPastLongMax()
    {
        assertEquals(Long.MAX_VALUE, Gcra.nextTatNs(Long.MIN_VALUE, Long.MAX_VALUE - T_NS, T_NS));
        assertEquals(Gcra.UNREPRESENTABLE, Gcra.nextTatNs(Long.MIN_VALUE, Long.MAX_VALUE - T_NS + 1, T_NS));
        assertEquals(Gcra.UNREPRESENTABLE, Gcra.nextTatNs(Long.MAX_VALUE, Long.MIN_VALUE, 1));
        assertEquals(Long.MIN_VALUE + 1, Gcra.nextTatNs(Long.MIN_VALUE, Long.MIN_VALUE, 1));
    }

    @Test
    void conformanceBoundaryIsInclusive()
    {
        assertTrue(Gcra.conforms(CEILING_NS - T_NS, 0, T_NS, CEILING_NS));
        assertFalse(Gcra.conforms(CEILING_NS - T_NS + 1, 0, T_NS, CEILING_NS));
        assertEquals(1, Gcra.retryAfterNs(CEILING_NS - T_NS + 1, 0, T_NS, CEILING_NS));
    }

    @Test
    void remainingAndResetAfterAtTheEdges()
    {
        assertEquals(3, Gcra.remaining(Long.MIN_VALUE, Long.MAX_VALUE, T_NS, CEILING_NS));
        assertEquals(0, Gcra.remaining(Long.MAX_VALUE, Long.MIN_VALUE, T_NS, CEILING_NS));
        assertEquals(0, Gcra.remaining(CEILING_NS, 0, T_NS, CEILING_NS));
        assertEquals(0, Gcra.remaining(CEILING_NS - 1, 0, T_NS, CEILING_NS));
        assertEquals(1, Gcra.remaining(CEILING_NS - T_NS, 0, T_NS, CEILING_NS));
        assertEquals(Long.MAX_VALUE, Gcra.resetAfterNs(Long.MAX_VALUE, Long.MIN_VALUE));
        assertEquals(0, Gcra.resetAfterNs(Long.MIN_VALUE, Long.MIN_VALUE));
    }
}
